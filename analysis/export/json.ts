/** JSON export of summaries and diffs (versioned schemas: see analysis/README.md). */
import type { SummaryDiff } from '../diff.js';
import { groupFindings } from '../finding-groups.js';
import { SUMMARY_VERSION, type AnalysisSummary, type DrawSummary, type Finding, type FindingGroup } from '../summary.js';
import { jsonChunks } from './json-chunks.js';
import { sectionsOfDraw, type TraceSections } from '../trace-sections.js';

export const DRAW_SUMMARY_SCHEMA = 'warptrace-draw-summary';

/** One draw's slice of a summary (`warptrace stats --draw N`); its optional sections cut to the draw (sectionsOfDraw). */
export interface DrawReport extends TraceSections {
  readonly schema: typeof DRAW_SUMMARY_SCHEMA;
  readonly schemaVersion: typeof SUMMARY_VERSION;
  readonly trace: AnalysisSummary['trace'];
  readonly reliability: AnalysisSummary['reliability'];
  readonly thresholds: AnalysisSummary['thresholds'];
  readonly draw: DrawSummary;
  /** Findings about this draw. */
  readonly findings: Finding[];
  /** Those findings grouped as in the summary (finding-groups.ts). */
  readonly findingGroups: FindingGroup[];
}

export function drawReport(summary: AnalysisSummary, draw: number): DrawReport {
  const d = summary.draws[draw];
  if (d === undefined) throw new RangeError(`no draw ${draw}: the trace has ${summary.draws.length} draws (0..${summary.draws.length - 1})`);
  const own = summary.findings.filter((f) => f.draw === draw);
  return {
    schema: DRAW_SUMMARY_SCHEMA,
    schemaVersion: SUMMARY_VERSION,
    trace: summary.trace,
    reliability: summary.reliability,
    thresholds: summary.thresholds,
    draw: d,
    findings: own,
    findingGroups: groupFindings(own, { minShare: summary.thresholds.findingGroupMinShare, idleWindows: summary.idle.windows }),
    ...sectionsOfDraw(summary, draw),
  };
}

export function summaryToJson(summary: AnalysisSummary | DrawReport | SummaryDiff, pretty = true): string {
  return `${JSON.stringify(summary, null, pretty ? 2 : undefined)}\n`;
}

/** summaryToJson's text in chunks, for files: a summary of 300,000 draws is longer than one string can be. */
export function* summaryJsonChunks(summary: AnalysisSummary | DrawReport | SummaryDiff, pretty = true): Generator<string, void, undefined> {
  yield* jsonChunks(summary, pretty ? 2 : 0);
  yield '\n';
}
