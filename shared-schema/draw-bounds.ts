/**
 * Warps against their draws' GPU timestamps: the one check of the clock
 * calibration against an independent clock. A capture whose device-clock
 * samples and timestamp queries are on different time bases (the bug that
 * put warps 1-340 ms off) can fit every SM perfectly and still be wrong;
 * its warps then fall outside their draws.
 *
 * The bounds are loose on purpose, because of what the H100 does: NVIDIA
 * writes a draw's begin timestamp when the work before it drains, so a
 * draw's warps may start long before its own begin timestamp (378 µs in
 * samples/h100-aqt-heavy.wtrace, where draws run back to back without
 * barriers), but not before the first draw's; and a draw's end timestamp
 * follows all of its work. So a warp of draw d must lie within
 * [earliest begin timestamp of draws 0..d, end timestamp of d].
 */
import type { DrawBoundsCheck, Trace } from './model.js';
import { TICKS_PER_NS } from './model.js';
import type { ColumnAllocator } from './raw-canonical.js';
import { STAGE_COUNT } from './stages.js';

/**
 * How far (ns) a warp may lie outside its draw's bounds before it counts as
 * outside. The real samples reach 2.2 µs (H100: warps starting before the
 * first draw's begin timestamp) and 8.4 µs (lavapipe: warps ending after
 * their draw's end timestamp); a misalignment of tens of µs or more exceeds it.
 */
export const DRAW_BOUNDS_TOLERANCE_NS = 20_000;

/**
 * Where the host had to move the timestamps into the device clock's time base
 * (lavapipe: the clock check's brackets are 30-90 µs wide on a busy machine),
 * the move is only as good as the check: the tolerance grows by the check's
 * uncertainty, at most by this much, so a capture milliseconds off is still caught.
 */
export const MAX_TIMESTAMP_UNCERTAINTY_NS = 1_000_000;

/** The draw check's tolerance for a capture whose timestamps were moved with this uncertainty (ns). */
export function drawBoundsToleranceNs(timestampUncertaintyNs: number): number {
  return DRAW_BOUNDS_TOLERANCE_NS + Math.min(MAX_TIMESTAMP_UNCERTAINTY_NS, Math.max(0, timestampUncertaintyNs));
}

/** Per draw, the bounds its warps must lie within, in ticks since the origin (±Infinity: the draw has no timestamps). */
export interface DrawBoundsTicks {
  readonly lower: Float64Array;
  readonly upper: Float64Array;
}

/** The bounds from each draw's timestamps (ns since the origin; null: not written), or null when no draw has any. */
export function drawBoundsTicks(gpuBeginNs: readonly (number | null)[], gpuEndNs: readonly (number | null)[]): DrawBoundsTicks | null {
  const n = gpuBeginNs.length;
  if (!gpuBeginNs.some((b) => b !== null)) return null;
  const lower = new Float64Array(n).fill(-Infinity);
  const upper = new Float64Array(n).fill(Infinity);
  let earliest = Infinity;
  for (let d = 0; d < n; d++) {
    const begin = gpuBeginNs[d] ?? null;
    const end = gpuEndNs[d] ?? null;
    if (begin === null || end === null) continue;
    earliest = Math.min(earliest, begin);
    lower[d] = earliest * TICKS_PER_NS;
    upper[d] = end * TICKS_PER_NS;
  }
  return { lower, upper };
}

/** Where placed rows are checked against their draws: the bounds (ticks before the origin moves) and the tolerance in ticks. */
export interface DrawCheck {
  readonly bounds: DrawBoundsTicks;
  readonly toleranceTicks: number;
  /** Stage codes (bit = code) checked against the capture start instead of their draw's begin (see binnedStagesOf). */
  readonly binnedStages: number;
}

/**
 * Stages whose warps may run before their draw's begin timestamp, by driver.
 * llvmpipe (lavapipe) runs the vertex pipeline when it bins a draw into a
 * scene, and writes timestamps when its rasterizer reaches them: a draw's
 * vertex, tessellation and geometry warps precede its begin timestamp (by
 * 225 µs in a renderheadless capture), though never the capture's start.
 * Inside a render pass a timestamp is the latest of the rasterizer threads'
 * last tiles reaching it: a draw's begin is taken when its last tile starts
 * (a 4.0 s draw read 0.49 s), so its fragment warps in the other tiles
 * precede it too. Outside one, a timestamp waits for the next flush, while
 * a dispatch runs at once: a one-workgroup busy-loop dispatch's compute warps
 * ran 4 ms before its begin timestamp. So on llvmpipe every stage is bounded
 * below by the capture start; a draw's end timestamp still follows all of
 * its warps.
 *
 * On every device a draw's pre-rasterization stages (vertex, tessellation,
 * geometry, task, mesh) may start before its TOP_OF_PIPE begin timestamp:
 * that timestamp is written when earlier work is done, and a dependency that
 * gates only later stages (a swapchain semaphore waited at
 * COLOR_ATTACHMENT_OUTPUT, a render pass's external dependency on fragment
 * tests) holds it back while the vertex work runs. Seen on the H200 with
 * SaschaWillems' examples presented offscreen: in every one, exactly the
 * pre-rasterization warps of the first draws (1-778 of them) lay 134-157 µs
 * before their draw's begin timestamp, every fragment warp inside its draw.
 * Those stages are bounded below by the capture start; fragment, compute and
 * ray-tracing warps keep their draw's begin, and every warp its draw's end.
 */
const PRE_RASTER_STAGES = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 6) | (1 << 7); // VS TCS TES GS TASK MESH

export function binnedStagesOf(driverName: string): number {
  return driverName === 'llvmpipe' ? (1 << STAGE_COUNT) - 1 : PRE_RASTER_STAGES;
}

/** The lower bound (ticks) of a warp of draw d and this stage: the draw's, or the capture start (0) for binned stages. */
export function lowerBoundOf(bounds: DrawBoundsTicks, d: number, stage: number, binnedStages: number): number {
  const lower = bounds.lower[d] as number;
  return (binnedStages >>> stage) & 1 && lower !== -Infinity ? Math.min(lower, 0) : lower;
}

/** The draws' bounds in memory the workers share (`allocate`), with the tolerance in ticks; null when no draw has timestamps. */
export function drawCheckOf(
  gpuBeginNs: readonly (number | null)[],
  gpuEndNs: readonly (number | null)[],
  allocate: Pick<ColumnAllocator, 'f64'>,
  toleranceNs: number = DRAW_BOUNDS_TOLERANCE_NS,
  binnedStages = 0,
): DrawCheck | null {
  const bounds = drawBoundsTicks(gpuBeginNs, gpuEndNs);
  if (bounds === null) return null;
  const share = (column: Float64Array) => {
    const out = allocate.f64(column.length);
    out.set(column);
    return out;
  };
  return { bounds: { lower: share(bounds.lower), upper: share(bounds.upper) }, toleranceTicks: toleranceNs * TICKS_PER_NS, binnedStages };
}

/** What a check over some rows found: [checked, outside, worst excess ticks, its draw] (segment-lines.ts tallies inline, the same way). */
export function newTally(): Float64Array {
  return Float64Array.of(0, 0, -Infinity, -1);
}

/**
 * Adds one warp (start and end in ticks since the origin) of draw d to the
 * tally. The worst excess keeps the lowest draw at a tie, so tallies of any
 * split of the rows merge to the same result.
 */
export function tallyWarp(
  bounds: DrawBoundsTicks,
  tally: Float64Array,
  d: number,
  startTicks: number,
  endTicks: number,
  toleranceTicks: number,
  stage = 0,
  binnedStages = 0,
): void {
  const lower = lowerBoundOf(bounds, d, stage, binnedStages);
  if (lower === -Infinity) return;
  const excess = Math.max(lower - startTicks, endTicks - (bounds.upper[d] as number));
  tally[0] = (tally[0] as number) + 1;
  if (excess > toleranceTicks) tally[1] = (tally[1] as number) + 1;
  if (excess > (tally[2] as number) || (excess === tally[2] && d < (tally[3] as number))) {
    tally[2] = excess;
    tally[3] = d;
  }
}

/** Merges `from` into `into` (order does not matter). */
export function mergeTally(into: Float64Array, from: Float64Array): void {
  into[0] = (into[0] as number) + (from[0] as number);
  into[1] = (into[1] as number) + (from[1] as number);
  if ((from[2] as number) > (into[2] as number) || (from[2] === into[2] && (from[3] as number) < (into[3] as number))) {
    into[2] = from[2] as number;
    into[3] = from[3] as number;
  }
}

/** The check's record from a tally. */
export function drawBoundsCheckOf(tally: Float64Array, toleranceNs: number = DRAW_BOUNDS_TOLERANCE_NS): DrawBoundsCheck {
  const checked = tally[0] as number;
  const worst = Math.max(0, tally[2] as number);
  return {
    toleranceNs,
    checked,
    outside: tally[1] as number,
    worstExcessNs: worst / TICKS_PER_NS,
    worstDraw: checked === 0 || worst === 0 ? null : (tally[3] as number),
  };
}

/**
 * The check over a trace's warps, for traces that do not carry it (files
 * written before the decoder made it); null when no draw has timestamps.
 */
export function drawBoundsOfTrace(trace: Trace): DrawBoundsCheck | null {
  const bounds = drawBoundsTicks(
    trace.draws.map((d) => d.gpuBeginNs),
    trace.draws.map((d) => d.gpuEndNs),
  );
  if (bounds === null) return null;
  const w = trace.warps;
  const tally = newTally();
  const tolerance = DRAW_BOUNDS_TOLERANCE_NS * TICKS_PER_NS;
  for (let i = 0; i < w.count; i++) {
    const start = (w.startNs[i] as number) * TICKS_PER_NS;
    tallyWarp(bounds, tally, w.draw[i] as number, start, start + (w.durationNs[i] as number) * TICKS_PER_NS, tolerance);
  }
  return drawBoundsCheckOf(tally);
}
