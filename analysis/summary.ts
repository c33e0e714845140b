/**
 * The analysis summary: the versioned, JSON-serializable result of
 * `analyzeTrace`. Plain objects and arrays only (no typed arrays), so the CLI
 * can print it, the viewer can keep it, and two of them can be diffed.
 * Times are ns since the capture origin; shares are fractions in [0, 1].
 * Bump SUMMARY_VERSION on any incompatible change and say what changed in
 * analysis/README.md.
 */
import type { StageName } from '../shared-schema/stages.js';
import type { DrawKind } from '../shared-schema/model.js';
import type { Thresholds } from './thresholds.js';
import type { PhaseTable } from './marks.js';
import type { BlockSection, RaySection } from './trace-sections.js';
import type { PassSection } from './passes.js';
import type { SamplingSection } from './sampled.js';

export const SUMMARY_SCHEMA = 'warptrace-summary';
/**
 * 2: stalls are measured against the stalled draw's own peak (`stalls.items[].peakOccupancy`
 * re-defined) and grouped per draw; `idle`, `frame.gpuBusyNs`, `draws[].idleNs` and the
 * 'idle' finding kind added.
 */
export const SUMMARY_VERSION = 2;

/** Log-binned duration histogram: 4 bins per octave, edges 2^e × {1, 1.25, 1.5, 1.75}. */
export interface DurationHistogram {
  /** Lower edge of each bin, ns; bin k holds durations in [lowerNs[k], lowerNs[k+1]). */
  readonly lowerNs: number[];
  /** Upper edge of the last bin, ns. */
  readonly upperNs: number;
  readonly counts: number[];
}

/** Duration statistics of a set of warps. Percentiles are exact, nearest-rank (an observed duration). */
export interface DurationStats {
  readonly warps: number;
  /** Sum of warp durations (warp-time), ns. */
  readonly totalNs: number;
  readonly meanNs: number;
  readonly medianNs: number;
  readonly p90Ns: number;
  readonly p99Ns: number;
  readonly minNs: number;
  readonly maxNs: number;
  /** Population standard deviation, ns. */
  readonly stddevNs: number;
  readonly histogram: DurationHistogram;
  /** Mean active lanes per warp. */
  readonly meanActiveLanes: number;
  /** meanActiveLanes / subgroup size (SIMT efficiency). */
  readonly simtEfficiency: number;
  /** Distinct SMs that ran these warps (the unknown SM counts as one). */
  readonly smsUsed: number;
  /** Earliest warp start and latest warp end, ns. */
  readonly firstStartNs: number;
  readonly lastEndNs: number;
}

/** Warps in flight at once on one SM, for one stage (or one draw × stage). */
export interface PerSmOccupancy {
  /** Most warps in flight at once on one SM. */
  readonly peak: number;
  /** The SM where the peak was first reached, and when. */
  readonly peakSm: number;
  readonly peakAtNs: number;
  /** Time-weighted mean warps in flight on an SM while at least one was (warp-time / active SM-time). */
  readonly meanWhileActive: number;
  /** SM-time with at least one warp in flight, summed over SMs, ns. */
  readonly activeSmTimeNs: number;
}

export interface StageOccupancy {
  /** Over SMs with a known id; null when every warp of the stage has an unknown SM. */
  readonly perSm: (PerSmOccupancy & {
    /** levelTimeNs[k]: SM-time with exactly k warps of this stage in flight on an SM (k ≥ 1; [0] is 0), ns. */
    readonly levelTimeNs: number[];
    /** Share of activeSmTimeNs spent exactly at the peak. */
    readonly timeAtPeakShare: number;
  }) | null;
  /** Warp slots per SM (device.warpsPerSm), when known. */
  readonly warpsPerSm: number | null;
  /** perSm.peak / warpsPerSm. */
  readonly peakShareOfSm: number | null;
  /** warpsPerSm × SMs that ran the stage; null when unknown (no warpsPerSm, or warps on the unknown SM). */
  readonly capacityWarps: number | null;
  /** Device-wide mean warps in flight between the stage's first start and last end (cross-SM). */
  readonly deviceMeanInFlight: number;
  /** deviceMeanInFlight / capacityWarps. */
  readonly deviceMeanShareOfCapacity: number | null;
  /** Warps without an SM id, counted as one device-wide lane; null when there are none. */
  readonly unknownSm: PerSmOccupancy | null;
}

export interface StageSummary extends DurationStats {
  readonly stage: StageName;
  readonly stageCode: number;
  /** Ids of the SMs that ran this stage, ascending (65535 = unknown). */
  readonly sms: number[];
  /** activeLaneCounts[k]: warps with k active lanes (k = 0..subgroupSize). */
  readonly activeLaneCounts: number[];
  readonly occupancy: StageOccupancy;
}

export interface DrawStageSummary extends DurationStats {
  readonly stage: StageName;
  readonly stageCode: number;
  /** Warps of this draw and stage in flight per SM; null when all on the unknown SM. */
  readonly occupancy: PerSmOccupancy | null;
}

export interface DrawSummary {
  readonly index: number;
  readonly label: string;
  readonly kind: DrawKind;
  readonly warps: number;
  /** GPU timestamp-query bounds, when queried. */
  readonly gpuBeginNs: number | null;
  readonly gpuEndNs: number | null;
  /** The rest is null for a draw without warps. */
  readonly firstStartNs: number | null;
  readonly lastEndNs: number | null;
  readonly spanNs: number | null;
  readonly warpTimeNs: number;
  /** Time within the span during which another draw's span was open, ns. */
  readonly overlapNs: number | null;
  /** spanNs − overlapNs: time only this draw ran, ns. */
  readonly exclusiveNs: number | null;
  /** overlapNs / spanNs: share of the draw's span hidden behind other draws. */
  readonly hiddenShare: number | null;
  /** First warp start minus the time every earlier-starting draw had drained; negative when overlapping, ns. */
  readonly gapBeforeNs: number | null;
  /** Position in GPU start order (0 = started first); null without warps. */
  readonly startOrder: number | null;
  /** Time within the span when no warp ran on any SM (every idle window, no threshold), ns; null without warps. */
  readonly idleNs: number | null;
  readonly stages: DrawStageSummary[];
}

export interface SmSummary {
  /** SM id (65535 = unknown: all such warps as one lane). */
  readonly sm: number;
  readonly warps: number;
  readonly warpTimeNs: number;
  /** Time with at least one warp in flight, ns. */
  readonly busyNs: number;
  readonly peakInFlight: number;
  readonly meanInFlightWhileBusy: number;
  /** Stage name → most warps of that stage in flight at once on this SM. */
  readonly stagePeaks: Partial<Record<StageName, number>>;
}

export interface SyncGap {
  /** The draw that drained last before the gap, and the draw after it. */
  readonly afterDraw: number;
  readonly beforeDraw: number;
  /** GPU drained at, next draw's first warp at, ns. */
  readonly startNs: number;
  readonly endNs: number;
  readonly gapNs: number;
}

export interface LeftoverWarp {
  readonly row: number;
  readonly sm: number;
  readonly warpSlot: number;
  readonly stage: StageName;
  readonly customId: number;
  readonly startNs: number;
  readonly durationNs: number;
}

export interface Leftover {
  readonly draw: number;
  /** Warps still running after the rest of the draw finished. */
  readonly warps: number;
  /** When the draw's other warps had all finished, and when the last leftover ended, ns. */
  readonly startNs: number;
  readonly endNs: number;
  readonly tailNs: number;
  /** tailNs / draw span. */
  readonly shareOfDraw: number;
  /** Part of the tail during which other draws ran (that much of it was hidden), ns. */
  readonly overlappedNs: number;
  readonly tailWarps: LeftoverWarp[];
  /** False when the draw ran on several SMs whose clocks are not aligned. */
  readonly reliable: boolean;
}

export interface Stall {
  readonly row: number;
  readonly sm: number;
  readonly warpSlot: number;
  readonly stage: StageName;
  readonly draw: number;
  readonly customId: number;
  readonly startNs: number;
  readonly durationNs: number;
  /** Median duration of the stage over all draws, and of this draw's warps of the stage. */
  readonly stageMedianNs: number;
  readonly drawStageMedianNs: number;
  /** durationNs / the larger of the two medians (a candidate is long against both). */
  readonly factor: number;
  /**
   * Time during the warp when the stage's SMs held fewer than stallOccupancyShare × peakOccupancy
   * warps (all work on them counted), ns.
   */
  readonly stallNs: number;
  readonly shareOfFrame: number;
  /** Mean warps in flight on the stage's SMs during the warp (all work on them). */
  readonly meanOccupancyDuring: number;
  /** The reference: the most warps of this warp's own draw (any stage) in flight at once on those SMs, binned at binNs. */
  readonly peakOccupancy: number;
  /** SMs that ran the stage (the set whose occupancy was measured). */
  readonly sms: number[];
  /** Resolution of the occupancy profile used, ns. */
  readonly binNs: number;
  readonly reliable: boolean;
}

export interface OccupancyCap {
  readonly stage: StageName;
  readonly peakPerSm: number;
  readonly warpsPerSm: number;
  readonly timeAtPeakShare: number;
  readonly peakSm: number;
  readonly peakAtNs: number;
}

/** A warp at the edge of an idle window. */
export interface IdleEdgeWarp {
  readonly row: number;
  readonly sm: number;
  readonly warpSlot: number;
  readonly stage: StageName;
  readonly draw: number;
  readonly customId: number;
}

/** A window inside an open draw during which no warp ran on any SM. */
export interface IdleWindow {
  readonly startNs: number;
  readonly endNs: number;
  readonly durationNs: number;
  readonly shareOfFrame: number;
  /** The draw it is reported against: the next warp's draw when that draw was open, else the earliest-started open draw. */
  readonly draw: number;
  /** Draws whose spans were open during the window, earliest started first (at most 8 listed), and how many. */
  readonly openDraws: number[];
  readonly openDrawCount: number;
  /** The warp whose end began the window (the last to finish anywhere), and the first to start after it. */
  readonly before: IdleEdgeWarp;
  readonly after: IdleEdgeWarp;
}

export type FindingKind = 'sync' | 'idle' | 'leftover' | 'stall' | 'occupancy-cap';

/** One thing worth a look, with the time range to zoom to. */
export interface Finding {
  /** Stable within one summary: kind and index, e.g. "sync-0". */
  readonly id: string;
  readonly kind: FindingKind;
  /** One line, plain text. */
  readonly title: string;
  /** A sentence or two, plain text. */
  readonly detail: string;
  readonly startNs: number;
  readonly endNs: number;
  /** SM to scroll to, when the finding is about one SM. */
  readonly sm: number | null;
  readonly draw: number | null;
  readonly stage: StageName | null;
  /** GPU time the finding costs (or may cost), ns; 0 for observations. */
  readonly costNs: number;
  readonly shareOfFrame: number;
  /** False when it rests on cross-SM times that are not aligned. */
  readonly reliable: boolean;
  /** What to do about it, plain text (remedies.ts); null in summaries stored before remedies. */
  readonly remedy: string | null;
}

/** Findings of one kind and cause merged (finding-groups.ts): count, totals, members by id. */
export interface FindingGroup {
  /** "kind:key", e.g. "sync:all", "leftover:FS", "idle:inside-draw". */
  readonly id: string;
  readonly kind: FindingKind;
  /** The cause: "all" (syncs), "inside-draw" or "between-draws" (idle), a stage or "mixed" (the others). */
  readonly key: string;
  /** One line, plain text: the member's title when it has one member. */
  readonly title: string;
  readonly count: number;
  /** Sum, median and largest of the members' costNs. */
  readonly totalNs: number;
  readonly medianNs: number;
  readonly maxNs: number;
  /** totalNs / the frame span. */
  readonly shareOfFrame: number;
  /** From the first member's start to the last member's end. */
  readonly startNs: number;
  readonly endNs: number;
  /** Shared by every member, else null. */
  readonly sm: number | null;
  readonly draw: number | null;
  readonly stage: StageName | null;
  readonly reliable: boolean;
  /** Below thresholds.findingGroupMinShare of the frame: listed after the others, shown on request. */
  readonly hidden: boolean;
  /** The members' ids in `findings`, costliest first. */
  readonly findingIds: string[];
  /** The costliest member's remedy (null without one). */
  readonly remedy: string | null;
}

export interface Reliability {
  readonly alignedAcrossSms: boolean;
  readonly calibrationMethod: string;
  readonly calibrationNote: string;
  /** True when cross-SM results (syncs, overlap, multi-SM tails and stalls) can be trusted. */
  readonly crossSmReliable: boolean;
  /**
   * How far apart SM clocks may be, ns (reliability.ts): 0 when aligned or on
   * one SM; a measured bound when only the calibration's cross-check failed;
   * null when unbounded. Cross-SM results UNCERTAINTY_FACTOR times larger
   * stand anyway. Absent in summaries stored before it existed.
   */
  readonly crossSmUncertaintyNs?: number | null;
  /** Plain-text warnings to show next to the results. */
  readonly warnings: string[];
}

export interface AnalysisSummary {
  readonly schema: typeof SUMMARY_SCHEMA;
  readonly schemaVersion: typeof SUMMARY_VERSION;
  readonly trace: {
    readonly workload: string;
    readonly capturedAt: string;
    readonly device: string;
    readonly api: string;
    readonly smCount: number | null;
    readonly warpsPerSm: number | null;
    readonly subgroupSize: number;
    readonly warps: number;
    readonly draws: number;
    readonly recordsWritten: number;
    readonly recordsKept: number;
    /** recordsWritten − recordsKept: records the trace lost (buffer full). */
    readonly dropped: number;
    /** Traced / plain frame time, when measured. */
    readonly overheadRatio: number | null;
  };
  readonly reliability: Reliability;
  readonly thresholds: Thresholds;
  readonly frame: {
    readonly startNs: number;
    readonly endNs: number;
    readonly spanNs: number;
    readonly warpTimeNs: number;
    /** Time some draw's span was open (union of draw spans), ns. */
    readonly drawBusyNs: number;
    /**
     * Time some warp was running on some SM (union of warp intervals), ns. drawBusyNs − gpuBusyNs
     * is the idle time inside open draws; spanNs − drawBusyNs the idle time between draws.
     */
    readonly gpuBusyNs: number;
    /** SMs that ran at least one warp. */
    readonly smsUsed: number;
  };
  readonly stages: StageSummary[];
  readonly draws: DrawSummary[];
  readonly sms: SmSummary[];
  readonly syncs: { readonly count: number; readonly totalNs: number; readonly shareOfFrame: number; readonly gaps: SyncGap[]; readonly reliable: boolean };
  /** GPU idle inside open draws: `count` windows lasted ≥ idleMinNs, `totalNs` sums them; `windows` are the longest (at most maxFindingsPerKind). Idle between draws is in `syncs`. */
  readonly idle: { readonly count: number; readonly totalNs: number; readonly shareOfFrame: number; readonly windows: IdleWindow[]; readonly reliable: boolean };
  /**
   * Leftover tails: `count` tails passed the thresholds; `totalNs` sums their exposed part (tailNs − overlappedNs,
   * what they cost); `items` are the costliest (at most maxFindingsPerKind). Findings list only tails exposed ≥ leftoverMinNs.
   */
  readonly leftovers: { readonly count: number; readonly totalNs: number; readonly items: Leftover[] };
  /**
   * Stalls: `candidates` warps were long enough to check, `count` stalled; `totalNs` sums the stalled time of each group
   * (one draw's overlapping stall warps on one SM set); `items` are the longest stalls (at most maxFindingsPerKind).
   */
  readonly stalls: { readonly count: number; readonly totalNs: number; readonly candidates: number; readonly items: Stall[] };
  readonly occupancyCaps: OccupancyCap[];
  /** Every finding, largest cost first. */
  readonly findings: Finding[];
  /** The findings grouped by kind and cause, costliest first, the hidden ones last (finding-groups.ts). */
  readonly findingGroups: FindingGroup[];
  /** Only for a trace with a block profile: the hottest source lines per draw and overall (trace-sections.ts). */
  readonly blocks?: BlockSection;
  /** Only for a trace with marks: the phases between them per draw and stage (marks.ts's table of every draw). */
  readonly phases?: PhaseTable;
  /** Only for a trace with ray events: per trace-rays call, launches, size and totals per event. */
  readonly rays?: RaySection;
  /** Only for a trace with regions: the cost of each pass (passes.ts: span, busy time, warp-time, shares). */
  readonly passes?: PassSection;
  /** Only for a sampled trace: the stages' estimates and what is withheld (sampled.ts); counts and times above are scaled. */
  readonly sampling?: SamplingSection;
}
