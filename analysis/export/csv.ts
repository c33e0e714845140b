/**
 * CSV tables of a summary: per stage, per draw, per draw × stage, findings.
 * One table per file (spreadsheets take one); times in ns, shares as fractions.
 */
import type { AnalysisSummary, DrawStageSummary, DurationStats } from '../summary.js';
import { csvField } from './escape.js';

export type CsvTable = 'stages' | 'draws' | 'draw-stages' | 'findings';
export const CSV_TABLES: readonly CsvTable[] = ['stages', 'draws', 'draw-stages', 'findings'];

function table(header: readonly string[], rows: readonly (readonly (string | number | boolean | null)[])[]): string {
  return [header.join(','), ...rows.map((r) => r.map(csvField).join(','))].join('\n') + '\n';
}

const DURATION_COLUMNS = ['warps', 'total_ns', 'mean_ns', 'median_ns', 'p90_ns', 'p99_ns', 'min_ns', 'max_ns', 'stddev_ns', 'mean_active_lanes', 'simt_efficiency', 'sms_used'];
const durationCells = (s: DurationStats) => [s.warps, s.totalNs, s.meanNs, s.medianNs, s.p90Ns, s.p99Ns, s.minNs, s.maxNs, s.stddevNs, s.meanActiveLanes, s.simtEfficiency, s.smsUsed];

export function stagesCsv(summary: AnalysisSummary): string {
  return table(
    ['stage', ...DURATION_COLUMNS, 'sms', 'peak_in_flight_per_sm', 'peak_sm', 'mean_in_flight_per_sm', 'time_at_peak_share', 'warps_per_sm', 'capacity_warps', 'device_mean_in_flight', 'device_mean_share_of_capacity'],
    summary.stages.map((s) => [
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
    ]),
  );
}

/** Per draw; only draw `draw` when given. */
export function drawsCsv(summary: AnalysisSummary, draw?: number): string {
  return table(
    ['draw', 'label', 'kind', 'warps', 'first_start_ns', 'last_end_ns', 'span_ns', 'warp_time_ns', 'overlap_ns', 'exclusive_ns', 'hidden_share', 'gap_before_ns', 'start_order', 'gpu_begin_ns', 'gpu_end_ns', 'idle_ns'],
    summary.draws.filter((d) => draw === undefined || d.index === draw).map((d) => [d.index, d.label, d.kind, d.warps, d.firstStartNs, d.lastEndNs, d.spanNs, d.warpTimeNs, d.overlapNs, d.exclusiveNs, d.hiddenShare, d.gapBeforeNs, d.startOrder, d.gpuBeginNs, d.gpuEndNs, d.idleNs]),
  );
}

/** Per draw × stage; only draw `draw` when given. */
export function drawStagesCsv(summary: AnalysisSummary, draw?: number): string {
  const rows: (string | number | null)[][] = [];
  for (const d of summary.draws) {
    if (draw !== undefined && d.index !== draw) continue;
    for (const s of d.stages as DrawStageSummary[]) {
      rows.push([d.index, d.label, s.stage, ...durationCells(s), s.occupancy?.peak ?? null, s.occupancy?.peakSm ?? null, s.occupancy?.meanWhileActive ?? null]);
    }
  }
  return table(['draw', 'label', 'stage', ...DURATION_COLUMNS, 'peak_in_flight_per_sm', 'peak_sm', 'mean_in_flight_per_sm'], rows);
}

export function findingsCsv(summary: AnalysisSummary, draw?: number): string {
  return table(
    ['id', 'kind', 'title', 'start_ns', 'end_ns', 'cost_ns', 'share_of_frame', 'sm', 'draw', 'stage', 'reliable', 'detail'],
    summary.findings
      .filter((f) => draw === undefined || f.draw === draw)
      .map((f) => [f.id, f.kind, f.title, f.startNs, f.endNs, f.costNs, f.shareOfFrame, f.sm, f.draw, f.stage, f.reliable, f.detail]),
  );
}

export function summaryCsv(summary: AnalysisSummary, which: CsvTable, draw?: number): string {
  switch (which) {
    case 'stages':
      return draw === undefined ? stagesCsv(summary) : drawStagesCsv(summary, draw);
    case 'draws':
      return drawsCsv(summary, draw);
    case 'draw-stages':
      return drawStagesCsv(summary, draw);
    case 'findings':
      return findingsCsv(summary, draw);
  }
}
