/**
 * The cost per pass (analysis/passes.ts) as rows for reports: the pass tree in
 * region order, indented by depth, as text cells (the CLI's `warptrace passes`,
 * the Markdown report's "Passes") and as a CSV table (`--table passes`).
 */
import { formatNs, formatNumber, formatShare } from '../format.js';
import type { PassCost, PassSection, PassStat } from '../passes.js';
import type { AnalysisSummary } from '../summary.js';
import type { Cell } from './csv-table.js';

export const PASS_HEADERS = ['Pass', 'Draws', 'Warps', 'Span', 'Busy', 'Warp-time', 'Of frame', 'Stages (warp-time)'] as const;
/** Text columns (left-aligned); the others are numbers. */
export const PASS_TEXT_COLUMNS: ReadonlySet<number> = new Set([0, 7]);

/** "FS 61%, VS 30%": the stages with the most warp-time (named as the reports name them), their share of the pass's. */
export function stageMix(cost: PassCost, top = 3): string {
  const entries = Object.entries(cost.stageWarpTimeNs) as [string, number][];
  if (cost.warpTimeNs <= 0 || entries.length === 0) return '–';
  return entries
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([stage, ns]) => `${stage} ${formatShare(ns / cost.warpTimeNs, 0)}`)
    .join(', ');
}

/** The passes shown: region order, to `maxDepth` (inclusive; null: all). */
export function passesToDepth(section: PassSection, maxDepth: number | null): PassStat[] {
  return section.passes.filter((p) => maxDepth === null || p.depth <= maxDepth);
}

/** A pass as text cells (the label as it is), and its depth for the indent. */
export interface PassTextRow {
  readonly depth: number;
  readonly cells: readonly string[];
}

/** One row of text cells. */
export function passCells(label: string, cost: PassCost): string[] {
  return [
    label,
    formatNumber(cost.draws),
    formatNumber(cost.warps),
    formatNs(cost.spanNs),
    formatNs(cost.busyNs),
    formatNs(cost.warpTimeNs),
    formatShare(cost.shareOfFrame),
    stageMix(cost),
  ];
}

/** Rows for the passes to `maxDepth`, then one for the draws in no region (when there are any). */
export function passTextRows(section: PassSection, maxDepth: number | null): PassTextRow[] {
  const rows = passesToDepth(section, maxDepth).map((p) => ({ depth: p.depth, cells: passCells(p.label, p) }));
  if (section.outside.draws > 0) rows.push({ depth: 0, cells: passCells('(in no pass)', section.outside) });
  return rows;
}

export const PASS_COLUMNS = [
  'region', 'label', 'parent', 'depth', 'source', 'draws', 'untraced_draws', 'warps', 'first_draw', 'last_draw',
  'first_start_ns', 'last_end_ns', 'span_ns', 'busy_ns', 'warp_time_ns', 'share_of_frame', 'share_of_warp_time',
];

const costCells = (c: PassCost): Cell[] => [c.draws, c.untracedDraws, c.warps];
const timeCells = (c: PassCost): Cell[] => [c.firstStartNs, c.lastEndNs, c.spanNs, c.busyNs, c.warpTimeNs, c.shareOfFrame, c.shareOfWarpTime];

/** Every pass, then the draws in no region (region, depth and source empty). */
export function* passRows(summary: AnalysisSummary): Generator<Cell[]> {
  const section = summary.passes;
  if (section === undefined) return;
  for (const p of section.passes) yield [p.region, p.label, p.parent, p.depth, p.source, ...costCells(p), p.firstDraw, p.lastDraw, ...timeCells(p)];
  const o = section.outside;
  if (o.draws > 0) yield [null, '(in no pass)', null, null, null, ...costCells(o), null, null, ...timeCells(o)];
}

/** Passes a Markdown report lists (region order, the shallowest depths that fit); the JSON and CSV have every one. */
export const MD_PASS_ROWS = 60;

/** The Markdown report's "Passes" section (nothing for a summary without regions). */
export function passMarkdownLines(section: PassSection | undefined, h: '##' | '###', mdText: (s: string) => string): string[] {
  if (section === undefined) return [];
  let depth = 0;
  while (passesToDepth(section, depth + 1).length <= MD_PASS_ROWS && section.passes.some((p) => p.depth > depth)) depth++;
  const rows = passTextRows(section, depth);
  const listed = passesToDepth(section, depth).length;
  const lines = [
    '',
    `${h} Passes`,
    '',
    `Busy: time some warp of the pass ran on some SM; of frame: busy / the frame's span.` +
      (listed < section.passes.length ? ` Passes to depth ${depth} (${listed} of ${section.passes.length}: all with warptrace passes).` : ''),
    '',
    ...passMarkdownTable(rows, mdText),
  ];
  return lines;
}

/** Text rows (passTextRows) as a Markdown table. */
export function passMarkdownTable(rows: readonly PassTextRow[], mdText: (s: string) => string): string[] {
  const lines = [`| ${PASS_HEADERS.join(' | ')} |`, `|${PASS_HEADERS.map((_, k) => (PASS_TEXT_COLUMNS.has(k) ? ' --- ' : ' ---: ')).join('|')}|`];
  // Markdown drops leading spaces: depth shows as a prefix of "· ".
  for (const r of rows) lines.push(`| ${'· '.repeat(r.depth)}${mdText(r.cells[0]!)} | ${r.cells.slice(1).map(mdText).join(' | ')} |`);
  return lines;
}
