/**
 * Detector thresholds: every number that decides whether something is a
 * finding, with its default and why. The CLI takes `--threshold name=value`
 * and the summary records the values used, so a report is reproducible.
 */

export interface Thresholds {
  /** A gap between draws (GPU fully drained, no warp in flight) at least this long is a sync, ns. */
  readonly syncMinGapNs: number;
  /** A window inside an open draw with no warp in flight on any SM, at least this long, is an idle finding, ns. */
  readonly idleMinNs: number;
  /** Tails of at most this many warps count as leftover warps. */
  readonly leftoverMaxWarps: number;
  /** A leftover tail must last at least this long, ns. */
  readonly leftoverMinNs: number;
  /** ... and at least this share of the draw's span. */
  readonly leftoverMinShare: number;
  /** Draws with fewer warps than this are too small to have a "tail". */
  readonly leftoverMinDrawWarps: number;
  /** A stall candidate lasts at least this many times its stage's median warp. */
  readonly stallMinFactor: number;
  /** ... and at least this long, ns. */
  readonly stallMinWarpNs: number;
  /** Occupancy on the stage's SMs (all work) below this share of the stalled draw's own peak there counts as stalled. */
  readonly stallOccupancyShare: number;
  /** The stalled time during the warp must last at least this long, ns. */
  readonly stallMinNs: number;
  /** ... and cover at least this share of the warp's duration. */
  readonly stallMinShareOfWarp: number;
  /** A stage whose per-SM peak stays at or below this share of the SM's warp slots may be capped. */
  readonly capMaxShareOfSm: number;
  /** ... flagged when it spends at least this share of its active SM-time at that peak. */
  readonly capMinTimeAtPeak: number;
  /** ... and ran at least this many warps (a handful of warps says nothing about a cap). */
  readonly capMinWarps: number;
  /** At most this many findings of each kind are listed (the largest first); counts stay exact. */
  readonly maxFindingsPerKind: number;
  /** Finding groups costing less than this share of the frame are hidden by default (listed after the others). */
  readonly findingGroupMinShare: number;
}

export interface ThresholdDoc {
  readonly name: keyof Thresholds;
  readonly defaultValue: number;
  readonly unit: 'ns' | 'share' | 'count' | 'factor';
  readonly description: string;
}

/** The defaults, each with its reason: the single source for docs, CLI help and code. */
export const THRESHOLD_DOCS: readonly ThresholdDoc[] = [
  { name: 'syncMinGapNs', defaultValue: 1000, unit: 'ns', description: 'idle gap between draws that counts as a driver sync (a front-end restart costs a few µs; warps last 80 ns to a few µs)' },
  { name: 'idleMinNs', defaultValue: 1000, unit: 'ns', description: 'idle window inside an open draw (no warp in flight on any SM) reported as a finding; idle between draws is a sync' },
  { name: 'leftoverMaxWarps', defaultValue: 4, unit: 'count', description: 'at most this many warps still running make a leftover tail ("a handful")' },
  { name: 'leftoverMinNs', defaultValue: 1000, unit: 'ns', description: 'shortest leftover tail reported' },
  { name: 'leftoverMinShare', defaultValue: 0.1, unit: 'share', description: 'shortest leftover tail reported, as a share of the draw span' },
  { name: 'leftoverMinDrawWarps', defaultValue: 16, unit: 'count', description: 'draws with fewer warps are not checked for tails' },
  { name: 'stallMinFactor', defaultValue: 8, unit: 'factor', description: 'a stall warp lasts at least this many times its stage median' },
  { name: 'stallMinWarpNs', defaultValue: 1000, unit: 'ns', description: 'a stall warp lasts at least this long' },
  { name: 'stallOccupancyShare', defaultValue: 0.25, unit: 'share', description: 'occupancy on the stage\'s SMs (all work) below this share of the warp\'s own draw\'s peak there counts as stalled' },
  { name: 'stallMinNs', defaultValue: 1000, unit: 'ns', description: 'least stalled time during the warp' },
  { name: 'stallMinShareOfWarp', defaultValue: 0.25, unit: 'share', description: 'least stalled share of the warp\'s duration' },
  { name: 'capMaxShareOfSm', defaultValue: 0.5, unit: 'share', description: 'a per-SM peak at or below this share of the warp slots may be an occupancy cap' },
  { name: 'capMinTimeAtPeak', defaultValue: 0.2, unit: 'share', description: 'share of the stage\'s active SM-time spent exactly at its peak for a cap' },
  { name: 'capMinWarps', defaultValue: 256, unit: 'count', description: 'stages with fewer warps are not checked for caps' },
  { name: 'maxFindingsPerKind', defaultValue: 50, unit: 'count', description: 'findings listed per kind (largest first); totals stay exact' },
  { name: 'findingGroupMinShare', defaultValue: 0.005, unit: 'share', description: 'finding groups (repetitions of one kind and cause) costing less than this share of the frame are hidden by default' },
];

export const DEFAULT_THRESHOLDS: Thresholds = Object.freeze(
  Object.fromEntries(THRESHOLD_DOCS.map((d) => [d.name, d.defaultValue])) as unknown as Thresholds,
);

export class ThresholdError extends Error {
  override readonly name = 'ThresholdError';
}

/** Defaults overridden by `overrides`; rejects unknown names and out-of-range values. */
export function resolveThresholds(overrides: Partial<Record<string, number>> = {}): Thresholds {
  const out: Record<string, number> = { ...DEFAULT_THRESHOLDS };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const doc = THRESHOLD_DOCS.find((d) => d.name === name);
    if (doc === undefined) throw new ThresholdError(`unknown threshold "${name}" (known: ${THRESHOLD_DOCS.map((d) => d.name).join(', ')})`);
    if (!Number.isFinite(value) || value < 0) throw new ThresholdError(`threshold ${name}: expected a number ≥ 0, got ${value}`);
    if (doc.unit === 'share' && value > 1) throw new ThresholdError(`threshold ${name}: a share is at most 1, got ${value}`);
    if (doc.unit === 'count' && !Number.isInteger(value)) throw new ThresholdError(`threshold ${name}: expected an integer, got ${value}`);
    out[name] = value;
  }
  if (out['leftoverMaxWarps']! < 1) throw new ThresholdError('threshold leftoverMaxWarps: expected at least 1');
  if (out['leftoverMaxWarps']! > 64) throw new ThresholdError('threshold leftoverMaxWarps: at most 64');
  return out as unknown as Thresholds;
}

/** Parses `name=value` assignments (CLI `--threshold`). */
export function parseThresholdAssignments(assignments: readonly string[]): Thresholds {
  const overrides: Record<string, number> = {};
  for (const a of assignments) {
    const eq = a.indexOf('=');
    if (eq <= 0) throw new ThresholdError(`expected name=value, got "${a}"`);
    const name = a.slice(0, eq).trim();
    const text = a.slice(eq + 1).trim();
    const value = text === '' ? NaN : Number(text);
    if (!Number.isFinite(value)) throw new ThresholdError(`threshold ${name}: "${text}" is not a number`);
    overrides[name] = value;
  }
  return resolveThresholds(overrides);
}

/** The thresholds of `t` that differ from their defaults, in THRESHOLD_DOCS order. */
export function changedThresholds(t: Partial<Thresholds>): { readonly name: keyof Thresholds; readonly value: number; readonly defaultValue: number }[] {
  return THRESHOLD_DOCS.flatMap((d) => {
    const value = t[d.name];
    return value !== undefined && value !== d.defaultValue ? [{ name: d.name, value, defaultValue: d.defaultValue }] : [];
  });
}
