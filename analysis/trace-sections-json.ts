/**
 * The shapes of the summary's optional sections (trace-sections.ts) in a
 * stored summary, checked like the rest of it (summary-json.ts): every field
 * the reports read, each error naming its path.
 */
import { RAY_EVENTS } from '../shared-schema/ray-event-model.js';
import { STAGES } from '../shared-schema/stages.js';
import { arrayOf, bool, count, nullable, num, objectOf, oneOf, optional, recordOf, str, type Check } from './json-checks.js';

const numOrNull = nullable(num);
const clock = oneOf(['sm', 'device']);

const blockStat = objectOf({
  module: count,
  moduleName: str,
  blocks: arrayOf(count),
  function: str,
  file: nullable(str),
  line: nullable(count),
  column: nullable(count),
  text: nullable(str),
  executions: num,
  lanes: num,
  simtEfficiency: numOrNull,
  ticks: num,
  clock,
  tickShare: num,
  ns: numOrNull,
});

const blockScope = objectOf({
  draw: nullable(count),
  entries: count,
  totalTicks: objectOf({ sm: num, device: num }),
  top: arrayOf(blockStat),
});

export const BLOCK_SECTION_SHAPE: Check = objectOf({
  by: oneOf(['line']),
  subgroupSize: count,
  topPerDraw: count,
  topOverall: count,
  dropped: num,
  unprofiledDraws: count,
  skipped: optional(arrayOf(objectOf({ draw: count, why: str }))),
  overall: blockScope,
  draws: arrayOf(blockScope),
});

const phaseStat = objectOf({
  draw: count,
  stage: oneOf(STAGES.map((s) => s.code)),
  stageName: str,
  from: nullable(count),
  to: nullable(count),
  label: str,
  warps: count,
  occurrences: count,
  totalNs: num,
  meanNs: num,
  p50Ns: num,
  maxNs: num,
  meanLiveLanes: num,
  share: num,
  meanStartNs: num,
});

export const PHASE_SECTION_SHAPE: Check = objectOf({ phases: arrayOf(phaseStat), marks: count, warpsWithMarks: count, orphans: count });

const rayRow = objectOf({
  draw: count,
  launches: count,
  launchWidth: count,
  launchHeight: count,
  launchDepth: count,
  mixedSizes: bool,
  totals: objectOf(Object.fromEntries(RAY_EVENTS.map((e) => [e, count]))),
});

export const RAY_SECTION_SHAPE: Check = objectOf({ cellsPerRow: count, dropped: num, uncountedTraversals: num, unprofiledLaunches: count, rows: arrayOf(rayRow) });

const passCost = {
  draws: count,
  untracedDraws: count,
  warps: count,
  firstStartNs: numOrNull,
  lastEndNs: numOrNull,
  spanNs: numOrNull,
  busyNs: numOrNull,
  warpTimeNs: num,
  shareOfFrame: numOrNull,
  shareOfWarpTime: num,
  stageWarpTimeNs: recordOf(num),
};

const passStat = objectOf(passCost, {
  region: count,
  label: str,
  parent: nullable(count),
  depth: count,
  source: oneOf(['debug-label', 'render-pass']),
  firstDraw: nullable(count),
  lastDraw: nullable(count),
});

/** passes.ts's section (traces with regions). */
export const PASS_SECTION_SHAPE: Check = objectOf({ frameSpanNs: num, frameWarpTimeNs: num, passes: arrayOf(passStat), outside: objectOf(passCost) });
