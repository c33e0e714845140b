/**
 * Shader execution reordering (VK_NV/EXT_ray_tracing_invocation_reorder): what the
 * reorder point did to a launch's warps. A ray-generation invocation that passes a
 * reorder point writes a RAYGEN record of the warp it launched in (up to the point)
 * and a RAYGEN_REORDERED record of the warp it joined after it (shared-schema/stages.ts).
 * Comparing the two sides per draw answers whether the device re-formed warps at all
 * and what it did to their coherence on screen:
 *
 * - kept: warps after the point whose lanes (mask and screen footprint) are exactly
 *   those of a warp before it, matched one to one. A device that does not reorder
 *   (the driver may offer the extension and not reorder) keeps nearly all of them;
 *   the rest split at trace calls, as in a launch without a reorder point.
 * - footprint: the screen box a warp's lanes cover (its position word, rounded up to
 *   powers of two, 128 px at most). Lanes gathered from far apart pixels widen it.
 *
 * Pure: one pass over the warp columns, then a sort per draw.
 */
import { Stage, hasPosition, popcount32, positionHeight, positionWidth, positionX, positionY, smOfWarp, type Trace } from '../shared-schema/index.js';

export interface ReorderSide {
  readonly warps: number;
  readonly lanes: number;
  /** Summed warp durations, ns. */
  readonly warpNs: number;
  /** Footprint (width × height, px) of the warps with a position: median and 90th percentile; null without positions. */
  readonly footprintMedianPx: number | null;
  readonly footprintP90Px: number | null;
}

export interface DrawReorder {
  readonly draw: number;
  /** RAYGEN warps of the draw: the launch's warps up to the reorder point (and invocations that never reached one). */
  readonly before: ReorderSide;
  /** RAYGEN_REORDERED warps: the warps the invocations joined after the point. */
  readonly after: ReorderSide;
  /** After-warps with exactly the lanes of a before-warp (mask and footprint, one to one); null without positions. */
  readonly kept: number | null;
  /** 'kept': at least KEPT_SHARE of after-warps kept their lanes (the device did not reorder); 're-formed': fewer; 'unknown': no positions. */
  readonly verdict: 'kept' | 're-formed' | 'unknown';
}

/** Share of after-warps with unchanged lanes above which the reorder point is said to have kept the warps. */
export const KEPT_SHARE = 0.5;

/** One entry per draw with RAYGEN_REORDERED warps, in draw order; empty when the trace has none. */
export function summarizeReorders(trace: Trace): DrawReorder[] {
  const w = trace.warps;
  const draws = new Map<number, { before: number[]; after: number[] }>();
  for (let i = 0; i < w.count; i++) {
    const stage = w.stage[i]!;
    if (stage !== Stage.RAYGEN && stage !== Stage.RAYGEN_REORDERED) continue;
    const d = w.draw[i]!;
    let rows = draws.get(d);
    if (rows === undefined) draws.set(d, (rows = { before: [], after: [] }));
    (stage === Stage.RAYGEN ? rows.before : rows.after).push(i);
  }
  const out: DrawReorder[] = [];
  for (const [draw, rows] of [...draws].sort((a, b) => a[0] - b[0])) {
    if (rows.after.length === 0) continue;
    const kept = keptWarps(trace, rows.before, rows.after);
    const verdict = kept === null ? 'unknown' : kept >= KEPT_SHARE * rows.after.length ? 'kept' : 're-formed';
    out.push({ draw, before: side(trace, rows.before), after: side(trace, rows.after), kept, verdict });
  }
  return out;
}

function side(trace: Trace, rows: readonly number[]): ReorderSide {
  const w = trace.warps;
  let lanes = 0;
  let warpNs = 0;
  const footprints: number[] = [];
  for (const i of rows) {
    lanes += popcount32(w.activeMask[i]!) + (w.activeMaskHi === null ? 0 : popcount32(w.activeMaskHi[i]!));
    warpNs += w.durationNs[i]!;
    const p = w.position?.[i];
    if (p !== undefined && hasPosition(p)) footprints.push(positionWidth(p) * positionHeight(p));
  }
  footprints.sort((a, b) => a - b);
  const at = (q: number) => (footprints.length === 0 ? null : footprints[Math.floor(q * (footprints.length - 1))]!);
  return { warps: rows.length, lanes, warpNs, footprintMedianPx: at(0.5), footprintP90Px: at(0.9) };
}

/** After-warps whose (mask, position) equals a before-warp's, each before-warp matched once; null without positions. */
function keptWarps(trace: Trace, before: readonly number[], after: readonly number[]): number | null {
  const w = trace.warps;
  const position = w.position;
  if (position === null) return null;
  const key = (i: number) => `${w.activeMask[i]}:${w.activeMaskHi?.[i] ?? 0}:${position[i]}`;
  const open = new Map<string, number>();
  for (const i of before) if (hasPosition(position[i]!)) open.set(key(i), (open.get(key(i)) ?? 0) + 1);
  if (open.size === 0) return null;
  let kept = 0;
  for (const i of after) {
    const k = key(i);
    const n = open.get(k) ?? 0;
    if (n > 0) {
      kept++;
      open.set(k, n - 1);
    }
  }
  return kept;
}


/** A ray-generation warp's other side of the reorder point (warp details: its lanes before and after). */
export interface ReorderCounterparts {
  /** Which side `row` is on. */
  readonly side: 'before' | 'after';
  /** The warp on the other side with exactly these lanes (mask and footprint): the same SM slot, then the nearest in time; null: none. */
  readonly exact: number | null;
  /** Warps on the other side whose footprints meet this warp's: where its lanes may have gone or come from (rows, in time order). */
  readonly overlapping: number[];
}

/**
 * For a RAYGEN or RAYGEN_REORDERED warp of a draw with reorder records: the warps on the other side of the
 * point that hold its lanes. Null for other warps, draws without reorder records and warps without a position.
 * One pass over the trace's warps (a click, not a frame).
 */
export function reorderCounterparts(trace: Trace, row: number): ReorderCounterparts | null {
  const w = trace.warps;
  const position = w.position;
  const stage = w.stage[row];
  if (position === null || (stage !== Stage.RAYGEN && stage !== Stage.RAYGEN_REORDERED) || !hasPosition(position[row]!)) return null;
  const other = stage === Stage.RAYGEN ? Stage.RAYGEN_REORDERED : Stage.RAYGEN;
  const draw = w.draw[row];
  const box = footprintBox(position[row]!);
  const rowSm = smOfWarp(w.smGroups, row);
  const overlapping: number[] = [];
  let exact: number | null = null;
  let exactScore = Infinity;
  let reorders = false;
  for (let i = 0; i < w.count; i++) {
    if (w.draw[i] !== draw) continue;
    if (w.stage[i] === Stage.RAYGEN_REORDERED) reorders = true;
    if (w.stage[i] !== other || !hasPosition(position[i]!)) continue;
    if (!boxesMeet(box, footprintBox(position[i]!))) continue;
    overlapping.push(i);
    if (position[i] === position[row] && w.activeMask[i] === w.activeMask[row] && (w.activeMaskHi?.[i] ?? 0) === (w.activeMaskHi?.[row] ?? 0)) {
      // Prefer the same warp slot (a device that keeps its warps keeps them there), then the nearest in time.
      const sameSlot = w.warpSlot[i] === w.warpSlot[row] && smOfWarp(w.smGroups, i) === rowSm;
      const score = (sameSlot ? 0 : 1e15) + Math.abs(w.startNs[i]! - w.startNs[row]!);
      if (score < exactScore) (exact = i), (exactScore = score);
    }
  }
  if (!reorders) return null;
  overlapping.sort((a, b) => w.startNs[a]! - w.startNs[b]!);
  return { side: stage === Stage.RAYGEN ? 'before' : 'after', exact, overlapping };
}

interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

function footprintBox(word: number): Box {
  const x0 = positionX(word);
  const y0 = positionY(word);
  return { x0, y0, x1: x0 + positionWidth(word), y1: y0 + positionHeight(word) };
}

function boxesMeet(a: Box, b: Box): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}
