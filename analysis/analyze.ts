/**
 * analyzeTrace: every analysis over one trace, assembled into the versioned
 * summary. Pure (no DOM, no Node APIs), O(n log n) in the warp count.
 */
import { UNKNOWN_SM, type Trace } from '../shared-schema/model.js';
import { STAGE_COUNT, stageInfo, type StageName } from '../shared-schema/stages.js';
import { drawOverlap, type DrawSpans } from './draw-overlap.js';
import { drawStageKeys } from './draw-stage-keys.js';
import { durationStats } from './duration-stats.js';
import { buildFindings } from './findings.js';
import { groupFindings } from './finding-groups.js';
import { findGpuIdle } from './gpu-idle.js';
import { findLeftovers } from './leftovers.js';
import { findOccupancyCaps } from './occupancy-caps.js';
import { reliabilityOf, standsAcrossSms } from './reliability.js';
import { findStalls, groupStalls } from './stalls.js';
import {
  SUMMARY_SCHEMA,
  SUMMARY_VERSION,
  type AnalysisSummary,
  type DrawStageSummary,
  type DrawSummary,
  type SmSummary,
  type StageSummary,
} from './summary.js';
import { findSyncs } from './syncs.js';
import { untracedSpansOf } from './untraced-spans.js';
import { sweep } from './sweep.js';
import { DEFAULT_THRESHOLDS, type Thresholds } from './thresholds.js';
import type { PhaseTable } from './marks.js';
import { withTraceSections } from './trace-sections.js';
import { passSection } from './passes.js';
import { sampledSummary } from './sampled-summary.js';

export interface AnalyzeOptions {
  readonly thresholds?: Thresholds;
  /** Called after each phase with its wall time (benchmarks). */
  readonly onPhase?: (phase: string, ms: number) => void;
  /** The trace's phase table of every draw and stage, when already made (else made here for a trace with marks). */
  readonly phases?: PhaseTable | null;
}

export function analyzeTrace(trace: Trace, options: AnalyzeOptions = {}): AnalysisSummary {
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  let last = now();
  const phase = (name: string) => {
    const t = now();
    options.onPhase?.(name, t - last);
    last = t;
  };
  const reliability = reliabilityOf(trace);
  const stands = (ns: number) => standsAcrossSms(reliability, ns);
  const { device, capture, draws } = trace;
  const D = draws.length;

  const keys = drawStageKeys(trace.warps, D);
  phase('keys');
  const { rows, occupancy: occ, busy } = sweep(trace, keys, { tailWarps: thresholds.leftoverMaxWarps, tailMinWarps: thresholds.leftoverMinDrawWarps });
  phase('sweep');
  const durations = durationStats(trace, keys, rows);
  phase('durations');

  // Frame and draw spans from the per draw × stage extremes.
  let frameStart = Infinity;
  let frameEnd = -Infinity;
  let frameWarpTime = 0;
  for (const s of durations.byStage) {
    if (!s) continue;
    frameStart = Math.min(frameStart, s.firstStartNs);
    frameEnd = Math.max(frameEnd, s.lastEndNs);
    frameWarpTime += s.totalNs;
  }
  if (frameStart === Infinity) frameStart = frameEnd = 0;
  const spans: DrawSpans = { firstStart: new Float64Array(D).fill(NaN), lastEnd: new Float64Array(D).fill(NaN) };
  const drawWarps = new Float64Array(D);
  const drawWarpTime = new Float64Array(D);
  for (let k = 0; k < keys.count; k++) {
    const d = keys.keyDraw[k]!;
    const st = durations.byKey[k]!;
    drawWarps[d]! += st.warps;
    drawWarpTime[d]! += st.totalNs;
    if (!(st.firstStartNs >= spans.firstStart[d]!)) spans.firstStart[d] = st.firstStartNs;
    if (!(st.lastEndNs <= spans.lastEnd[d]!)) spans.lastEnd[d] = st.lastEndNs;
  }
  const overlap = drawOverlap(spans);
  phase('overlap');
  // Untraced draws ran without warps: gaps while they ran are neither syncs nor idle windows.
  const untraced = untracedSpansOf(draws);
  const syncs = findSyncs(spans, overlap, thresholds.syncMinGapNs, untraced);
  phase('syncs');
  const idle = findGpuIdle(trace, busy, spans, overlap, { startNs: frameStart, endNs: frameEnd }, thresholds.idleMinNs, thresholds.maxFindingsPerKind, untraced);
  phase('idle');
  const leftovers = findLeftovers(trace, spans, rows, overlap, thresholds, stands);
  phase('leftovers');
  const frameSpan = frameEnd - frameStart;
  const stalls = findStalls(
    trace,
    { byStage: durations.byStage, byKey: durations.byKey, keyOfRow: keys.keyOfRow, keyStage: keys.keyStage, stageSms: durations.stageSms },
    spans,
    { startNs: frameStart, endNs: frameEnd },
    thresholds,
    stands,
  );
  phase('stalls');

  const stages: StageSummary[] = [];
  for (let s = 0; s < STAGE_COUNT; s++) {
    const st = durations.byStage[s];
    if (!st) continue;
    const perSm = occ.known.stages.result(s);
    const sms = durations.stageSms[s]!;
    const onUnknown = sms.includes(UNKNOWN_SM);
    const knownSms = onUnknown ? sms.length - 1 : sms.length;
    const capacity = device.warpsPerSm !== null && !onUnknown ? device.warpsPerSm * knownSms : null;
    const stageSpan = st.lastEndNs - st.firstStartNs;
    const deviceMean = stageSpan > 0 ? st.totalNs / stageSpan : perSm?.peak ?? 0;
    const levelTimeNs = occ.known.levels.of(s);
    stages.push({
      stage: stageInfo(s).name,
      stageCode: s,
      ...st,
      sms,
      activeLaneCounts: durations.activeLaneCounts[s]!,
      occupancy: {
        perSm:
          perSm === null
            ? null
            : {
                ...perSm,
                levelTimeNs,
                timeAtPeakShare: perSm.activeSmTimeNs > 0 ? (levelTimeNs[perSm.peak] ?? 0) / perSm.activeSmTimeNs : 1,
              },
        warpsPerSm: device.warpsPerSm,
        peakShareOfSm: perSm !== null && device.warpsPerSm !== null ? perSm.peak / device.warpsPerSm : null,
        capacityWarps: capacity,
        deviceMeanInFlight: deviceMean,
        deviceMeanShareOfCapacity: capacity !== null && capacity > 0 ? deviceMean / capacity : null,
        unknownSm: occ.unknown.stages.result(s),
      },
    });
  }

  const drawSummaries: DrawSummary[] = draws.map((info, d) => {
    const has = drawWarps[d]! > 0;
    const span = has ? spans.lastEnd[d]! - spans.firstStart[d]! : null;
    const overlapNs = has ? overlap.overlapNs[d]! : null;
    const gap = overlap.gapBeforeNs[d]!;
    const drawStages: DrawStageSummary[] = [];
    for (let j = keys.drawKeyStart[d]!; j < keys.drawKeyStart[d + 1]!; j++) {
      const k = keys.drawKeys[j]!;
      const s = keys.keyStage[k]!;
      drawStages.push({
        stage: stageInfo(s).name,
        stageCode: s,
        ...durations.byKey[k]!,
        occupancy: occ.known.keys.result(k) ?? occ.unknown.keys.result(k),
      });
    }
    return {
      index: d,
      label: info.label,
      kind: info.kind,
      warps: drawWarps[d]!,
      gpuBeginNs: info.gpuBeginNs,
      gpuEndNs: info.gpuEndNs,
      firstStartNs: has ? spans.firstStart[d]! : null,
      lastEndNs: has ? spans.lastEnd[d]! : null,
      spanNs: span,
      warpTimeNs: drawWarpTime[d]!,
      overlapNs,
      exclusiveNs: span !== null && overlapNs !== null ? span - overlapNs : null,
      hiddenShare: span !== null && overlapNs !== null ? (span > 0 ? overlapNs / span : 0) : null,
      gapBeforeNs: Number.isNaN(gap) ? null : gap,
      startOrder: overlap.rank[d]! >= 0 ? overlap.rank[d]! : null,
      idleNs: has ? idle.drawIdleNs[d]! : null,
      stages: drawStages,
    };
  });

  const smSummaries: SmSummary[] = occ.sms.map((s) => {
    const stagePeaks: Partial<Record<StageName, number>> = {};
    for (let st = 0; st < STAGE_COUNT; st++) if (s.stagePeaks[st]! > 0) stagePeaks[stageInfo(st).name] = s.stagePeaks[st]!;
    return {
      sm: s.sm,
      warps: s.warps,
      warpTimeNs: s.warpTimeNs,
      busyNs: s.busyNs,
      peakInFlight: s.peakInFlight,
      meanInFlightWhileBusy: s.busyNs > 0 ? s.warpTimeNs / s.busyNs : s.peakInFlight,
      stagePeaks,
    };
  });

  const caps = findOccupancyCaps(stages, device.warpsPerSm, thresholds);
  const leftoverExposed = leftovers.reduce((sum, l) => sum + Math.max(0, l.tailNs - l.overlappedNs), 0);
  // A kind of gap is trusted across SMs when its smallest member outweighs the SMs' alignment uncertainty.
  const syncsReliable = syncs.gaps.every((g) => stands(g.gapNs));
  const idleReliable = idle.windows.every((w) => stands(w.durationNs));
  const stallGroups = groupStalls(stalls.stalls);
  const stallTotal = stallGroups.reduce((sum, g) => sum + g.costNs, 0);
  const findings = buildFindings({
    draws,
    regions: trace.regions,
    frameSpanNs: frameSpan,
    syncs: syncs.gaps,
    syncTotalNs: syncs.totalNs,
    syncsReliable,
    idle: idle.windows,
    idleTotalNs: idle.totalNs,
    idleReliable,
    drawBusyNs: overlap.busyNs,
    gpuBusyNs: idle.busyNs,
    idleMinNs: thresholds.idleMinNs,
    leftovers,
    stalls: stalls.stalls,
    caps,
    stages,
    maxPerKind: thresholds.maxFindingsPerKind,
    stallOccupancyShare: thresholds.stallOccupancyShare,
    leftoverMinNs: thresholds.leftoverMinNs,
  });
  const topStalls = stalls.stalls.slice(0, thresholds.maxFindingsPerKind);
  const topLeftovers = [...leftovers]
    .sort((a, b) => b.tailNs - b.overlappedNs - (a.tailNs - a.overlappedNs))
    .slice(0, thresholds.maxFindingsPerKind);
  const summary: AnalysisSummary = {
    schema: SUMMARY_SCHEMA,
    schemaVersion: SUMMARY_VERSION,
    trace: {
      workload: capture.workload,
      capturedAt: capture.capturedAt,
      device: device.name,
      api: device.api,
      smCount: device.smCount,
      warpsPerSm: device.warpsPerSm,
      subgroupSize: device.subgroupSize,
      warps: trace.warps.count,
      draws: D,
      recordsWritten: capture.recordsWritten,
      recordsKept: capture.recordsKept,
      dropped: capture.recordsWritten - capture.recordsKept,
      overheadRatio: capture.overhead && capture.overhead.plainFrameNs > 0 ? capture.overhead.tracedFrameNs / capture.overhead.plainFrameNs : null,
    },
    reliability,
    thresholds,
    frame: {
      startNs: frameStart,
      endNs: frameEnd,
      spanNs: frameSpan,
      warpTimeNs: frameWarpTime,
      drawBusyNs: overlap.busyNs,
      gpuBusyNs: idle.busyNs,
      smsUsed: trace.warps.smGroups.sm.length,
    },
    stages,
    draws: drawSummaries,
    sms: smSummaries,
    syncs: {
      count: syncs.gaps.length,
      totalNs: syncs.totalNs,
      shareOfFrame: frameSpan > 0 ? syncs.totalNs / frameSpan : 0,
      gaps: syncs.gaps,
      reliable: syncsReliable,
    },
    idle: {
      count: idle.count,
      totalNs: idle.totalNs,
      shareOfFrame: frameSpan > 0 ? idle.totalNs / frameSpan : 0,
      windows: idle.windows,
      reliable: idleReliable,
    },
    leftovers: { count: leftovers.length, totalNs: leftoverExposed, items: topLeftovers },
    stalls: { count: stalls.stalls.length, totalNs: stallTotal, candidates: stalls.candidates, items: topStalls },
    occupancyCaps: caps,
    findings,
    findingGroups: groupFindings(findings, { minShare: thresholds.findingGroupMinShare, idleWindows: idle.windows }),
  };
  phase('assemble');
  const passes = passSection(trace, drawSummaries, summary.frame);
  if (passes !== undefined) phase('passes');
  // Block profiles, phases and ray events, when the trace has them (nothing is added otherwise).
  const full = withTraceSections(passes === undefined ? summary : { ...summary, passes }, trace, { phases: options.phases });
  if (full !== summary) phase('sections');
  // A sampled trace's counts scaled, and what needs every warp withheld.
  return sampledSummary(full, trace);
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
