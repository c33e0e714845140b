/**
 * A captured frame edited the way a second capture differs from the first:
 * draws inserted, removed or reordered, some draws' warps longer or moved. Rebuilds a
 * real trace (buildTrace) from another; shared by the node and browser tests
 * (imports only shared-schema).
 */
import { buildTrace, smOfWarp, type DrawInput, type Trace } from '../../shared-schema/index.js';

export interface FrameEdit {
  /** The edited frame's draws in submission order: a source draw, or a new draw (its label) running the warps of source draw `like`. */
  readonly draws: readonly (number | { readonly label: string; readonly like: number })[];
  /** Source draw → factor its warps' durations are multiplied by. */
  readonly stretch?: ReadonlyMap<number, number>;
  /** Source draw → ns added to its warps' starts (negative: earlier). */
  readonly moveNs?: ReadonlyMap<number, number>;
}

export function editFrame(trace: Trace, edit: FrameEdit): Trace {
  const uses = new Map<number, number[]>();
  const draws: DrawInput[] = edit.draws.map((e, k) => {
    const src = typeof e === 'number' ? e : e.like;
    const list = uses.get(src);
    if (list === undefined) uses.set(src, [k]);
    else list.push(k);
    const d = trace.draws[src]!;
    return { ...d, index: k, label: typeof e === 'number' ? d.label : e.label };
  });
  const w = trace.warps;
  const cols = { startNs: [] as number[], endNs: [] as number[], sm: [] as number[], warpSlot: [] as number[], stage: [] as number[], draw: [] as number[], customId: [] as number[], activeMask: [] as number[] };
  for (let i = 0; i < w.count; i++) {
    const src = w.draw[i]!;
    const factor = edit.stretch?.get(src) ?? 1;
    const start = w.startNs[i]! + (edit.moveNs?.get(src) ?? 0);
    for (const k of uses.get(src) ?? []) {
      cols.startNs.push(start);
      cols.endNs.push(start + w.durationNs[i]! * factor);
      cols.sm.push(smOfWarp(w.smGroups, i));
      cols.warpSlot.push(w.warpSlot[i]!);
      cols.stage.push(w.stage[i]!);
      cols.draw.push(k);
      cols.customId.push(w.customId[i]!);
      cols.activeMask.push(w.activeMask[i]!);
    }
  }
  const n = cols.startNs.length;
  return buildTrace({
    device: trace.device,
    capture: { ...trace.capture, recordsWritten: n, recordsKept: n, bufferCapacity: n },
    draws,
    regions: trace.regions.map((r) => ({ label: r.label, parent: r.parent, source: r.source })),
    warps: cols,
  });
}
