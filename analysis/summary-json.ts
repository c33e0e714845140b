/**
 * Reading a stored summary back (e.g. to diff today's capture against last
 * week's summary). Untrusted input, checked like a trace: every field the
 * reports and the diff read, each error naming its path
 * (`summary.stages[3].meanNs: expected a number, got "12"`), nesting
 * limited to MAX_SUMMARY_DEPTH, a newer schema version refused. A field
 * added to AnalysisSummary must be added to SUMMARY_SHAPE below.
 */
import { STAGES } from '../shared-schema/stages.js';
import { arrayOf, bool, checkDepth, count, JsonShapeError, nullable, num, objectOf, oneOf, optional, recordOf, str, type Check } from './json-checks.js';
import { SUMMARY_SCHEMA, SUMMARY_VERSION, type AnalysisSummary } from './summary.js';
import { DEFAULT_THRESHOLDS, THRESHOLD_DOCS, type Thresholds } from './thresholds.js';
import { groupFindings } from './finding-groups.js';
import { BLOCK_SECTION_SHAPE, PASS_SECTION_SHAPE, PHASE_SECTION_SHAPE, RAY_SECTION_SHAPE } from './trace-sections-json.js';

export class SummaryFormatError extends Error {
  override readonly name = 'SummaryFormatError';
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/** Deepest nesting a summary may have (a real one has 7 levels). */
export const MAX_SUMMARY_DEPTH = 32;

const stageName = oneOf(STAGES.map((s) => s.name));
const stageCode = oneOf(STAGES.map((s) => s.code));
const numOrNull = nullable(num);
const numbers = arrayOf(num);

const durationStats = {
  warps: count,
  totalNs: num,
  meanNs: num,
  medianNs: num,
  p90Ns: num,
  p99Ns: num,
  minNs: num,
  maxNs: num,
  stddevNs: num,
  histogram: objectOf({ lowerNs: numbers, upperNs: num, counts: numbers }),
  meanActiveLanes: num,
  simtEfficiency: num,
  smsUsed: count,
  firstStartNs: num,
  lastEndNs: num,
};

const stageEstimate = objectOf({
  stage: stageName,
  every: count,
  recordedWarps: count,
  warps: count,
  warpsSe: num,
  warpTimeNs: num,
  warpTimeSeNs: num,
  shareOfWarpTime: num,
  shareSe: num,
  meanNs: num,
  meanSeNs: num,
});

const SAMPLING_SHAPE = objectOf({
  every: recordOf(count),
  chosenBy: oneOf(['flag', 'budget']),
  budget: numOrNull,
  description: str,
  stages: arrayOf(stageEstimate),
  withheld: arrayOf(objectOf({ what: str, why: str })),
});

const perSmOccupancy = { peak: num, peakSm: num, peakAtNs: num, meanWhileActive: num, activeSmTimeNs: num };

const stageSummary = objectOf(durationStats, {
  stage: stageName,
  stageCode,
  sms: numbers,
  activeLaneCounts: numbers,
  occupancy: objectOf({
    perSm: nullable(objectOf(perSmOccupancy, { levelTimeNs: numbers, timeAtPeakShare: num })),
    warpsPerSm: numOrNull,
    peakShareOfSm: numOrNull,
    capacityWarps: numOrNull,
    deviceMeanInFlight: num,
    deviceMeanShareOfCapacity: numOrNull,
    unknownSm: nullable(objectOf(perSmOccupancy)),
  }),
});

const drawSummary = objectOf({
  index: count,
  label: str,
  kind: oneOf(['draw', 'dispatch', 'trace-rays']),
  warps: count,
  gpuBeginNs: numOrNull,
  gpuEndNs: numOrNull,
  firstStartNs: numOrNull,
  lastEndNs: numOrNull,
  spanNs: numOrNull,
  warpTimeNs: num,
  overlapNs: numOrNull,
  exclusiveNs: numOrNull,
  hiddenShare: numOrNull,
  gapBeforeNs: numOrNull,
  startOrder: nullable(count),
  idleNs: numOrNull,
  stages: arrayOf(objectOf(durationStats, { stage: stageName, stageCode, occupancy: nullable(objectOf(perSmOccupancy)) })),
});

const smSummary = objectOf({ sm: num, warps: count, warpTimeNs: num, busyNs: num, peakInFlight: num, meanInFlightWhileBusy: num, stagePeaks: recordOf(num) });

const warpPlace = { row: count, sm: num, warpSlot: num, stage: stageName, customId: num, startNs: num, durationNs: num };

const leftover = objectOf({
  draw: count,
  warps: count,
  startNs: num,
  endNs: num,
  tailNs: num,
  shareOfDraw: num,
  overlappedNs: num,
  tailWarps: arrayOf(objectOf(warpPlace)),
  reliable: bool,
});

const stall = objectOf(warpPlace, {
  draw: count,
  stageMedianNs: num,
  drawStageMedianNs: num,
  factor: num,
  stallNs: num,
  shareOfFrame: num,
  meanOccupancyDuring: num,
  peakOccupancy: num,
  sms: numbers,
  binNs: num,
  reliable: bool,
});

const idleEdge = objectOf({ row: count, sm: num, warpSlot: num, stage: stageName, draw: count, customId: num });

const idleWindow = objectOf({
  startNs: num,
  endNs: num,
  durationNs: num,
  shareOfFrame: num,
  draw: count,
  openDraws: arrayOf(count),
  openDrawCount: count,
  before: idleEdge,
  after: idleEdge,
});

const finding = objectOf({
  id: str,
  kind: oneOf(['sync', 'idle', 'leftover', 'stall', 'occupancy-cap']),
  title: str,
  detail: str,
  startNs: num,
  endNs: num,
  sm: numOrNull,
  draw: nullable(count),
  stage: nullable(stageName),
  costNs: num,
  shareOfFrame: num,
  reliable: bool,
  remedy: optional(nullable(str)),
});

const findingGroup = objectOf({
  id: str,
  kind: oneOf(['sync', 'idle', 'leftover', 'stall', 'occupancy-cap']),
  key: str,
  title: str,
  count: count,
  totalNs: num,
  medianNs: num,
  maxNs: num,
  shareOfFrame: num,
  startNs: num,
  endNs: num,
  sm: numOrNull,
  draw: nullable(count),
  stage: nullable(stageName),
  reliable: bool,
  hidden: bool,
  findingIds: arrayOf(str),
  remedy: optional(nullable(str)),
});

/** Thresholds added after version 2 began: a summary stored before them lacks them (the default applies). */
const LATER_THRESHOLDS: ReadonlySet<string> = new Set(['findingGroupMinShare']);

/** Everything after schema and schemaVersion. */
const SUMMARY_SHAPE: Check = objectOf({
  trace: objectOf({
    workload: str,
    capturedAt: str,
    device: str,
    api: str,
    smCount: nullable(count),
    warpsPerSm: nullable(count),
    subgroupSize: count,
    warps: count,
    draws: count,
    recordsWritten: count,
    recordsKept: count,
    dropped: num,
    overheadRatio: numOrNull,
  }),
  reliability: objectOf({ alignedAcrossSms: bool, calibrationMethod: str, calibrationNote: str, crossSmReliable: bool, crossSmUncertaintyNs: optional(numOrNull), warnings: arrayOf(str) }),
  thresholds: objectOf(Object.fromEntries(THRESHOLD_DOCS.map((d) => [d.name, LATER_THRESHOLDS.has(d.name) ? optional(num) : num]))),
  frame: objectOf({ startNs: num, endNs: num, spanNs: num, warpTimeNs: num, drawBusyNs: num, gpuBusyNs: num, smsUsed: count }),
  stages: arrayOf(stageSummary),
  draws: arrayOf(drawSummary),
  sms: arrayOf(smSummary),
  syncs: objectOf({
    count: count,
    totalNs: num,
    shareOfFrame: num,
    gaps: arrayOf(objectOf({ afterDraw: count, beforeDraw: count, startNs: num, endNs: num, gapNs: num })),
    reliable: bool,
  }),
  idle: objectOf({ count: count, totalNs: num, shareOfFrame: num, windows: arrayOf(idleWindow), reliable: bool }),
  leftovers: objectOf({ count: count, totalNs: num, items: arrayOf(leftover) }),
  stalls: objectOf({ count: count, totalNs: num, candidates: count, items: arrayOf(stall) }),
  occupancyCaps: arrayOf(objectOf({ stage: stageName, peakPerSm: num, warpsPerSm: num, timeAtPeakShare: num, peakSm: num, peakAtNs: num })),
  findings: arrayOf(finding),
  findingGroups: optional(arrayOf(findingGroup)),
  // Only in summaries of traces with block profiles, marks or ray events.
  blocks: optional(BLOCK_SECTION_SHAPE),
  phases: optional(PHASE_SECTION_SHAPE),
  rays: optional(RAY_SECTION_SHAPE),
  // Only in summaries of traces with regions (passes.ts).
  passes: optional(PASS_SECTION_SHAPE),
  // Only in summaries of sampled traces (sampled.ts).
  sampling: optional(SAMPLING_SHAPE),
});

/** Absent (a summary stored before the field existed), or passes `check`. */
/**
 * A summary stored before finding groups (version 2 still): its thresholds get
 * findingGroupMinShare's default and its groups are made from its findings,
 * as analyzeTrace makes them. One stored before remedies gets remedy null on
 * its findings and groups.
 */
function withFindingGroups(stored: AnalysisSummary): AnalysisSummary {
  const withRemedy = <T extends { readonly remedy: string | null }>(items: readonly T[]): T[] =>
    items.every((x) => x.remedy !== undefined) ? (items as T[]) : items.map((x) => ({ ...x, remedy: x.remedy ?? null }));
  const findings = withRemedy(stored.findings);
  const thresholds: Thresholds = { ...DEFAULT_THRESHOLDS, ...stored.thresholds };
  const groups =
    (stored as Partial<AnalysisSummary>).findingGroups ?? groupFindings(findings, { minShare: thresholds.findingGroupMinShare, idleWindows: stored.idle.windows });
  const findingGroups = withRemedy(groups);
  if (findings === stored.findings && findingGroups === stored.findingGroups && (stored.thresholds as Partial<Thresholds>).findingGroupMinShare !== undefined) return stored;
  return { ...stored, findings, thresholds, findingGroups };
}

/** True when `value` looks like a summary (its schema field says so); the full check is parseSummary. */
export function isSummaryJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>)['schema'] === SUMMARY_SCHEMA;
}

/** Checks every field of a stored summary; returns it typed, or throws SummaryFormatError naming the field. */
export function parseSummary(value: unknown): AnalysisSummary {
  try {
    checkDepth(value, 'summary', MAX_SUMMARY_DEPTH);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JsonShapeError('summary', 'expected an object');
    const root = value as Record<string, unknown>;
    if (root['schema'] !== SUMMARY_SCHEMA) throw new JsonShapeError('summary.schema', `expected "${SUMMARY_SCHEMA}"`);
    const version = root['schemaVersion'];
    count(version, 'summary.schemaVersion');
    if ((version as number) > SUMMARY_VERSION) throw new JsonShapeError('summary.schemaVersion', `${version} is newer than this warptrace reads (${SUMMARY_VERSION})`);
    if ((version as number) < SUMMARY_VERSION) {
      throw new JsonShapeError('summary.schemaVersion', `${version} is older than this warptrace reads (${SUMMARY_VERSION}): re-run warptrace stats on the trace`);
    }
    SUMMARY_SHAPE(root, 'summary');
    const summary = root as unknown as AnalysisSummary;
    return withFindingGroups(summary);
  } catch (error) {
    if (error instanceof JsonShapeError) throw new SummaryFormatError(error.field, error.detail);
    throw error;
  }
}
