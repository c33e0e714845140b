/**
 * A/B comparison of two analysis summaries: per-stage and per-draw deltas,
 * and a few plain-text highlights (the 2016 Stirling comparison: "15% longer
 * TCS warp duration ... but the net draw time is shorter"). Works on
 * summaries, not traces, so a stored summary can be compared with a new one.
 */
import { formatChange, formatNs } from './format.js';
import { MATCH_HOWS, matchDraws, summaryDrawIdentities, type DrawIdentity, type MatchConfidence, type MatchHow } from './draw-match.js';
import { changedDraws, changeText, drawStageSes, drawTotalSes, EXACT, everyOf, frameWarpTimeSe, isFinding, noiseWarning, noisyDuration, shareSe, spanSe, stageSes, withNoise, type DeltaNoise } from './diff-noise.js';
import { diffSampling, isEstimated, samplingWarning, unlessWithheld, type DiffSampling } from './diff-sampling.js';
import type { AnalysisSummary, DrawStageSummary, DrawSummary, DurationStats, StageSummary } from './summary.js';

export const DIFF_SCHEMA = 'warptrace-diff';
export const DIFF_VERSION = 4;

/** A value in A and B; delta = b − a; relative = delta / a (null when a is 0 or either is missing). */
export interface Delta {
  readonly a: number | null;
  readonly b: number | null;
  readonly delta: number | null;
  readonly relative: number | null;
  /**
   * Only when A's or B's figure is an estimate (a sampled trace) and the change
   * exists: its combined standard error and whether it is beyond sampling
   * noise (diff-noise.ts). A change within the noise is no finding.
   */
  readonly noise?: DeltaNoise;
}

export interface DurationDiff {
  readonly warps: Delta;
  readonly totalNs: Delta;
  readonly meanNs: Delta;
  readonly medianNs: Delta;
  readonly p90Ns: Delta;
  readonly p99Ns: Delta;
  readonly maxNs: Delta;
  readonly meanActiveLanes: Delta;
  /** Most warps of this stage in flight at once on one SM. */
  readonly peakPerSm: Delta;
}

export interface StageDiff extends DurationDiff {
  readonly stage: string;
  /** The stage's share of the frame's warp-time (0..1); an estimate on a sampled side whichever stage it is. */
  readonly shareOfWarpTime: Delta;
}

export interface DrawStageDiff extends DurationDiff {
  readonly stage: string;
}

export interface DrawDiff {
  /** B's index of the draw, or A's for a draw only in A. */
  readonly index: number;
  readonly indexA: number | null;
  readonly indexB: number | null;
  /** How A's and B's draw were paired (draw-match.ts); null for a draw in one trace only. */
  readonly matchedBy: MatchHow | null;
  /** How sure the pair is: weak pairs never lead the highlights; null for a draw in one trace only. */
  readonly confidence: MatchConfidence | null;
  readonly labelA: string | null;
  readonly labelB: string | null;
  readonly warps: Delta;
  readonly spanNs: Delta;
  readonly warpTimeNs: Delta;
  readonly overlapNs: Delta;
  readonly stages: DrawStageDiff[];
}

export interface SummaryDiff {
  readonly schema: typeof DIFF_SCHEMA;
  readonly schemaVersion: typeof DIFF_VERSION;
  readonly a: { readonly workload: string; readonly device: string; readonly warps: number };
  readonly b: { readonly workload: string; readonly device: string; readonly warps: number };
  readonly frame: { readonly spanNs: Delta; readonly warpTimeNs: Delta; readonly drawBusyNs: Delta; readonly gpuBusyNs: Delta };
  readonly syncs: { readonly count: Delta; readonly totalNs: Delta };
  /** Idle windows inside draws (at or above idleMinNs). */
  readonly idle: { readonly count: Delta; readonly totalNs: Delta };
  readonly leftovers: { readonly count: Delta; readonly totalNs: Delta };
  readonly stalls: { readonly count: Delta; readonly totalNs: Delta };
  readonly stages: StageDiff[];
  /** Draws in B order (each paired with its A draw, if any), then the draws only in A. */
  readonly draws: DrawDiff[];
  /** How draws were paired: pairs per way of matching, strong and weak pairs, and the draws of one trace only. */
  readonly matching: {
    readonly counts: Readonly<Record<MatchHow, number>>;
    readonly strong: number;
    readonly weak: number;
    readonly onlyA: readonly number[];
    readonly onlyB: readonly number[];
  };
  /** The largest changes, one plain-text sentence each: draws of strong pairs first, weak pairs last and marked. */
  readonly highlights: string[];
  /** Plain-text caveats (a sampled side first, different devices, draw labels that do not match, unaligned clocks). */
  readonly warnings: string[];
  /**
   * Present only when A or B is a sampled trace: the rates of each, and what is
   * withheld (those figures of the sampled side are null, so no change is
   * reported); isEstimated (diff-sampling.ts) says which figures are estimates.
   */
  readonly sampling?: DiffSampling;
}

export function delta(a: number | null | undefined, b: number | null | undefined): Delta {
  const av = a ?? null;
  const bv = b ?? null;
  const d = av !== null && bv !== null ? bv - av : null;
  return { a: av, b: bv, delta: d, relative: d !== null && av !== null && av !== 0 ? d / av : null };
}

function durationDiff(a: (DurationStats & { peak: number | null }) | null, b: (DurationStats & { peak: number | null }) | null): DurationDiff {
  return {
    warps: delta(a?.warps, b?.warps),
    totalNs: delta(a?.totalNs, b?.totalNs),
    meanNs: delta(a?.meanNs, b?.meanNs),
    medianNs: delta(a?.medianNs, b?.medianNs),
    p90Ns: delta(a?.p90Ns, b?.p90Ns),
    p99Ns: delta(a?.p99Ns, b?.p99Ns),
    maxNs: delta(a?.maxNs, b?.maxNs),
    meanActiveLanes: delta(a?.meanActiveLanes, b?.meanActiveLanes),
    peakPerSm: delta(a?.peak, b?.peak),
  };
}

const withPeak = (s: StageSummary | undefined) => (s ? { ...s, peak: s.occupancy.perSm?.peak ?? s.occupancy.unknownSm?.peak ?? null } : null);
const withKeyPeak = (s: DrawStageSummary | undefined) => (s ? { ...s, peak: s.occupancy?.peak ?? null } : null);

function stageNames(a: readonly { stage: string; stageCode: number }[], b: readonly { stage: string; stageCode: number }[]): string[] {
  const codes = new Map<string, number>();
  for (const s of [...a, ...b]) codes.set(s.stage, s.stageCode);
  return [...codes].sort((x, y) => x[1] - y[1]).map(([name]) => name);
}

/**
 * @param identities what names each draw of A and B (drawIdentities(trace): label,
 * pass, pipeline); without them, draws are matched by kind and label, then index.
 */
export function diffSummaries(a: AnalysisSummary, b: AnalysisSummary, identities?: { readonly a: readonly DrawIdentity[]; readonly b: readonly DrawIdentity[] }): SummaryDiff {
  const stages: StageDiff[] = stageNames(a.stages, b.stages).map((stage) => {
    const sa = a.stages.find((s) => s.stage === stage);
    const sb = b.stages.find((s) => s.stage === stage);
    return {
      stage,
      ...noisyDuration(durationDiff(withPeak(sa), withPeak(sb)), stageSes(a, stage), stageSes(b, stage)),
      shareOfWarpTime: withNoise(delta(shareOf(a, sa), shareOf(b, sb)), shareSe(a, stage), shareSe(b, stage)),
    };
  });
  const matching = matchDraws(identities?.a ?? summaryDrawIdentities(a.draws), identities?.b ?? summaryDrawIdentities(b.draws));
  const draws: DrawDiff[] = [];
  for (let j = 0; j < b.draws.length; j++) {
    const i = matching.aOfB[j]!;
    const pairing = i < 0 ? null : { how: MATCH_HOWS[matching.howOfB[j]!]!, confidence: matching.strongOfB[j] === 1 ? ('strong' as const) : ('weak' as const) };
    draws.push(drawDiff(a, b, i < 0 ? undefined : a.draws[i], b.draws[j], pairing));
  }
  for (const i of matching.onlyA) draws.push(drawDiff(a, b, a.draws[i], undefined, null));
  const sampling = diffSampling(a, b);
  const warnings: string[] = sampling === undefined ? [] : [samplingWarning(sampling), noiseWarning()];
  if (a.trace.device !== b.trace.device) warnings.push(`Different devices: "${a.trace.device}" vs "${b.trace.device}".`);
  const note = matchingNote(matching.counts, matching.weak, matching.onlyA.length, matching.onlyB.length);
  if (note !== null) warnings.push(note);
  for (const [name, s] of [['A', a], ['B', b]] as const) {
    if (!s.reliability.crossSmReliable) warnings.push(`${name}: SM clocks are not aligned; cross-SM numbers (spans, overlap, syncs) are unreliable.`);
  }
  const diff: Omit<SummaryDiff, 'highlights'> = {
    schema: DIFF_SCHEMA,
    schemaVersion: DIFF_VERSION,
    a: { workload: a.trace.workload, device: a.trace.device, warps: a.trace.warps },
    b: { workload: b.trace.workload, device: b.trace.device, warps: b.trace.warps },
    frame: {
      spanNs: withNoise(delta(a.frame.spanNs, b.frame.spanNs), spanSe(a.sampling !== undefined), spanSe(b.sampling !== undefined)),
      warpTimeNs: withNoise(delta(a.frame.warpTimeNs, b.frame.warpTimeNs), frameWarpTimeSe(a), frameWarpTimeSe(b)),
      drawBusyNs: delta(unlessWithheld(a, a.frame.drawBusyNs), unlessWithheld(b, b.frame.drawBusyNs)),
      gpuBusyNs: delta(unlessWithheld(a, a.frame.gpuBusyNs), unlessWithheld(b, b.frame.gpuBusyNs)),
    },
    syncs: countAndTime(a, b, (s) => s.syncs),
    idle: countAndTime(a, b, (s) => s.idle),
    leftovers: countAndTime(a, b, (s) => s.leftovers),
    stalls: countAndTime(a, b, (s) => s.stalls),
    stages,
    draws,
    matching: { counts: matching.counts, strong: matching.strong, weak: matching.weak, onlyA: matching.onlyA, onlyB: matching.onlyB },
    warnings,
    ...(sampling === undefined ? {} : { sampling }),
  };
  return { ...diff, highlights: highlights(diff) };
}

/** A detector's count and time; null on a sampled side, which withholds them (its zeros are no measurement). */
function countAndTime(a: AnalysisSummary, b: AnalysisSummary, of: (s: AnalysisSummary) => { count: number; totalNs: number }): { count: Delta; totalNs: Delta } {
  return {
    count: delta(unlessWithheld(a, of(a).count), unlessWithheld(b, of(b).count)),
    totalNs: delta(unlessWithheld(a, of(a).totalNs), unlessWithheld(b, of(b).totalNs)),
  };
}

/** A stage's share of its frame's warp-time. */
function shareOf(s: AnalysisSummary, stage: StageSummary | undefined): number | null {
  return stage === undefined || s.frame.warpTimeNs <= 0 ? null : stage.totalNs / s.frame.warpTimeNs;
}

/** A pair of draws (or a draw of one trace); a sampled side's estimates carry their noise (diff-noise.ts). */
function drawDiff(
  a: AnalysisSummary,
  b: AnalysisSummary,
  da: DrawSummary | undefined,
  db: DrawSummary | undefined,
  pairing: { how: MatchHow; confidence: MatchConfidence } | null,
): DrawDiff {
  const stages = stageNames(da?.stages ?? [], db?.stages ?? []);
  const totalsA = drawTotalSes(a, da, stages);
  const totalsB = drawTotalSes(b, db, stages);
  const spanEstimated = (s: AnalysisSummary) => stages.some((stage) => everyOf(s, stage) > 1);
  return {
    index: db?.index ?? da!.index,
    indexA: da?.index ?? null,
    indexB: db?.index ?? null,
    matchedBy: pairing?.how ?? null,
    confidence: pairing?.confidence ?? null,
    labelA: da?.label ?? null,
    labelB: db?.label ?? null,
    warps: withNoise(delta(da?.warps, db?.warps), totalsA.warps, totalsB.warps),
    spanNs: withNoise(delta(da?.spanNs, db?.spanNs), spanSe(spanEstimated(a)), spanSe(spanEstimated(b))),
    warpTimeNs: withNoise(delta(da?.warpTimeNs, db?.warpTimeNs), totalsA.warpTimeNs, totalsB.warpTimeNs),
    overlapNs: delta(da?.overlapNs, db?.overlapNs),
    stages: stages.map((stage) => {
      const sa = da?.stages.find((s) => s.stage === stage);
      const sb = db?.stages.find((s) => s.stage === stage);
      return { stage, ...noisyDuration(durationDiff(withKeyPeak(sa), withKeyPeak(sb)), sa === undefined ? EXACT : drawStageSes(a, sa), sb === undefined ? EXACT : drawStageSes(b, sb)) };
    }),
  };
}

const HOW_TEXT: Record<MatchHow, string> = {
  'label-pass': 'by label and pass',
  order: 'by pass and order',
  label: 'by label',
  pipeline: 'by pipeline',
  index: 'by index only',
};

/** A caveat when draws were not all paired by label and pass: how they were, how many pairs are weak, how many draws are in one trace only. */
function matchingNote(counts: Readonly<Record<MatchHow, number>>, weak: number, onlyA: number, onlyB: number): string | null {
  const paired = MATCH_HOWS.reduce((n, how) => n + counts[how], 0);
  if (counts['label-pass'] === paired && weak === 0 && onlyA === 0 && onlyB === 0) return null;
  const parts = MATCH_HOWS.filter((how) => counts[how] > 0).map((how) => `${counts[how]} ${HOW_TEXT[how]}`);
  const rest = [
    weak > 0 ? `${weak} of the pairs weak (kept out of the highlights' lead)` : '',
    onlyA > 0 ? `${onlyA} only in A` : '',
    onlyB > 0 ? `${onlyB} only in B` : '',
  ].filter((x) => x !== '');
  return `Draws matched: ${parts.length > 0 ? parts.join(', ') : 'none'}${rest.length > 0 ? `; ${rest.join('; ')}` : ''}.`;
}

/** Relative changes below this are not highlighted. */
const NOTABLE = 0.05;
/** Draws of strong pairs highlighted, and of weak pairs (after everything else, marked). */
const STRONG_DRAW_LINES = 4;
const WEAK_DRAW_LINES = 2;

function highlights(d: Omit<SummaryDiff, 'highlights'>): string[] {
  const out: string[] = [];
  // A figure of a sampled side is an estimate (a span: of the recorded warps): "≈" before it, and before the change with its ±.
  const change = (x: Delta, what: string, stages: readonly string[] | null = null, unit: (v: number) => string = formatNs) => {
    const a = isEstimated(d.sampling, 'a', stages) ? '≈ ' : '';
    const b = isEstimated(d.sampling, 'b', stages) ? '≈ ' : '';
    const untested = x.noise?.verdict === 'untested' ? '; not tested for sampling noise' : '';
    return `${what} ${changeText({ ...x, noise: x.noise?.verdict === 'untested' ? undefined : x.noise }, a !== '' || b !== '')} (${a}${unit(x.a!)} → ${b}${unit(x.b!)}${untested})`;
  };
  // A sampled side's frame span is that of its recorded warps, without a standard error: no finding.
  if (d.frame.spanNs.relative !== null && d.frame.spanNs.noise === undefined) out.push(change(d.frame.spanNs, 'Frame span'));
  // Only findings: a change of an estimate within its sampling noise (or without a standard error) is none.
  const notableStages = d.stages
    .filter((s) => s.meanNs.relative !== null && Math.abs(s.meanNs.relative) >= NOTABLE && isFinding(s.meanNs))
    .sort((x, y) => Math.abs(y.meanNs.relative!) - Math.abs(x.meanNs.relative!));
  for (const s of notableStages.slice(0, 4)) out.push(change(s.meanNs, `${s.stage} mean warp duration`, [s.stage]));
  const notableDraws = changedDraws(d.draws, NOTABLE);
  const drawLine = ({ draw: x, figure, change: c }: (typeof notableDraws)[number]) => {
    const label = x.labelB && x.labelB !== `draw ${x.index}` ? ` "${x.labelB}"` : '';
    return change(c, `Draw ${x.index}${label} ${figure}`, x.stages.map((st) => st.stage));
  };
  for (const x of notableDraws.filter((x) => x.draw.confidence === 'strong').slice(0, STRONG_DRAW_LINES)) out.push(drawLine(x));
  if (d.syncs.totalNs.delta !== null && d.syncs.totalNs.delta !== 0) {
    out.push(`Time lost to syncs ${formatNs(d.syncs.totalNs.a)} → ${formatNs(d.syncs.totalNs.b)} (${d.syncs.count.a} → ${d.syncs.count.b} gaps)`);
  }
  if (d.idle.totalNs.delta !== null && d.idle.totalNs.delta !== 0) {
    out.push(`SMs idle inside draws ${formatNs(d.idle.totalNs.a)} → ${formatNs(d.idle.totalNs.b)} (${d.idle.count.a} → ${d.idle.count.b} windows)`);
  }
  if (d.stalls.totalNs.delta !== null && d.stalls.totalNs.delta !== 0) {
    out.push(`Stalled time ${formatNs(d.stalls.totalNs.a)} → ${formatNs(d.stalls.totalNs.b)}`);
  }
  for (const c of notableDraws.filter((x) => x.draw.confidence === 'weak').slice(0, WEAK_DRAW_LINES)) {
    const x = c.draw;
    out.push(`Weak pair, check it: ${drawLine(c)}, A's draw ${x.indexA}${x.labelA !== null && x.labelA !== x.labelB ? ` "${x.labelA}"` : ''} paired ${HOW_TEXT[x.matchedBy!]}`);
  }
  return out;
}
