/**
 * CSV tables of the summary's optional sections (analysis/trace-sections.ts):
 * block profiles (`blocks`: every profiled draw's hottest lines, then those
 * over all draws), phases between marks (`phases`: the columns of `warptrace
 * phases --csv`) and ray events (`rays`: per trace-rays call). With `draw`,
 * only that draw's rows. A summary without the section has none.
 */
import { RAY_EVENTS } from '../../shared-schema/ray-event-model.js';
import type { BlockStat } from '../blocks.js';
import type { AnalysisSummary } from '../summary.js';
import { RAY_EVENT_KEYS, type BlockScope } from '../trace-sections.js';
import type { Cell } from './csv-table.js';

/** `scope` is "draw" (its draw in `draw`) or "all" (every profiled draw); `rank` counts from 1 within the scope. */
export const BLOCK_COLUMNS = [
  'scope', 'draw', 'rank', 'module', 'blocks', 'function', 'file', 'line', 'text',
  'executions', 'lanes', 'simt_efficiency', 'ticks', 'clock', 'tick_share', 'ns', 'scope_sm_ticks', 'scope_device_ticks',
];

const blockCells = (scope: BlockScope, rank: number, s: BlockStat): Cell[] => [
  scope.draw === null ? 'all' : 'draw',
  scope.draw,
  rank,
  s.moduleName,
  s.blocks.join(' '),
  s.function,
  s.file,
  s.line,
  s.text,
  s.executions,
  s.lanes,
  s.simtEfficiency,
  s.ticks,
  s.clock,
  s.tickShare,
  s.ns,
  scope.totalTicks.sm,
  scope.totalTicks.device,
];

export function* blockRows(summary: AnalysisSummary, draw?: number): Generator<Cell[]> {
  const section = summary.blocks;
  if (section === undefined) return;
  const scopes = draw === undefined ? [...section.draws, section.overall] : section.draws.filter((d) => d.draw === draw);
  for (const scope of scopes) {
    for (let k = 0; k < scope.top.length; k++) yield blockCells(scope, k + 1, scope.top[k]!);
  }
}

export const PHASE_COLUMNS = ['draw', 'stage', 'from', 'to', 'phase', 'warps', 'occurrences', 'total_ns', 'mean_ns', 'p50_ns', 'max_ns', 'mean_live_lanes', 'share'];

export function* phaseRows(summary: AnalysisSummary, draw?: number): Generator<Cell[]> {
  for (const p of summary.phases?.phases ?? []) {
    if (draw !== undefined && p.draw !== draw) continue;
    yield [p.draw, p.stageName, p.from, p.to, p.label, p.warps, p.occurrences, p.totalNs, p.meanNs, p.p50Ns, p.maxNs, p.meanLiveLanes, p.share];
  }
}

export const RAY_COLUMNS = ['draw', 'label', 'launches', 'launch_width', 'launch_height', 'launch_depth', 'mixed_sizes', ...RAY_EVENTS.map((e) => RAY_EVENT_KEYS[e])];

export function* rayRows(summary: AnalysisSummary, draw?: number): Generator<Cell[]> {
  for (const r of summary.rays?.rows ?? []) {
    if (draw !== undefined && r.draw !== draw) continue;
    const label = summary.draws[r.draw]?.label ?? null;
    yield [r.draw, label, r.launches, r.launchWidth, r.launchHeight, r.launchDepth, r.mixedSizes, ...RAY_EVENTS.map((e) => r.totals[e])];
  }
}
