/**
 * The A/B ghost track: the baseline trace's draws drawn under the current
 * trace's draw track, each ghost on the row of the current draw it was paired
 * with (analysis/draw-match.ts) and laid from that draw's first warp: the
 * ghost is as long as the baseline draw was, so a ghost sticking out past its
 * draw means the draw got shorter, a draw past its ghost that it got longer,
 * wherever earlier draws moved it (a frame that got shorter does not leave the
 * later ghosts behind). How far a draw moved (each frame timed from its first
 * warp) is kept for the tooltip. Baseline draws paired with nothing are kept
 * too (their own list), drawn apart, moved as the paired baseline draw before
 * them was.
 */
import { MATCH_HOWS, drawIdentities, matchDraws, type MatchHow } from '../../analysis/draw-match.js';
import type { Trace } from '../../shared-schema/index.js';
import { packRgba } from './colors.js';
import type { DrawLayout } from './draw-layout.js';
import type { InstanceWriter } from './instances.js';

export interface GhostTrack {
  /** Per current draw d: [start, end] of its baseline draw's ghost, ns in the current time base, laid from d's first warp; NaN when unpaired or empty. */
  readonly spans: Float64Array;
  /** Per current draw d: how much later it starts than its baseline draw, each timed from its frame's first warp; NaN when unpaired or either has no warps. */
  readonly movedNs: Float64Array;
  /** Baseline draw paired with current draw d, or -1. */
  readonly baselineDraw: Int32Array;
  /** How current draw d was paired (index into MATCH_HOWS), or -1. */
  readonly matchedBy: Int8Array;
  /** 1 where current draw d's pair is strong. */
  readonly strong: Uint8Array;
  /** Baseline draws paired with no current draw, and their spans (current time base), two per draw. */
  readonly onlyBaseline: readonly number[];
  readonly onlyBaselineSpans: Float64Array;
  /** Added to a baseline time to put it in the current trace's time base with both frames' first warps aligned. */
  readonly offsetNs: number;
  readonly baseline: Trace;
}

/** Baseline spans by trace: a baseline stays while trace after trace is opened against it (one scan of its warps). */
const spansOfTrace = new WeakMap<Trace, { spans: Float64Array; firstNs: number }>();

/** Each draw's first warp start and last warp end (NaN for a draw without warps), and the first start of all. */
function warpSpans(trace: Trace): { spans: Float64Array; firstNs: number } {
  const known = spansOfTrace.get(trace);
  if (known !== undefined) return known;
  const w = trace.warps;
  const spans = new Float64Array(2 * trace.draws.length).fill(NaN);
  let firstNs = Infinity;
  for (let i = 0; i < w.count; i++) {
    const d = w.draw[i]!;
    const s = w.startNs[i]!;
    const e = s + w.durationNs[i]!;
    if (!(spans[2 * d]! <= s)) spans[2 * d] = s;
    if (!(spans[2 * d + 1]! >= e)) spans[2 * d + 1] = e;
    if (s < firstNs) firstNs = s;
  }
  const result = { spans, firstNs: Number.isFinite(firstNs) ? firstNs : 0 };
  spansOfTrace.set(trace, result);
  return result;
}

/**
 * Records a trace's draw spans as its lane index has them (first warp start and last
 * warp end per draw, built in the decode worker; the timeline calls this for every trace
 * it shows), so that when it becomes the baseline its warps need no scan (~35 ms at
 * 10 M warps, in the task that shows the next trace).
 */
export function rememberDrawSpans(trace: Trace, drawSpans: Float64Array): void {
  if (spansOfTrace.has(trace) || drawSpans.length !== 2 * trace.draws.length) return;
  // Every warp lies in a draw: the earliest draw start is the first warp start.
  let firstNs = Infinity;
  for (let d = 0; d < drawSpans.length; d += 2) if (drawSpans[d]! < firstNs) firstNs = drawSpans[d]!;
  spansOfTrace.set(trace, { spans: drawSpans, firstNs: Number.isFinite(firstNs) ? firstNs : 0 });
}

/**
 * O(draws), plus one scan of the baseline's warps the first time it is used unless rememberDrawSpans knew them.
 * @param currentSpans the current trace's first warp start and last warp end per draw (its lane index's drawSpans; NaN for a draw without warps).
 */
export function buildGhostTrack(current: Trace, currentSpans: Float64Array, baseline: Trace): GhostTrack {
  const matching = matchDraws(drawIdentities(baseline), drawIdentities(current));
  const base = warpSpans(baseline);
  let currentFirstNs = Infinity;
  for (let d = 0; d < currentSpans.length; d += 2) if (currentSpans[d]! < currentFirstNs) currentFirstNs = currentSpans[d]!;
  const offsetNs = (Number.isFinite(currentFirstNs) ? currentFirstNs : 0) - base.firstNs;
  const n = current.draws.length;
  const spans = new Float64Array(2 * n).fill(NaN);
  const movedNs = new Float64Array(n).fill(NaN);
  // Per baseline draw: what its ghost is shifted by (its pair's start against its own), NaN where unpaired.
  const shiftOfBase = new Float64Array(baseline.draws.length).fill(NaN);
  for (let d = 0; d < n; d++) {
    const a = matching.aOfB[d]!;
    if (a < 0) continue;
    const shift = currentSpans[2 * d]! - base.spans[2 * a]!;
    // A current draw without warps has no start to lay its ghost from: the frames' alignment stands in.
    shiftOfBase[a] = Number.isNaN(shift) ? offsetNs : shift;
    spans[2 * d] = base.spans[2 * a]! + shiftOfBase[a]!;
    spans[2 * d + 1] = base.spans[2 * a + 1]! + shiftOfBase[a]!;
    movedNs[d] = shift - offsetNs;
  }
  // A baseline-only draw moves as the last paired baseline draw before it did.
  const onlyShift = new Float64Array(baseline.draws.length);
  for (let a = 0, last = offsetNs; a < baseline.draws.length; a++) {
    if (!Number.isNaN(shiftOfBase[a]!)) last = shiftOfBase[a]!;
    onlyShift[a] = last;
  }
  const onlyBaselineSpans = new Float64Array(2 * matching.onlyA.length);
  matching.onlyA.forEach((a, k) => {
    onlyBaselineSpans[2 * k] = base.spans[2 * a]! + onlyShift[a]!;
    onlyBaselineSpans[2 * k + 1] = base.spans[2 * a + 1]! + onlyShift[a]!;
  });
  return {
    spans,
    movedNs,
    baselineDraw: matching.aOfB,
    matchedBy: matching.howOfB,
    strong: matching.strongOfB,
    onlyBaseline: matching.onlyA,
    onlyBaselineSpans,
    offsetNs,
    baseline,
  };
}

export function matchedByOf(g: GhostTrack, d: number): MatchHow | null {
  const k = g.matchedBy[d]!;
  return k < 0 ? null : MATCH_HOWS[k]!;
}

/** Relative change of a draw's span against its ghost (current / baseline − 1), null when either is missing or empty. */
export function spanChange(g: GhostTrack, currentSpans: Float64Array, d: number): number | null {
  const base = g.spans[2 * d + 1]! - g.spans[2 * d]!;
  const now = currentSpans[2 * d + 1]! - currentSpans[2 * d]!;
  return Number.isNaN(base) || Number.isNaN(now) || base <= 0 ? null : now / base - 1;
}

/** Span changes smaller than this (either way) show the ghost neutral. */
export const GHOST_SAME_WITHIN = 0.05;
const GHOST_SAME = packRgba(0xc9cedb, 70);
const GHOST_LONGER = packRgba(0xe06c6c, 130);
const GHOST_SHORTER = packRgba(0x6cc48a, 130);
const GHOST_ONLY_BASELINE = packRgba(0xe0a040, 120);

/** Ghost row of current draw d (its draw-track row without the region rows). */
export function ghostRowOf(layout: DrawLayout, d: number): number {
  return Math.max(0, layout.row[d]! - layout.regionRows);
}

/** Rows of the ghost band: the draw rows of the draw track. */
export function ghostRows(layout: DrawLayout): number {
  return Math.max(1, layout.rowCount - layout.regionRows);
}

export interface GhostBarsRequest {
  readonly ghost: GhostTrack;
  readonly layout: DrawLayout;
  readonly originNs: number;
  /** Time window the geometry covers, ns. */
  readonly windowNs: readonly [number, number];
  readonly y: number;
  readonly rowHeight: number;
}

/**
 * Appends the ghost bars (x in ns relative to originNs): translucent, red when
 * the current draw is longer than its ghost, green when shorter, grey when
 * within GHOST_SAME_WITHIN; baseline-only draws orange on the last row.
 */
export function pushGhostBars(req: GhostBarsRequest, out: InstanceWriter): void {
  const { ghost: g, layout, originNs, y, rowHeight } = req;
  const [t0, t1] = req.windowNs;
  const bar = (s: number, e: number, row: number, rgba: number) => {
    if (Number.isNaN(s) || Number.isNaN(e) || e < t0 || s > t1) return;
    const top = y + 2 + row * rowHeight;
    out.push(s - originNs, Math.max(e, s) - originNs, top, top + rowHeight - 2, rgba);
  };
  for (let d = 0; d < g.baselineDraw.length; d++) {
    if (g.baselineDraw[d]! < 0) continue;
    const change = spanChange(g, layout.spans, d);
    const rgba = change === null || Math.abs(change) < GHOST_SAME_WITHIN ? GHOST_SAME : change > 0 ? GHOST_LONGER : GHOST_SHORTER;
    bar(g.spans[2 * d]!, g.spans[2 * d + 1]!, ghostRowOf(layout, d), rgba);
  }
  const last = ghostRows(layout) - 1;
  for (let k = 0; k < g.onlyBaseline.length; k++) bar(g.onlyBaselineSpans[2 * k]!, g.onlyBaselineSpans[2 * k + 1]!, last, GHOST_ONLY_BASELINE);
}
