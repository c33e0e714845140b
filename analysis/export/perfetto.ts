/**
 * Perfetto / Chrome JSON trace export, streamed: 10 M warps make ~1.5 GB of
 * JSON, so this yields string chunks for the caller to write (the CLI writes
 * them to a file; nothing here touches files).
 *
 * Layout (what ui.perfetto.dev shows):
 * - a process per SM ("SM n", pid n + 1: pid 0 is Linux's idle process in
 *   Perfetto's model), sorted by SM id;
 * - a thread per warp slot, "SM n / slot k": warps in one slot never
 *   overlap, which "X" events on one thread require. A warp that overlaps
 *   its slot's previous warp (clock jitter) or has no slot id goes to an
 *   extra lane ("SM n / extra k", "SM n / lane k") instead of breaking the
 *   nesting. Thread ids are unique across processes (Perfetto names threads
 *   by tid alone);
 * - "X" slices named by stage, ts/dur in µs (integer ns / 1000, exact after
 *   Perfetto's ns rounding), args {draw, drawLabel, customId, activeLanes};
 * - with a summary: a "Draws" process (one slice per draw span) and a
 *   "Findings" process (syncs, leftovers, stalls, caps), at the top; a
 *   summary with block profiles or ray events adds `block_profile` and
 *   `ray_events` to the draw slices' args (perfetto-args.ts);
 * - with marks, each marked warp's phases as "X" slices nested in its own
 *   (perfetto-phases.ts);
 * - for a sampled trace, a "Sampled: FS 1 in 8 …" process at the top with
 *   one slice over the frame, and `sampled`/`sampling` in otherData
 *   (perfetto-sampling.ts).
 * A trace without marks, block profiles or ray events gives the same text as
 * before they existed.
 */
import { popcount32 } from '../../shared-schema/columns.js';
import { maxOf } from '../../shared-schema/extent.js';
import { UNKNOWN_SM, type Trace } from '../../shared-schema/model.js';
import { STAGES } from '../../shared-schema/stages.js';
import type { AnalysisSummary, Finding } from '../summary.js';
import { MAX_LANES, WarpLanes, laneName } from './warp-lanes.js';
import { drawArgs } from './perfetto-args.js';
import { WarpPhases } from './perfetto-phases.js';
import { samplingOtherData, samplingTrack } from './perfetto-sampling.js';

export interface PerfettoOptions {
  /** Adds the Draws and Findings tracks. */
  readonly summary?: AnalysisSummary | null;
  /** Include each draw's label in every warp's args (default true). */
  readonly drawLabels?: boolean;
  /** Approximate characters per yielded chunk (default 1 Mi). */
  readonly chunkChars?: number;
  /** Each marked warp's phases as nested slices (default true, for a trace with marks). */
  readonly phases?: boolean;
}

export interface PerfettoStats {
  /** Warp slices written. */
  readonly warps: number;
  /** Threads (lanes) written, over all SMs. */
  readonly lanes: number;
  /** Warps moved to an extra lane because they overlapped their slot's previous warp. */
  readonly slotOverlaps: number;
  /** Warps that had to share a lane (more than MAX_LANES in flight on one SM); Perfetto nests them. */
  readonly forcedOverlaps: number;
  /** Phase slices nested in warps (0 without marks). */
  readonly phaseSlices: number;
}

const DRAWS_PID = 70000;
const FINDINGS_PID = 70001;
/** A sampled trace's track (perfetto-sampling.ts), above Findings and Draws. */
const SAMPLING_PID = 70003;
const SAMPLING_TID = 330_000_000;
const DRAWS_TID_BASE = 300_000_000;
const FINDINGS_TID_BASE = 310_000_000;

export function* perfettoJsonChunks(trace: Trace, options: PerfettoOptions = {}): Generator<string, PerfettoStats, undefined> {
  const chunkChars = options.chunkChars ?? 1 << 20;
  const parts: string[] = [];
  let size = 0;
  let first = true;
  const emit = (event: string) => {
    const text = first ? event : `,\n${event}`;
    first = false;
    parts.push(text);
    size += text.length;
  };
  const flush = (): string | null => {
    if (size === 0) return null;
    const chunk = parts.join('');
    parts.length = 0;
    size = 0;
    return chunk;
  };

  const other = {
    tool: 'warptrace',
    workload: trace.capture.workload,
    device: trace.device.name,
    capturedAt: trace.capture.capturedAt,
    warps: trace.warps.count,
    draws: trace.draws.length,
    recordsWritten: trace.capture.recordsWritten,
    recordsKept: trace.capture.recordsKept,
    calibration: trace.capture.calibration.method,
    alignedAcrossSms: trace.capture.calibration.alignedAcrossSms,
    ...samplingOtherData(trace),
  };
  yield `{"displayTimeUnit":"ns","otherData":${JSON.stringify(other)},"traceEvents":[\n`;

  const meta = (kind: 'process_name' | 'process_sort_index' | 'thread_name' | 'thread_sort_index', pid: number, tid: number, value: string | number) => {
    const args = typeof value === 'string' ? `{"name":${JSON.stringify(value)}}` : `{"sort_index":${value}}`;
    emit(`{"ph":"M","name":"${kind}","pid":${pid},"tid":${tid},"args":${args}}`);
  };

  const sampled = samplingTrack(trace);
  if (sampled !== null) {
    meta('process_name', SAMPLING_PID, 0, sampled.process);
    meta('process_sort_index', SAMPLING_PID, 0, -1);
    meta('thread_name', SAMPLING_PID, SAMPLING_TID, 'sampling');
    const { start, end, name } = sampled.span;
    emit(`{"ph":"X","name":${JSON.stringify(name)},"cat":"sampling","pid":${SAMPLING_PID},"tid":${SAMPLING_TID},"ts":${start / 1000},"dur":${(end - start) / 1000},"args":${JSON.stringify(sampled.args)}}`);
  }
  if (options.summary) {
    yield* summaryTracks(options.summary, meta, emit, flush);
  }

  const w = trace.warps;
  const { startNs, durationNs, warpSlot, stage, draw, customId, activeMask, activeMaskHi } = w;
  const stageNames = STAGES.map((s) => `"name":"${s.name}"`);
  const withLabels = options.drawLabels ?? true;
  const drawArgs = trace.draws.map((d) =>
    withLabels && d.label !== '' ? `"args":{"draw":${d.index},"drawLabel":${JSON.stringify(d.label)},` : `"args":{"draw":${d.index},`,
  );
  const phases = options.phases !== false && (trace.marks?.count ?? 0) > 0 ? new WarpPhases(trace.marks!) : null;
  const phaseNames = new Map<number, string>();
  let phaseSlices = 0;
  const laneNamed = new Uint8Array(MAX_LANES);
  const warpLanes = new WarpLanes();
  let lanes = 0;
  const { sm: groupSm, offsets } = w.smGroups;
  for (let g = 0; g < groupSm.length; g++) {
    const sm = groupSm[g]!;
    const pid = sm + 1;
    const smName = sm === UNKNOWN_SM ? 'SM unknown' : `SM ${sm}`;
    meta('process_name', pid, 0, smName);
    meta('process_sort_index', pid, 0, sm + 10);
    laneNamed.fill(0);
    warpLanes.startSm();
    const tidBase = (g + 1) * MAX_LANES;
    for (let i = offsets[g]!, last = offsets[g + 1]!; i < last; i++) {
      const s = Math.round(startNs[i]!);
      const e = Math.round(startNs[i]! + durationNs[i]!);
      const slot = warpSlot[i]!;
      const lane = warpLanes.assign(slot, s, e);
      const tid = tidBase + lane;
      if (laneNamed[lane] === 0) {
        laneNamed[lane] = 1;
        lanes++;
        meta('thread_name', pid, tid, laneName(smName, lane, slot));
        meta('thread_sort_index', pid, tid, lane);
      }
      let lanesActive = popcount32(activeMask[i]!);
      if (activeMaskHi !== null) lanesActive += popcount32(activeMaskHi[i]!);
      emit(
        `{"ph":"X",${stageNames[stage[i]!]},"pid":${pid},"tid":${tid},"ts":${s / 1000},"dur":${(e - s) / 1000},` +
          `${drawArgs[draw[i]!]}"customId":${customId[i]},"activeLanes":${lanesActive}}}`,
      );
      const n = phases === null ? 0 : phases.at(i);
      for (let j = 0, t = s; j < n; j++) {
        const key = phases!.key(j);
        let name = phaseNames.get(key);
        if (name === undefined) phaseNames.set(key, (name = `"name":${JSON.stringify(phases!.name(key))}`));
        const b = phases!.boundary(j, startNs[i]!, t, e);
        emit(`{"ph":"X",${name},"pid":${pid},"tid":${tid},"ts":${t / 1000},"dur":${(b - t) / 1000}}`);
        t = b;
      }
      phaseSlices += n;
      if (size >= chunkChars) yield flush()!;
    }
  }
  const rest = flush();
  if (rest !== null) yield rest;
  yield '\n]}\n';
  return { warps: w.count, lanes, slotOverlaps: warpLanes.slotOverlaps, forcedOverlaps: warpLanes.forcedOverlaps, phaseSlices };
}

/** The Draws and Findings processes, from an analysis summary. */
function* summaryTracks(
  summary: AnalysisSummary,
  meta: (kind: 'process_name' | 'process_sort_index' | 'thread_name' | 'thread_sort_index', pid: number, tid: number, value: string | number) => void,
  emit: (event: string) => void,
  flush: () => string | null,
): Generator<string, void, undefined> {
  meta('process_name', FINDINGS_PID, 0, 'Findings');
  meta('process_sort_index', FINDINGS_PID, 0, 0);
  const byKind = new Map<string, Finding[]>();
  for (const f of summary.findings) {
    const list = byKind.get(f.kind);
    if (list === undefined) byKind.set(f.kind, [f]);
    else list.push(f);
  }
  let findingLane = 0;
  for (const [kind, findings] of byKind) {
    const lanes = partition(findings.map((f) => [f.startNs, Math.max(f.endNs, f.startNs)] as const));
    const used = maxOf(lanes, 0) + 1;
    for (let l = 0; l < used; l++) {
      const tid = FINDINGS_TID_BASE + findingLane + l;
      meta('thread_name', FINDINGS_PID, tid, used === 1 ? kind : `${kind} ${l + 1}`);
      meta('thread_sort_index', FINDINGS_PID, tid, findingLane + l);
    }
    findings.forEach((f, j) => {
      const s = Math.round(f.startNs);
      const e = Math.max(s, Math.round(f.endNs));
      const args = { kind: f.kind, title: f.title, detail: f.detail, costNs: f.costNs, shareOfFrame: f.shareOfFrame, sm: f.sm, draw: f.draw, stage: f.stage, reliable: f.reliable };
      emit(`{"ph":"X","name":${JSON.stringify(f.title)},"cat":"finding","pid":${FINDINGS_PID},"tid":${FINDINGS_TID_BASE + findingLane + lanes[j]!},"ts":${s / 1000},"dur":${(e - s) / 1000},"args":${JSON.stringify(args)}}`);
    });
    findingLane += used;
  }
  yield* drain(flush);

  meta('process_name', DRAWS_PID, 0, 'Draws');
  meta('process_sort_index', DRAWS_PID, 0, 1);
  const draws = summary.draws.filter((d) => d.firstStartNs !== null && d.lastEndNs !== null);
  const lanes = partition(draws.map((d) => [d.firstStartNs!, d.lastEndNs!] as const));
  const used = maxOf(lanes, -1) + 1;
  for (let l = 0; l < used; l++) {
    meta('thread_name', DRAWS_PID, DRAWS_TID_BASE + l, `draws ${l + 1}`);
    meta('thread_sort_index', DRAWS_PID, DRAWS_TID_BASE + l, l);
  }
  const extra = summary.blocks !== undefined || summary.rays !== undefined ? drawArgs(summary.blocks, summary.rays) : null;
  draws.forEach((d, j) => {
    const s = Math.round(d.firstStartNs!);
    const e = Math.round(d.lastEndNs!);
    const args = { draw: d.index, label: d.label, kind: d.kind, warps: d.warps, warpTimeNs: d.warpTimeNs, overlapNs: d.overlapNs, gapBeforeNs: d.gapBeforeNs, ...extra?.get(d.index) };
    emit(`{"ph":"X","name":${JSON.stringify(d.label || `draw ${d.index}`)},"cat":"draw","pid":${DRAWS_PID},"tid":${DRAWS_TID_BASE + lanes[j]!},"ts":${s / 1000},"dur":${(e - s) / 1000},"args":${JSON.stringify(args)}}`);
  });
  yield* drain(flush);
}

function* drain(flush: () => string | null): Generator<string, void, undefined> {
  const chunk = flush();
  if (chunk !== null) yield chunk;
}

/**
 * Greedy interval partitioning: a lane per item, no two overlapping items (in
 * rounded ns) on one lane; each item takes the lowest-numbered lane free at
 * its start. Heaps, not a scan of every lane: 150,000 overlapping draws need
 * 150,000 lanes.
 */
function partition(items: readonly (readonly [number, number])[]): number[] {
  const order = items.map((_, i) => i).sort((a, b) => items[a]![0] - items[b]![0]);
  const lane = new Array<number>(items.length);
  const busy = new MinHeap(); // key: lane end, value: lane
  const free = new MinHeap(); // key and value: lane
  let lanes = 0;
  for (const i of order) {
    const s = Math.round(items[i]![0]);
    const e = Math.round(items[i]![1]);
    // Starts ascend, so a lane free at this start stays free for every later one.
    while (busy.size > 0 && busy.topKey() <= s) {
      const l = busy.pop();
      free.push(l, l);
    }
    const l = free.size > 0 ? free.pop() : lanes++;
    busy.push(e, l);
    lane[i] = l;
  }
  return lane;
}

/** Binary min-heap of (key, value) pairs, ties in any order. */
class MinHeap {
  private keys: number[] = [];
  private values: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  topKey(): number {
    return this.keys[0]!;
  }

  push(key: number, value: number): void {
    let i = this.keys.length;
    this.keys.push(key);
    this.values.push(value);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.keys[p]! <= key) break;
      this.keys[i] = this.keys[p]!;
      this.values[i] = this.values[p]!;
      i = p;
    }
    this.keys[i] = key;
    this.values[i] = value;
  }

  /** Removes the smallest key and returns its value. */
  pop(): number {
    const top = this.values[0]!;
    const lastKey = this.keys.pop()!;
    const lastValue = this.values.pop()!;
    const n = this.keys.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && this.keys[c + 1]! < this.keys[c]!) c++;
        if (this.keys[c]! >= lastKey) break;
        this.keys[i] = this.keys[c]!;
        this.values[i] = this.values[c]!;
        i = c;
      }
      this.keys[i] = lastKey;
      this.values[i] = lastValue;
    }
    return top;
  }
}
