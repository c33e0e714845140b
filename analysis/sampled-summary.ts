/**
 * A sampled trace's summary (issue 25): analyzeTrace measures the recorded
 * warps, then this turns the result into what it says about the whole frame.
 * Counts and summed times of sampled stages are scaled (estimates, with their
 * standard errors in `summary.sampling.stages`); what needs every warp is
 * withheld: nullable figures become null, detectors built on gaps or warps in
 * flight report nothing, and `summary.sampling.withheld` says why. No finding
 * may come from a warp that was simply not recorded.
 */
import type { Trace } from '../shared-schema/model.js';
import { describeSampling, sampleEveryOf } from '../shared-schema/sampling.js';
import { STAGES, type StageName } from '../shared-schema/stages.js';
import { groupFindings } from './finding-groups.js';
import { summarizeReorders } from './reorder.js';
import type { PassCost, PassSection } from './passes.js';
import { estimateStages, sampledStagesText, type SamplingSection, type Withheld } from './sampled.js';
import type { AnalysisSummary, DrawStageSummary, DrawSummary, DurationStats, SmSummary, StageSummary } from './summary.js';

/** The summary of `trace` as estimates for the whole frame; the summary itself when the trace is not sampled. */
export function sampledSummary(summary: AnalysisSummary, trace: Trace): AnalysisSummary {
  const sampling = trace.capture.sampling;
  if (sampling === null) return summary;
  const every = (stage: StageName) => sampleEveryOf(sampling, stage);
  const why = sampledStagesText(sampling.every);
  const stages = summary.stages.map((s) => scaledStage(s, every(s.stage)));
  const draws = summary.draws.map((d) => scaledDraw(d, every));
  const frameWarpTime = stages.reduce((sum, s) => sum + s.totalNs, 0);
  const sampledCaps = summary.occupancyCaps.filter((c) => every(c.stage) > 1);
  const findings = summary.findings.filter((f) => f.kind === 'occupancy-cap' && f.stage !== null && every(f.stage) === 1);
  const section: SamplingSection = {
    every: { ...sampling.every },
    chosenBy: sampling.chosenBy,
    budget: sampling.budget,
    description: describeSampling(sampling),
    stages: estimateStages(summary.stages.map((s) => ({ stage: s.stage, every: every(s.stage), warps: s.warps, totalNs: s.totalNs, meanNs: s.meanNs, stddevNs: s.stddevNs }))),
    withheld: [...withheldFigures(why, summary, sampledCaps.length), ...reformedNote(trace, every)],
  };
  const out: AnalysisSummary = {
    ...summary,
    frame: { ...summary.frame, warpTimeNs: frameWarpTime },
    stages,
    draws,
    sms: scaledSms(summary.sms, trace, every),
    syncs: { count: 0, totalNs: 0, shareOfFrame: 0, gaps: [], reliable: summary.syncs.reliable },
    idle: { count: 0, totalNs: 0, shareOfFrame: 0, windows: [], reliable: summary.idle.reliable },
    leftovers: { count: 0, totalNs: 0, items: [] },
    stalls: { count: 0, totalNs: 0, candidates: 0, items: [] },
    occupancyCaps: summary.occupancyCaps.filter((c) => every(c.stage) === 1),
    findings,
    findingGroups: groupFindings(findings, { minShare: summary.thresholds.findingGroupMinShare }),
    sampling: section,
  };
  return summary.passes === undefined ? out : { ...out, passes: scaledPasses(summary.passes, frameWarpTime, every) };
}

function withheldFigures(why: string, summary: AnalysisSummary, sampledCaps: number): Withheld[] {
  const gaps = `${why}: a gap between recorded warps may be unrecorded warps' time`;
  const inFlight = `${why}: warps in flight at once need every warp`;
  const out: Withheld[] = [
    { what: 'syncs', why: `${gaps}, so syncs between draws need every warp` },
    { what: 'idle', why: `${gaps}, so idle time needs every warp` },
    { what: 'leftovers', why: `${why}: a tail of a few warps may be an unrecorded warp's neighbours` },
    { what: 'stalls', why: `${inFlight} (a stall is low occupancy during a long warp)` },
    { what: 'occupancy', why: `${inFlight}: per-SM peaks and levels of sampled stages, each draw's occupancy` },
    { what: 'overlap', why: `${gaps}: draws' overlap, hidden share, gap before and idle time` },
    { what: 'busy', why: `${gaps}: the frame's and the passes' busy time, each SM's busy time and warps in flight` },
  ];
  if (sampledCaps > 0) out.push({ what: 'occupancy-caps', why: `${inFlight}: ${sampledCaps} occupancy cap(s) of sampled stages not reported` });
  if (summary.phases !== undefined) out.push({ what: 'phases', why: `${why}: phase warps and occurrences count recorded warps only` });
  if (summary.blocks !== undefined) out.push({ what: 'blocks', why: `${why}: block executions and ticks count recorded warps only` });
  if (summary.rays !== undefined) out.push({ what: 'rays', why: `${why}: ray event totals count recorded warps only` });
  return out;
}

/**
 * Ray generation after a reorder point is sampled at ray generation's rate (sampleEveryOf): its warp decided once,
 * before the point. That holds its estimates up only where the warps kept their lanes across the point (the H200:
 * its driver reorders nothing). Where the device re-formed them, a record after the point holds the picked lanes of
 * the warp they joined, next to lanes that were not picked, and its count and time estimate nothing: said here.
 */
function reformedNote(trace: Trace, every: (stage: StageName) => number): Withheld[] {
  if (every('RAYGEN_REORDERED') === 1 || !summarizeReorders(trace).some((d) => d.verdict === 're-formed')) return [];
  return [{ what: 'reordered ray generation', why: "the device re-formed warps at the reorder point and each one decided before it: a record after the point holds only its warp's picked lanes, so RGen↻ counts and times are not estimates of the warps after the point" }];
}

function scaledStats<T extends DurationStats>(s: T, every: number): T {
  if (every === 1) return s;
  return { ...s, warps: s.warps * every, totalNs: s.totalNs * every, histogram: { ...s.histogram, counts: s.histogram.counts.map((c) => c * every) } };
}

function scaledStage(s: StageSummary, every: number): StageSummary {
  if (every === 1) return s;
  const o = s.occupancy;
  return {
    ...scaledStats(s, every),
    activeLaneCounts: s.activeLaneCounts.map((c) => c * every),
    // Warp-time over the stage's span scales like the warp-time; peaks and levels need every warp.
    occupancy: {
      ...o,
      perSm: null,
      peakShareOfSm: null,
      unknownSm: null,
      deviceMeanInFlight: o.deviceMeanInFlight * every,
      deviceMeanShareOfCapacity: o.deviceMeanShareOfCapacity === null ? null : o.deviceMeanShareOfCapacity * every,
    },
  };
}

function scaledDraw(d: DrawSummary, every: (stage: StageName) => number): DrawSummary {
  const stages: DrawStageSummary[] = d.stages.map((s) => (every(s.stage) === 1 ? s : { ...scaledStats(s, every(s.stage)), occupancy: null }));
  // Overlap, gaps and idle time compare this draw's warps with every other draw's: none of them stands in a sampled trace.
  return {
    ...d,
    warps: stages.reduce((sum, s) => sum + s.warps, 0),
    warpTimeNs: stages.reduce((sum, s) => sum + s.totalNs, 0),
    overlapNs: null,
    exclusiveNs: null,
    hiddenShare: null,
    gapBeforeNs: null,
    idleNs: null,
    stages,
  };
}

/** Each SM's warps and warp-time with every warp weighted by its stage's rate (busy time and peaks are withheld). */
function scaledSms(sms: readonly SmSummary[], trace: Trace, every: (stage: StageName) => number): SmSummary[] {
  const rate = STAGES.map((s) => every(s.name));
  const { stage, durationNs, smGroups } = trace.warps;
  const bySm = new Map<number, { warps: number; time: number }>();
  for (let g = 0; g < smGroups.sm.length; g++) {
    let warps = 0;
    let time = 0;
    for (let i = smGroups.offsets[g]!; i < smGroups.offsets[g + 1]!; i++) {
      const n = rate[stage[i]!] ?? 1;
      warps += n;
      time += n * durationNs[i]!;
    }
    bySm.set(smGroups.sm[g]!, { warps, time });
  }
  return sms.map((s) => {
    const scaled = bySm.get(s.sm);
    return scaled === undefined ? s : { ...s, warps: scaled.warps, warpTimeNs: scaled.time };
  });
}

function scaledPasses(section: PassSection, frameWarpTime: number, every: (stage: StageName) => number): PassSection {
  const scale = <T extends PassCost>(p: T): T => {
    const stageWarpTimeNs: Partial<Record<StageName, number>> = {};
    let warpTimeNs = 0;
    for (const [stage, ns] of Object.entries(p.stageWarpTimeNs) as [StageName, number][]) {
      stageWarpTimeNs[stage] = ns * every(stage);
      warpTimeNs += ns * every(stage);
    }
    return { ...p, busyNs: null, shareOfFrame: null, warpTimeNs, stageWarpTimeNs, shareOfWarpTime: frameWarpTime > 0 ? warpTimeNs / frameWarpTime : 0 };
  };
  return { ...section, frameWarpTimeNs: frameWarpTime, passes: section.passes.map(scale), outside: scale(section.outside) };
}
