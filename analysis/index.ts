/**
 * warptrace analyses: pure functions over a Trace (no DOM, no Node APIs),
 * shared by the CLI and the viewer. `analyzeTrace` runs them all and returns
 * the versioned summary; `diffSummaries` compares two summaries; the
 * formatters are in ./export/index.js.
 */
export { analyzeTrace, type AnalyzeOptions } from './analyze.js';
export * from './summary.js';
export {
  DEFAULT_THRESHOLDS,
  THRESHOLD_DOCS,
  ThresholdError,
  parseThresholdAssignments,
  resolveThresholds,
  type ThresholdDoc,
  type Thresholds,
} from './thresholds.js';
export { formatChange, formatNs, formatNumber, formatShare, smLabel, smsLabel } from './format.js';
export { diffSummaries, delta, DIFF_SCHEMA, DIFF_VERSION, type Delta, type DrawDiff, type StageDiff, type SummaryDiff } from './diff.js';
export { drawIdentities, matchDraws, summaryDrawIdentities, MATCH_HOWS, type DrawIdentity, type DrawMatching, type MatchConfidence, type MatchHow } from './draw-match.js';
export { findingGroupKey, groupFindings, groupMembers } from './finding-groups.js';
export { parseSummary, isSummaryJson, SummaryFormatError } from './summary-json.js';
export {
  blockSection,
  raySection,
  sectionsOfDraw,
  withTraceSections,
  BLOCK_TOP_OVERALL,
  BLOCK_TOP_PER_DRAW,
  RAY_EVENT_KEYS,
  type BlockScope,
  type BlockSection,
  type RayRowTotals,
  type RaySection,
  type TraceSections,
} from './trace-sections.js';
export { binLowerNs, binOfDuration } from './order-statistics.js';
