/**
 * Analysis worker: receives a trace's warp columns in slices
 * (analysis-protocol.ts), runs `analyzeTrace` (analysis/analyze.ts; ~1-2 s at
 * 10 M warps) off the page's thread and posts the summary back as plain data.
 * One trace per worker: the page terminates it to cancel.
 */
import { analyzeTrace } from '../../analysis/analyze.js';
import { resolveThresholds } from '../../analysis/thresholds.js';
import { phaseTable } from '../../analysis/marks.js';
import type { Trace, UintColumn } from '../../shared-schema/index.js';
import { DRAWS_PER_MESSAGE, allocColumn, type AnalysisRequest, type AnalysisResponse, type ColumnArray, type ColumnName } from './analysis-protocol.js';

const post = (message: AnalysisResponse) => (self as unknown as Worker).postMessage(message);

let begun: Extract<AnalysisRequest, { kind: 'begin' }> | null = null;
const columns = new Map<ColumnName, ColumnArray>();

function column<T extends ColumnArray>(name: ColumnName, is: (a: ColumnArray) => a is T): T {
  const a = columns.get(name);
  if (a === undefined || !is(a)) throw new Error(`analysis worker: column ${name} missing or of the wrong type`);
  return a;
}
function optional<T extends ColumnArray>(name: ColumnName, is: (a: ColumnArray) => a is T): T | null {
  return columns.has(name) ? column(name, is) : null;
}
const isF64 = (a: ColumnArray): a is Float64Array => a instanceof Float64Array;
const isF32 = (a: ColumnArray): a is Float32Array => a instanceof Float32Array;
const isU32 = (a: ColumnArray): a is Uint32Array => a instanceof Uint32Array;
const isU16 = (a: ColumnArray): a is Uint16Array => a instanceof Uint16Array;
const isU8 = (a: ColumnArray): a is Uint8Array => a instanceof Uint8Array;
const isUint = (a: ColumnArray): a is UintColumn => isU8(a) || isU16(a) || isU32(a);

function assemble(b: Extract<AnalysisRequest, { kind: 'begin' }>): Trace {
  return {
    ...b.meta,
    warps: {
      count: b.count,
      startNs: column('startNs', isF64),
      durationNs: column('durationNs', isF32),
      smGroups: { sm: column('smSm', isU16), offsets: column('smOffsets', isU32) },
      warpSlot: column('warpSlot', isU8),
      stage: column('stage', isU8),
      draw: column('draw', isUint),
      customId: column('customId', isUint),
      activeMask: column('activeMask', isUint),
      activeMaskHi: optional('activeMaskHi', isU32),
      smCycleStart: optional('smCycleStart', isF64),
      smCycleDuration: optional('smCycleDuration', isU32),
      position: optional('position', isU32),
    },
  };
}

self.onmessage = (event: MessageEvent<AnalysisRequest>) => {
  const m = event.data;
  try {
    if (m.kind === 'begin') {
      begun = m;
      columns.clear();
    } else if (m.kind === 'chunk') {
      const shape = begun?.columns[m.column] ?? null;
      if (shape === null) throw new Error(`analysis worker: chunk for unknown column ${m.column}`);
      if (m.offset === 0 && m.data.length === shape.length) {
        columns.set(m.column, m.data); // a whole column: taken as it came
      } else {
        let target = columns.get(m.column);
        if (target === undefined) columns.set(m.column, (target = allocColumn(shape)));
        target.set(m.data, m.offset);
      }
    } else {
      if (begun === null) throw new Error('analysis worker: run before begin');
      for (const [name, shape] of Object.entries(begun.columns) as [ColumnName, (typeof begun.columns)[ColumnName]][]) {
        if (shape !== null && !columns.has(name)) columns.set(name, allocColumn(shape)); // empty columns get no chunk
      }
      const t0 = performance.now();
      const trace = assemble(begun);
      // Phases between marks, every draw (a string key per phase occurrence: here, not on the page); the summary's phases section too.
      const phases = trace.marks == null ? null : phaseTable(trace, { draws: null, stage: null });
      const summary = analyzeTrace(trace, { phases, thresholds: resolveThresholds(begun.thresholds ?? {}) });
      const ms = performance.now() - t0;
      post({ kind: 'head', summary: { ...summary, draws: [] } });
      for (let d = 0; d < summary.draws.length; d += DRAWS_PER_MESSAGE) post({ kind: 'draws', draws: summary.draws.slice(d, d + DRAWS_PER_MESSAGE) });
      if (phases !== null && (trace.marks?.count ?? 0) > 0) post({ kind: 'phases', table: phases });
      columns.clear();
      post({ kind: 'done', ms });
    }
  } catch (e) {
    post({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
  }
};
