/**
 * An A/B comparison where A or B is a sampled trace (issue 25). A sampled
 * summary's counts and warp-times of sampled stages are estimates, and what
 * needs every warp is withheld (analysis/sampled-summary.ts): its syncs,
 * idle, leftovers and stalls read 0 and its busy times are those of the
 * recorded warps only. Compared as they are, a full A and a sampled B would
 * show every sync "gone". So the diff says how each side was sampled (a
 * warning naming the rates, first of the warnings), leaves the sampled
 * side's withheld figures null (no change is reported), and tells the
 * reports which figures are estimates (marked ≈).
 */
import { describeRates } from '../shared-schema/sampling.js';
import type { StageName } from '../shared-schema/stages.js';
import type { Withheld } from './sampled.js';
import type { AnalysisSummary } from './summary.js';

/** The figures of a diff that a sampled side withholds (the summary's `withheld` names), as the warning names them. */
const DIFF_WITHHELD: Readonly<Record<string, string>> = {
  syncs: 'syncs',
  idle: 'idle windows',
  leftovers: 'leftovers',
  stalls: 'stalls',
  busy: 'busy time',
  overlap: "draws' overlap",
  occupancy: 'peaks on one SM',
};

/** How A and B were sampled; in a diff only when one of them was. */
export interface DiffSampling {
  /** One warp in every[stage] recorded ({}: every warp, a full trace). */
  readonly a: Partial<Record<StageName, number>>;
  readonly b: Partial<Record<StageName, number>>;
  /** For people: the summaries' descriptions ("FS 1 in 8, other stages all (chosen by --sample)"), "all warps" for a full trace. */
  readonly describeA: string;
  readonly describeB: string;
  /** What the comparison leaves out, and why (from the sampled side's summary). */
  readonly withheld: Withheld[];
}

export function diffSampling(a: AnalysisSummary, b: AnalysisSummary): DiffSampling | undefined {
  if (a.sampling === undefined && b.sampling === undefined) return undefined;
  const withheld = new Map<string, Withheld>();
  for (const w of [...(a.sampling?.withheld ?? []), ...(b.sampling?.withheld ?? [])]) {
    if (DIFF_WITHHELD[w.what] !== undefined && !withheld.has(w.what)) withheld.set(w.what, w);
  }
  return {
    a: { ...a.sampling?.every },
    b: { ...b.sampling?.every },
    describeA: a.sampling?.description ?? 'all warps',
    describeB: b.sampling?.description ?? 'all warps',
    withheld: [...withheld.values()],
  };
}

/** "Sampled comparison: A FS 1 in 8 (…), B all warps. …": the first warning of such a diff. */
export function samplingWarning(s: DiffSampling): string {
  const side = (every: Partial<Record<StageName, number>>) => (Object.keys(every).length === 0 ? 'all warps (full trace)' : describeRates(every));
  const same = side(s.a) === side(s.b);
  const rates = same ? `A and B both ${side(s.a)}` : `A ${side(s.a)}, B ${side(s.b)}`;
  const names = Object.keys(DIFF_WITHHELD)
    .filter((what) => s.withheld.some((w) => w.what === what))
    .map((what) => DIFF_WITHHELD[what]!);
  const what = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}` : (names[0] ?? 'nothing');
  return `Sampled comparison: ${rates}. ≈ marks estimates; ${what} need every warp: withheld on the sampled side, not compared.`;
}

/** Whether a side recorded only some warps of any of `stages` (all its stages when null): its figures of them are estimates. */
export function isEstimated(s: DiffSampling | undefined, side: 'a' | 'b', stages: readonly string[] | null = null): boolean {
  if (s === undefined) return false;
  const every = s[side];
  const sampled = Object.keys(every);
  return stages === null ? sampled.length > 0 : stages.some((stage) => sampled.includes(stage));
}

/** The summary's figure, or null where the summary withholds it (a sampled trace's zeros and partial busy times are no measurement). */
export function unlessWithheld<T>(s: AnalysisSummary, value: T): T | null {
  return s.sampling === undefined ? value : null;
}

/**
 * A side's figure as the reports write it: "≈ " before an estimate (a sampled
 * side's figure of a sampled stage; `stages` null: of the whole side),
 * "withheld" for a figure the sampled side cannot give; as before otherwise.
 */
export function sideText(s: DiffSampling | undefined, side: 'a' | 'b', value: number | null, format: (v: number | null) => string, stages: readonly string[] | null, withheld = false): string {
  if (!isEstimated(s, side, stages)) return format(value);
  if (withheld) return value === null ? 'withheld' : format(value);
  return `≈ ${format(value)}`;
}
