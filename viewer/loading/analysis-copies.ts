/**
 * Copies of a trace's warp columns made by the decode worker for the
 * analysis (it copies before it transfers the originals, on its own thread).
 * The loader registers them with the trace they belong to; analyzeInWorker
 * takes them (once) and transfers them whole to the analysis worker, so the
 * page copies nothing. Without a copy (a trace built on the page) the client
 * copies the page's columns a slice per task instead. A copy nobody takes
 * within UNCLAIMED_MS (a page without analysis panels) is dropped, so it does
 * not double the trace's memory for good.
 */
import type { Trace, WarpColumns } from '../../shared-schema/index.js';

const copies = new WeakMap<Trace, WarpColumns>();

export const UNCLAIMED_MS = 10_000;

export function registerAnalysisCopy(trace: Trace, warps: WarpColumns): void {
  copies.set(trace, warps);
  setTimeout(() => {
    if (copies.get(trace) === warps) copies.delete(trace);
  }, UNCLAIMED_MS);
}

/** The copy for this trace, removed from the registry (its buffers are about to be transferred). */
export function takeAnalysisCopy(trace: Trace): WarpColumns | null {
  const w = copies.get(trace) ?? null;
  copies.delete(trace);
  return w;
}

/** A copy of every column (fresh buffers: transferable without touching the originals). */
export function copyWarpColumns(w: WarpColumns): WarpColumns {
  return {
    count: w.count,
    startNs: w.startNs.slice(),
    durationNs: w.durationNs.slice(),
    smGroups: { sm: w.smGroups.sm.slice(), offsets: w.smGroups.offsets.slice() },
    warpSlot: w.warpSlot.slice(),
    stage: w.stage.slice(),
    draw: w.draw.slice(),
    customId: w.customId.slice(),
    activeMask: w.activeMask.slice(),
    activeMaskHi: w.activeMaskHi?.slice() ?? null,
    smCycleStart: w.smCycleStart?.slice() ?? null,
    smCycleDuration: w.smCycleDuration?.slice() ?? null,
    position: w.position?.slice() ?? null,
  };
}

/** The distinct buffers of a column set (to transfer). */
export function columnBuffers(w: WarpColumns): ArrayBuffer[] {
  const arrays: (ArrayBufferView | null)[] = [
    w.startNs, w.durationNs, w.smGroups.sm, w.smGroups.offsets, w.warpSlot, w.stage, w.draw, w.customId,
    w.activeMask, w.activeMaskHi, w.smCycleStart, w.smCycleDuration, w.position,
  ];
  const out = new Set<ArrayBuffer>();
  for (const a of arrays) if (a !== null) out.add(a.buffer as ArrayBuffer);
  return [...out];
}
