/**
 * analyzeInWorker: runs `analyzeTrace` (analysis/analyze.ts) for a trace the
 * page holds, in a Web Worker (analysis-worker.ts), and resolves with the
 * summary. The decode worker's copy of the columns (analysis-copies.ts) is
 * transferred whole when the trace has one; otherwise (a trace built on the
 * page) the page's columns, which it keeps (the timeline draws them), are
 * copied a slice at a time and each copy transferred, one slice per task, so
 * no page task copies more than CHUNK_BYTES. Aborting terminates the worker
 * and rejects with an AbortError.
 */
import type { AnalysisSummary } from '../../analysis/summary.js';
import type { PhaseTable } from '../../analysis/marks.js';
import type { Trace } from '../../shared-schema/index.js';
import {
  COLUMN_NAMES,
  columnType,
  type AnalysisRequest,
  type AnalysisResponse,
  type ColumnArray,
  type ColumnName,
  type ColumnShape,
} from './analysis-protocol.js';
import { takeAnalysisCopy } from './analysis-copies.js';
import { afterQueuedTasks } from '../base/tasks.js';

/** Bytes copied per page task (a few ms of memcpy on a slow machine). */
export const CHUNK_BYTES = 2 << 20;

function columnsOf(w: Trace['warps']): Record<ColumnName, ColumnArray | null> {
  return {
    startNs: w.startNs,
    durationNs: w.durationNs,
    smSm: w.smGroups.sm,
    smOffsets: w.smGroups.offsets,
    warpSlot: w.warpSlot,
    stage: w.stage,
    draw: w.draw,
    customId: w.customId,
    activeMask: w.activeMask,
    activeMaskHi: w.activeMaskHi,
    smCycleStart: w.smCycleStart,
    smCycleDuration: w.smCycleDuration,
    position: w.position,
  };
}

/** The summary, the analysis' time, and for a trace with marks the phase table of every draw (analysis/marks.ts; else null). */
export interface WorkerAnalysis {
  readonly summary: AnalysisSummary;
  readonly ms: number;
  readonly phases: PhaseTable | null;
}

/** `thresholds`: detector thresholds changed from their defaults (name → value), as `resolveThresholds` takes them. */
export async function analyzeInWorker(trace: Trace, signal?: AbortSignal, thresholds: Readonly<Record<string, number>> = {}): Promise<WorkerAnalysis> {
  const aborted = () => new DOMException('analysis cancelled', 'AbortError');
  if (signal?.aborted) throw aborted();
  const worker = new Worker(new URL('./analysis-worker.ts', import.meta.url), { type: 'module', name: 'warptrace-analysis' });
  let fail: (e: unknown) => void = () => undefined;
  let succeed: (r: WorkerAnalysis) => void = () => undefined;
  const result = new Promise<WorkerAnalysis>((resolve, reject) => {
    succeed = resolve;
    fail = reject;
  });
  const onAbort = () => fail(aborted());
  signal?.addEventListener('abort', onAbort);
  // The summary arrives in parts, one message (one page task) each: see AnalysisResponse.
  let head: AnalysisSummary | null = null;
  const draws: AnalysisSummary['draws'][number][] = [];
  let phases: PhaseTable | null = null;
  worker.onmessage = (event: MessageEvent<AnalysisResponse>) => {
    const m = event.data;
    if (m.kind === 'head') head = m.summary;
    else if (m.kind === 'draws') for (const d of m.draws) draws.push(d);
    else if (m.kind === 'phases') phases = m.table;
    else if (m.kind === 'done') {
      if (head === null) fail(new Error('the analysis worker sent no summary'));
      else succeed({ summary: { ...head, draws }, ms: m.ms, phases });
    } else fail(new Error(m.message));
  };
  worker.onerror = (event) => fail(new Error(`the analysis worker failed: ${event.message || 'worker error'}`));
  const post = (m: AnalysisRequest, transfer: Transferable[] = []) => worker.postMessage(m, transfer);
  try {
    // The analyses do not read the block profile (the shader panel does, on the page): it stays here, uncopied.
    // The marks go with meta (cloned: about 17 bytes a mark) for the phase table (analysis/marks.ts).
    const { warps, blocks: _blockProfile, ...meta } = trace;
    // The decode worker's copy, when there is one: transferred whole, the page copies nothing.
    const copy = takeAnalysisCopy(trace);
    const cols = columnsOf(copy ?? warps);
    const shapes = {} as Record<ColumnName, ColumnShape | null>;
    for (const name of COLUMN_NAMES) {
      const a = cols[name];
      shapes[name] = a === null ? null : { type: columnType(a), length: a.length };
    }
    post({ kind: 'begin', meta, count: warps.count, columns: shapes, thresholds });
    if (copy !== null) {
      for (const name of COLUMN_NAMES) {
        const a = cols[name];
        if (a !== null) post({ kind: 'chunk', column: name, offset: 0, data: a }, [a.buffer as ArrayBuffer]);
      }
      post({ kind: 'run' });
    }
    let stopped = copy !== null;
    void result.catch(() => (stopped = true));
    for (const name of stopped ? [] : COLUMN_NAMES) {
      const a = cols[name];
      if (a === null) continue;
      const step = Math.max(1, Math.floor(CHUNK_BYTES / a.BYTES_PER_ELEMENT));
      for (let offset = 0; offset < a.length; offset += step) {
        await afterQueuedTasks();
        if (stopped) return await result;
        const data = a.slice(offset, Math.min(a.length, offset + step));
        post({ kind: 'chunk', column: name, offset, data }, [data.buffer]);
      }
    }
    if (copy === null) post({ kind: 'run' });
    return await result;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    worker.terminate();
  }
}
