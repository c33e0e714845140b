/**
 * What the screen view reads of a trace: the warp columns it needs, the
 * position word per row (shared-schema/position.ts), and the render-target
 * size per draw. Columnar like the model; nothing here allocates per warp.
 */
import type { SmGroups, UintColumn } from '../shared-schema/model.js';
import { STAGE_COUNT } from '../shared-schema/stages.js';
import { NO_POSITION, positionHeight, positionWidth, positionX, positionY } from '../shared-schema/position.js';

/** The warp columns the screen analyses read; the model's WarpColumns with positions satisfy it. */
export interface ScreenColumns {
  readonly count: number;
  readonly startNs: Float64Array;
  readonly durationNs: Float32Array;
  readonly smGroups: SmGroups;
  readonly draw: UintColumn;
  readonly activeMask: UintColumn;
  readonly activeMaskHi: Uint32Array | null;
  /** Stage code per row (shared-schema/stages.ts), for a stage filter. */
  readonly stage: Uint8Array;
  /** Packed screen position per row (shared-schema/position.ts), NO_POSITION where none. */
  readonly position: Uint32Array;
}

/** Size of a render target (or ray launch, or compute grid), pixels. */
export interface TargetSize {
  readonly width: number;
  readonly height: number;
}

/** A draw as the screen view reads it: its render-target size when the capture recorded one. */
export interface ScreenDraw {
  readonly target?: TargetSize | null;
}

/** Warp columns that may carry positions (the model's, before and after it had them). */
export type MaybePositionedColumns = Omit<ScreenColumns, 'position'> & { readonly position?: Uint32Array | null };

/** The columns with their positions, or null when the trace recorded none (no column, or every row NO_POSITION). */
export function screenColumns(warps: MaybePositionedColumns): ScreenColumns | null {
  const position = warps.position ?? null;
  if (position === null) return null;
  for (let i = 0; i < position.length; i++) if (position[i] !== NO_POSITION) return { ...warps, position };
  return null;
}

/** The target size of every draw (null where unknown). */
export function drawTargets(draws: readonly ScreenDraw[]): (TargetSize | null)[] {
  return draws.map((d) => d.target ?? null);
}

export function sameTarget(a: TargetSize | null, b: TargetSize | null): boolean {
  return a !== null && b !== null && a.width === b.width && a.height === b.height;
}

/**
 * A set of draws as a mask over draw indices (1: in the set). `draw` alone, or
 * with `sharingTarget`, every draw whose target has `draw`'s size (just
 * `draw` when its size is unknown).
 */
export function drawSet(draws: readonly ScreenDraw[], draw: number, sharingTarget: boolean): Uint8Array {
  const mask = new Uint8Array(draws.length);
  if (draw < 0 || draw >= draws.length) return mask;
  mask[draw] = 1;
  if (!sharingTarget) return mask;
  const target = draws[draw]!.target ?? null;
  for (let i = 0; i < draws.length; i++) if (sameTarget(target, draws[i]!.target ?? null)) mask[i] = 1;
  return mask;
}

/** Warps with a position per draw (only those of the stages in `stages`, a mask over stage codes, when given). */
export function positionedWarpsPerDraw(cols: ScreenColumns, drawCount: number, stages: Uint8Array | null = null): Uint32Array {
  const counts = new Uint32Array(drawCount);
  const { draw, position, stage } = cols;
  for (let i = 0; i < cols.count; i++) {
    if (position[i] === NO_POSITION || (stages !== null && stages[stage[i]!] !== 1)) continue;
    const d = draw[i]!;
    if (d < drawCount) counts[d]!++;
  }
  return counts;
}

/** Warps with a position per stage code (index: stage code; STAGE_COUNT long). */
export function positionedWarpsPerStage(cols: ScreenColumns): Uint32Array {
  const counts = new Uint32Array(STAGE_COUNT);
  const { stage, position } = cols;
  for (let i = 0; i < cols.count; i++) if (position[i] !== NO_POSITION && stage[i]! < STAGE_COUNT) counts[stage[i]!]!++;
  return counts;
}

/** A set of stages as a mask over stage codes (1: in the set); null (every stage) for an empty list. */
export function stageSet(stages: readonly number[]): Uint8Array | null {
  if (stages.length === 0) return null;
  const mask = new Uint8Array(STAGE_COUNT);
  for (const s of stages) if (s >= 0 && s < STAGE_COUNT) mask[s] = 1;
  return mask;
}

/** The `limit` draws with the most positioned warps (ties: the earlier draw), ascending; draws without any are left out. */
export function busiestDraws(counts: Uint32Array, limit: number): number[] {
  const draws: number[] = [];
  for (let d = 0; d < counts.length; d++) if (counts[d]! > 0) draws.push(d);
  draws.sort((a, b) => counts[b]! - counts[a]! || a - b);
  return draws.slice(0, Math.max(0, limit)).sort((a, b) => a - b);
}

/**
 * The draw whose target-sharing set holds the most positioned warps (the
 * frame's main target, not a shadow map), or -1 when no warp has a position.
 * A draw of unknown target size is a set of its own.
 */
export function busiestTargetDraw(draws: readonly ScreenDraw[], counts: Uint32Array): number {
  const bySize = new Map<string, { first: number; warps: number }>();
  let best = -1;
  let bestWarps = 0;
  for (let d = 0; d < draws.length; d++) {
    const warps = counts[d] ?? 0;
    if (warps === 0) continue;
    const target = draws[d]!.target ?? null;
    let set = { first: d, warps };
    if (target !== null) {
      const key = `${target.width}x${target.height}`;
      const known = bySize.get(key);
      if (known === undefined) bySize.set(key, set);
      else {
        known.warps += warps;
        set = known;
      }
    }
    if (set.warps > bestWarps) {
      bestWarps = set.warps;
      best = set.first;
    }
  }
  return best;
}

/**
 * Size of the image of `rows` (positioned warps): the render target of their
 * draws when all of them have the same known size, otherwise the smallest
 * size holding every footprint.
 */
export function imageSize(draws: readonly ScreenDraw[], cols: ScreenColumns, rows: Uint32Array): TargetSize {
  const present = new Uint8Array(draws.length);
  for (let k = 0; k < rows.length; k++) present[cols.draw[rows[k]!]!] = 1;
  let common: TargetSize | null = null;
  let agreed = true;
  for (let d = 0; d < draws.length && agreed; d++) {
    if (present[d] !== 1) continue;
    const target = draws[d]!.target ?? null;
    if (target === null) agreed = false;
    else if (common === null) common = target;
    else if (!sameTarget(common, target)) agreed = false;
  }
  if (agreed && common !== null) return { width: common.width, height: common.height };
  return footprintExtent(cols, rows);
}

/** The smallest target (at least 1 × 1) holding the footprints of `rows`. */
export function footprintExtent(cols: ScreenColumns, rows: Uint32Array): TargetSize {
  let width = 1;
  let height = 1;
  const position = cols.position;
  for (let k = 0; k < rows.length; k++) {
    const word = position[rows[k]!]!;
    if (word === NO_POSITION) continue;
    const x1 = positionX(word) + positionWidth(word);
    const y1 = positionY(word) + positionHeight(word);
    if (x1 > width) width = x1;
    if (y1 > height) height = y1;
  }
  return { width, height };
}
