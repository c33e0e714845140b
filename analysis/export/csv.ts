/**
 * CSV tables of a summary: per stage, per draw, per draw × stage, findings,
 * and for traces with them block profiles, phases and ray events (csv-sections.ts).
 * One table per file (spreadsheets take one); times in ns, shares as fractions.
 */
import type { AnalysisSummary, DrawStageSummary, DurationStats, Finding } from '../summary.js';
import { groupFindings, groupMembers } from '../finding-groups.js';
import { tableChunks, type Cell } from './csv-table.js';
import { blockRows, BLOCK_COLUMNS, phaseRows, PHASE_COLUMNS, rayRows, RAY_COLUMNS } from './csv-sections.js';
import { passRows, PASS_COLUMNS } from './passes-report.js';
import { everyOf, SAMPLING_STAGE_COLUMNS, samplingStageCells } from './sampling-report.js';

/** The last four are the summary's optional sections: a summary without the section gives the header alone. */
export type CsvTable = 'stages' | 'draws' | 'draw-stages' | 'findings' | 'blocks' | 'phases' | 'rays' | 'passes';
export const CSV_TABLES: readonly CsvTable[] = ['stages', 'draws', 'draw-stages', 'findings', 'blocks', 'phases', 'rays', 'passes'];

function table(header: readonly string[], rows: Iterable<readonly Cell[]>): string {
  return Array.from(tableChunks(header, rows)).join('');
}

const DURATION_COLUMNS = ['warps', 'total_ns', 'mean_ns', 'median_ns', 'p90_ns', 'p99_ns', 'min_ns', 'max_ns', 'stddev_ns', 'mean_active_lanes', 'simt_efficiency', 'sms_used'];
const durationCells = (s: DurationStats) => [s.warps, s.totalNs, s.meanNs, s.medianNs, s.p90Ns, s.p99Ns, s.minNs, s.maxNs, s.stddevNs, s.meanActiveLanes, s.simtEfficiency, s.smsUsed];

const STAGE_COLUMNS = ['stage', ...DURATION_COLUMNS, 'sms', 'peak_in_flight_per_sm', 'peak_sm', 'mean_in_flight_per_sm', 'time_at_peak_share', 'warps_per_sm', 'capacity_warps', 'device_mean_in_flight', 'device_mean_share_of_capacity'];

function* stageRows(summary: AnalysisSummary): Generator<Cell[]> {
  for (const s of summary.stages) {
    yield [
      s.stage,
      ...durationCells(s),
      s.sms.join(' '),
      s.occupancy.perSm?.peak ?? null,
      s.occupancy.perSm?.peakSm ?? null,
      s.occupancy.perSm?.meanWhileActive ?? null,
      s.occupancy.perSm?.timeAtPeakShare ?? null,
      s.occupancy.warpsPerSm,
      s.occupancy.capacityWarps,
      s.occupancy.deviceMeanInFlight,
      s.occupancy.deviceMeanShareOfCapacity,
    ];
  }
}

const DRAW_COLUMNS = ['draw', 'label', 'kind', 'warps', 'first_start_ns', 'last_end_ns', 'span_ns', 'warp_time_ns', 'overlap_ns', 'exclusive_ns', 'hidden_share', 'gap_before_ns', 'start_order', 'gpu_begin_ns', 'gpu_end_ns', 'idle_ns'];

function* drawRows(summary: AnalysisSummary, draw?: number): Generator<Cell[]> {
  for (const d of summary.draws) {
    if (draw !== undefined && d.index !== draw) continue;
    yield [d.index, d.label, d.kind, d.warps, d.firstStartNs, d.lastEndNs, d.spanNs, d.warpTimeNs, d.overlapNs, d.exclusiveNs, d.hiddenShare, d.gapBeforeNs, d.startOrder, d.gpuBeginNs, d.gpuEndNs, d.idleNs];
  }
}

const DRAW_STAGE_COLUMNS = ['draw', 'label', 'stage', ...DURATION_COLUMNS, 'peak_in_flight_per_sm', 'peak_sm', 'mean_in_flight_per_sm'];

function* drawStageRows(summary: AnalysisSummary, draw?: number): Generator<Cell[]> {
  for (const d of summary.draws) {
    if (draw !== undefined && d.index !== draw) continue;
    for (const s of d.stages as DrawStageSummary[]) {
      const every = summary.sampling === undefined ? [] : [everyOf(summary.sampling, s.stage)];
      yield [d.index, d.label, s.stage, ...durationCells(s), s.occupancy?.peak ?? null, s.occupancy?.peakSm ?? null, s.occupancy?.meanWhileActive ?? null, ...every];
    }
  }
}

const FINDING_COLUMNS = [
  'id', 'kind', 'title', 'start_ns', 'end_ns', 'cost_ns', 'share_of_frame', 'sm', 'draw', 'stage', 'reliable', 'detail',
  'group', 'group_title', 'group_count', 'group_total_ns', 'group_median_ns', 'group_share_of_frame', 'group_hidden', 'remedy',
];

const findingCells = (f: Finding): Cell[] => [f.id, f.kind, f.title, f.startNs, f.endNs, f.costNs, f.shareOfFrame, f.sm, f.draw, f.stage, f.reliable, f.detail];

/**
 * Every finding, a row each, group by group (costliest group first, the hidden ones
 * last; members costliest first): each row names its group and the group's totals, so a
 * spreadsheet can filter or pivot by group and still read every member. With `draw`,
 * only that draw's findings, grouped among themselves (as the Markdown draw report does).
 */
function* findingRows(summary: AnalysisSummary, draw?: number): Generator<Cell[]> {
  const findings = draw === undefined ? summary.findings : summary.findings.filter((f) => f.draw === draw);
  const groups =
    draw === undefined
      ? summary.findingGroups
      : groupFindings(findings, { minShare: summary.thresholds.findingGroupMinShare, idleWindows: summary.idle.windows });
  const listed = new Set<string>();
  for (const g of groups) {
    for (const f of groupMembers(g, findings)) {
      listed.add(f.id);
      yield [...findingCells(f), g.id, g.title, g.count, g.totalNs, g.medianNs, g.shareOfFrame, g.hidden, f.remedy];
    }
  }
  // A finding no group names (a hand-edited summary): still listed, without a group.
  for (const f of findings) if (!listed.has(f.id)) yield [...findingCells(f), null, null, null, null, null, null, null, f.remedy];
}

export function stagesCsv(summary: AnalysisSummary): string {
  return Array.from(sampledStageChunks(summary)).join('');
}

/** Per draw; only draw `draw` when given. */
export function drawsCsv(summary: AnalysisSummary, draw?: number): string {
  return table(DRAW_COLUMNS, drawRows(summary, draw));
}

/** A sampled trace's draw × stage rows say each stage's rate (warps and times are then estimates). */
function drawStageColumns(summary: AnalysisSummary): string[] {
  return summary.sampling === undefined ? DRAW_STAGE_COLUMNS : [...DRAW_STAGE_COLUMNS, 'sampled_every'];
}

/** The stages table, with a sampled trace's estimate columns after the others. */
function sampledStageChunks(summary: AnalysisSummary): Generator<string, void, undefined> {
  const sampling = summary.sampling;
  if (sampling === undefined) return tableChunks(STAGE_COLUMNS, stageRows(summary));
  const rows = function* () {
    for (const [k, cells] of Array.from(stageRows(summary)).entries()) yield [...cells, ...samplingStageCells(sampling, summary.stages[k]!.stage)];
  };
  return tableChunks([...STAGE_COLUMNS, ...SAMPLING_STAGE_COLUMNS], rows());
}

/** Per draw × stage; only draw `draw` when given. */
export function drawStagesCsv(summary: AnalysisSummary, draw?: number): string {
  return table(drawStageColumns(summary), drawStageRows(summary, draw));
}

export function findingsCsv(summary: AnalysisSummary, draw?: number): string {
  return table(FINDING_COLUMNS, findingRows(summary, draw));
}

/** One table's text in chunks (for files: the same text as the functions above). */
export function summaryCsvChunks(summary: AnalysisSummary, which: CsvTable, draw?: number): Generator<string, void, undefined> {
  switch (which) {
    case 'stages':
      return draw === undefined ? sampledStageChunks(summary) : tableChunks(drawStageColumns(summary), drawStageRows(summary, draw));
    case 'draws':
      return tableChunks(DRAW_COLUMNS, drawRows(summary, draw));
    case 'draw-stages':
      return tableChunks(drawStageColumns(summary), drawStageRows(summary, draw));
    case 'findings':
      return tableChunks(FINDING_COLUMNS, findingRows(summary, draw));
    case 'blocks':
      return tableChunks(BLOCK_COLUMNS, blockRows(summary, draw));
    case 'phases':
      return tableChunks(PHASE_COLUMNS, phaseRows(summary, draw));
    case 'rays':
      return tableChunks(RAY_COLUMNS, rayRows(summary, draw));
    case 'passes':
      // Passes are of the whole frame: --draw does not cut them.
      return tableChunks(PASS_COLUMNS, passRows(summary));
  }
}

export function summaryCsv(summary: AnalysisSummary, which: CsvTable, draw?: number): string {
  return Array.from(summaryCsvChunks(summary, which, draw)).join('');
}
