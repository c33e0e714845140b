/**
 * What `warptrace info` reports: counts per stage, draw and SM, time span,
 * records written vs kept, and calibration quality. Pure, one pass over the
 * warp columns.
 */
import { STAGES, STAGE_COUNT, UNKNOWN_SM, type Trace } from '../shared-schema/index.js';
import { summarizeCalibration, type CalibrationSummary } from '../analysis/calibration-quality.js';
import { summarizeReorders, type DrawReorder } from '../analysis/reorder.js';

export interface StageCount {
  readonly stage: string;
  readonly warps: number;
  /** SM ids that ran this stage (UNKNOWN_SM for a device without SM builtins). */
  readonly sms: number[];
  readonly totalWarpNs: number;
}

export interface DrawCount {
  readonly index: number;
  readonly label: string;
  readonly kind: string;
  readonly warps: number;
  readonly stages: string[];
  readonly firstStartNs: number | null;
  readonly lastEndNs: number | null;
  readonly gpuBeginNs: number | null;
  readonly gpuEndNs: number | null;
  /** The capture layer's call details, present only when known (so summaries of older files are unchanged). */
  readonly call?: string;
  readonly pipeline?: string;
  /** Label of the innermost region the draw lies in. */
  readonly region?: string;
  /** Why the draw ran untraced (no warps), present only for such draws. */
  readonly untraced?: string;
  /** Why the traced draw has no block profile (the layer skipped it), present only for such draws. */
  readonly unprofiled?: string;
  /** The barriers the capture layer saw recorded since the previous draw, present only when it saw some. */
  readonly barriersBefore?: readonly string[];
}

export interface SmCount {
  readonly sm: number;
  readonly warps: number;
  /** Warps per stage name, only stages that ran there. */
  readonly byStage: Record<string, number>;
}

export interface TraceSummary {
  readonly warps: number;
  readonly spanNs: { readonly start: number; readonly end: number } | null;
  readonly recordsWritten: number;
  readonly recordsKept: number;
  readonly dropped: number;
  readonly stages: StageCount[];
  readonly draws: DrawCount[];
  readonly sms: SmCount[];
  readonly calibration: CalibrationSummary;
  /** Draws whose ray generation passed a reorder point (analysis/reorder.ts); present only when some did. */
  readonly reorders?: DrawReorder[];
}

export function summarizeTrace(trace: Trace): TraceSummary {
  const w = trace.warps;
  const stageWarps = new Float64Array(STAGE_COUNT);
  const stageNs = new Float64Array(STAGE_COUNT);
  const stageSms: Set<number>[] = Array.from({ length: STAGE_COUNT }, () => new Set());
  const drawWarps = new Float64Array(trace.draws.length);
  const drawStages = new Uint16Array(trace.draws.length);
  const drawFirst = new Float64Array(trace.draws.length).fill(Infinity);
  const drawLast = new Float64Array(trace.draws.length).fill(-Infinity);
  const sms: SmCount[] = [];
  let start = Infinity;
  let end = -Infinity;
  const { sm, offsets } = w.smGroups;
  for (let g = 0; g < sm.length; g++) {
    const perStage = new Float64Array(STAGE_COUNT);
    for (let i = offsets[g] as number; i < (offsets[g + 1] as number); i++) {
      const stage = w.stage[i] as number;
      const draw = w.draw[i] as number;
      const s = w.startNs[i] as number;
      const e = s + (w.durationNs[i] as number);
      perStage[stage]!++;
      stageNs[stage]! += e - s;
      drawWarps[draw]!++;
      drawStages[draw]! |= 1 << stage;
      if (s < drawFirst[draw]!) drawFirst[draw] = s;
      if (e > drawLast[draw]!) drawLast[draw] = e;
      if (s < start) start = s;
      if (e > end) end = e;
    }
    const byStage: Record<string, number> = {};
    for (let st = 0; st < STAGE_COUNT; st++) {
      if (perStage[st] === 0) continue;
      byStage[STAGES[st]!.name] = perStage[st] as number;
      stageWarps[st]! += perStage[st] as number;
      stageSms[st]!.add(sm[g] as number);
    }
    sms.push({ sm: sm[g] as number, warps: (offsets[g + 1] as number) - (offsets[g] as number), byStage });
  }
  const stages: StageCount[] = [];
  for (let st = 0; st < STAGE_COUNT; st++) {
    if (stageWarps[st] === 0) continue;
    stages.push({ stage: STAGES[st]!.name, warps: stageWarps[st] as number, sms: [...stageSms[st]!], totalWarpNs: stageNs[st] as number });
  }
  const draws: DrawCount[] = trace.draws.map((d) => ({
    index: d.index,
    label: d.label,
    kind: d.kind,
    warps: drawWarps[d.index] as number,
    stages: STAGES.filter((s) => (drawStages[d.index]! & (1 << s.code)) !== 0).map((s) => s.name),
    firstStartNs: drawWarps[d.index] === 0 ? null : (drawFirst[d.index] as number),
    lastEndNs: drawWarps[d.index] === 0 ? null : (drawLast[d.index] as number),
    gpuBeginNs: d.gpuBeginNs,
    gpuEndNs: d.gpuEndNs,
    ...(d.call === null ? {} : { call: d.call }),
    ...(d.pipeline === null ? {} : { pipeline: d.pipeline }),
    ...(d.region === null ? {} : { region: trace.regions[d.region]?.label ?? `region ${d.region}` }),
    ...(d.untraced == null ? {} : { untraced: d.untraced }),
    ...(d.unprofiled == null ? {} : { unprofiled: d.unprofiled }),
    ...(d.barriersBefore == null ? {} : { barriersBefore: d.barriersBefore }),
  }));
  const reorders = summarizeReorders(trace);
  return {
    warps: w.count,
    spanNs: w.count === 0 ? null : { start, end },
    recordsWritten: trace.capture.recordsWritten,
    recordsKept: trace.capture.recordsKept,
    dropped: trace.capture.recordsWritten - trace.capture.recordsKept,
    stages,
    draws,
    sms,
    calibration: summarizeCalibration(trace),
    ...(reorders.length === 0 ? {} : { reorders }),
  };
}

export const smLabel = (sm: number) => (sm === UNKNOWN_SM ? 'unknown' : String(sm));
