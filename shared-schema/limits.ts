/**
 * The value ranges of a Trace: what buildTrace (and so JSON import) accepts,
 * what every writer can store and what the readers accept, in one place so
 * the three cannot drift apart. A file a writer produced always reads back.
 */
import { fail } from './errors.js';
import { TICKS_PER_NS } from './model.js';

/**
 * Latest start or end a warp may have: 2^48 − 1 ns (about 3.3 days). In
 * .wtrace the first start of each SM group is a zigzag varint of its ticks
 * (2 × ticks), which must stay within the 53 bits a float64 holds exactly.
 */
export const MAX_TIME_NS = 2 ** 48 - 1;
export const MAX_TIME_TICKS = MAX_TIME_NS * TICKS_PER_NS;

/**
 * Largest smCycleStart (cycles after its SM's first warp): 2^50, about 6.5
 * days at 2 GHz. With MAX_PREDICTOR_CYCLES_PER_NS, every residual the
 * .wtrace cycle columns store stays below 2^52, within a zigzag varint.
 */
export const MAX_CYCLE_START = 2 ** 50;

/**
 * Fastest SM clock the .wtrace cycle columns are predicted with (cycles per
 * ns); a faster (implausible) calibrated rate predicts with 1 instead. The
 * rate is only a compression aid: any value decodes to the same cycles.
 */
export const MAX_PREDICTOR_CYCLES_PER_NS = 8;

/**
 * Duration ticks as the model stores them: durationNs is a float32, which
 * rounds durations of 2^24 ticks (1 ms) or more, sometimes up. Ends are
 * checked against MAX_TIME_TICKS with this, the duration a reader sees.
 */
export function storedDurationTicks(durationTicks: number): number {
  return Math.fround(durationTicks / TICKS_PER_NS) * TICKS_PER_NS;
}

/**
 * Throws when a row's times (ticks) or SM-cycle start are outside what a
 * reader accepts, naming warps.<column>[row] (or the column alone when
 * `row` is null). For writers of rows that did not come through buildTrace.
 */
export function checkStoredRow(startTicks: number, durationTicks: number, cycleStart: number, row: number | null): void {
  const at = row === null ? '' : `[${row}]`;
  if (!(startTicks >= 0 && startTicks <= MAX_TIME_TICKS)) {
    fail('bad-value', `warps.startNs${at}`, `${startTicks / TICKS_PER_NS} ns is outside the times a trace holds (0 to ${MAX_TIME_NS} ns)`);
  }
  if (!(durationTicks >= 0)) fail('bad-value', `warps.durationNs${at}`, `a duration of ${durationTicks / TICKS_PER_NS} ns; a warp ends at or after its start`);
  if (!(startTicks + storedDurationTicks(durationTicks) <= MAX_TIME_TICKS)) {
    fail('bad-value', `warps.endNs${at}`, `a warp starting at ${startTicks / TICKS_PER_NS} ns ends after ${MAX_TIME_NS} ns, the latest time a trace holds`);
  }
  if (!(cycleStart >= 0 && cycleStart <= MAX_CYCLE_START)) {
    fail('bad-value', `warps.smCycleStart${at}`, `${cycleStart} cycles after its SM's first warp; 0 to ${MAX_CYCLE_START} are stored`);
  }
}
