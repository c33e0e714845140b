/**
 * The Markdown report's sections for the summary's optional data
 * (analysis/trace-sections.ts): block profiles, phases between marks, ray
 * events. Bounded like the rest of the report (the JSON and CSV exports have
 * every entry); nothing at all for a summary without them.
 */
import type { BlockStat } from '../blocks.js';
import { formatNs, formatNumber, formatShare } from '../format.js';
import type { PhaseTable } from '../marks.js';
import { RAY_EVENTS, RAY_EVENT_LABELS } from '../../shared-schema/ray-event-model.js';
import type { BlockScope, BlockSection, RaySection, TraceSections } from '../trace-sections.js';
import { mdText } from './escape.js';
import { drawName, header, row } from './markdown-table.js';

/** Profiled draws whose hottest lines the report lists (those with the most SM cycles, then device ticks). */
export const MD_BLOCK_DRAWS = 10;
/** Phases listed (those with the most time, in table order). */
export const MD_PHASES = 50;
/** Trace-rays calls listed (those with the most trace calls, in draw order). */
export const MD_RAY_ROWS = 50;
/** Draws traced without a profile listed with their reasons. */
export const MD_SKIPPED = 12;
/** Characters of a line-less block's opcodes shown. */
const TEXT_CHARS = 72;

type Heading = '##' | '###';
type DrawNames = readonly { index: number; label: string }[];

const n = (v: number) => v.toLocaleString('en-US');
const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? '' : 's'}`;
const nameOf = (draws: DrawNames, d: number) => drawName(draws[d] ?? { index: d, label: '' });

/** Where an entry is: "file:line (k blocks)", or "#b opcodes" for a block without a line. */
function place(s: BlockStat): string {
  if (s.line !== null) return `${mdText(s.file ?? '?')}:${s.line}${s.blocks.length > 1 ? ` (${s.blocks.length} blocks)` : ''}`;
  const text = s.text ?? '?';
  const cut = text.length > TEXT_CHARS ? `${text.slice(0, Math.max(0, text.lastIndexOf(' ', TEXT_CHARS)))} …` : text;
  return `#${s.blocks[0]} ${mdText(cut)}`;
}

function blockRows(scope: BlockScope): string[] {
  return [
    header(['Module', 'Line', 'Function', 'Executions', 'SIMT', 'Ticks', 'Share', 'Time'], ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r']),
    ...scope.top.map((s) =>
      row([mdText(s.moduleName), place(s), mdText(s.function), n(s.executions), formatShare(s.simtEfficiency), `${n(s.ticks)} ${s.clock === 'sm' ? 'cycles' : 'ticks'}`, formatShare(s.tickShare), s.ns === null ? '–' : formatNs(s.ns)]),
    ),
  ];
}

/** The draws the capture layer traced without a profile, each with why (the first MD_SKIPPED, then counted). */
function skippedLines(skipped: NonNullable<BlockSection['skipped']>, draws: DrawNames): string[] {
  const them = skipped.length === 1 ? 'it' : 'them';
  const lines = [`${plural(skipped.length, 'traced draw')} got no block profile: the capture layer skipped ${them}.`, ''];
  for (const s of skipped.slice(0, MD_SKIPPED)) lines.push(`- Draw ${nameOf(draws, s.draw)}: ${mdText(s.why)}`);
  if (skipped.length > MD_SKIPPED) lines.push(`- … ${n(skipped.length - MD_SKIPPED)} more: --format json`);
  return lines;
}

function blockLines(b: BlockSection, draws: DrawNames, h: Heading): string[] {
  const lines = ['', `${h} Block profile`, ''];
  if (b.dropped > 0) lines.push(`> **Warning:** ${n(b.dropped)} block executions were dropped (their cells lay past the table): the counts are short.`, '');
  if (b.unprofiledDraws > 0) lines.push(`${plural(b.unprofiledDraws, 'traced draw')} got no row (the block table was full).`, '');
  if (b.skipped !== undefined && b.skipped.length > 0) lines.push(...skippedLines(b.skipped, draws), '');
  const sub = h === '##' ? '###' : '####';
  if (h === '###') {
    // A draw's report: that draw's lines only.
    const scope = b.draws[0];
    if (scope === undefined) return [...lines, 'This draw has no row in the block profile.'];
    lines.push(`The ${scope.top.length} hottest of ${plural(scope.entries, 'line')} this draw ran (subgroup size ${b.subgroupSize}; a line's blocks summed, blocks without a line alone).`, '', ...blockRows(scope));
    return lines;
  }
  lines.push(
    `${plural(b.draws.length, 'draw')} profiled (subgroup size ${b.subgroupSize}); per source line (a line's blocks summed, blocks without a line alone), hottest first. ` +
      `Over every profiled draw, the ${b.overall.top.length} hottest of ${plural(b.overall.entries, 'line')}; ` +
      `every draw's ${b.topPerDraw} hottest: --format json or csv --table blocks.`,
    '',
    ...blockRows(b.overall),
  );
  const shown = [...b.draws].sort((x, y) => y.totalTicks.sm - x.totalTicks.sm || y.totalTicks.device - x.totalTicks.device || (x.draw ?? 0) - (y.draw ?? 0)).slice(0, MD_BLOCK_DRAWS);
  shown.sort((x, y) => (x.draw ?? 0) - (y.draw ?? 0));
  if (shown.length < b.draws.length) lines.push('', `The ${shown.length} draws with the most ticks, in draw order:`);
  for (const scope of shown) lines.push('', `${sub} Draw ${nameOf(draws, scope.draw ?? 0)}: ${scope.top.length} hottest of ${plural(scope.entries, 'line')}`, '', ...blockRows(scope));
  return lines;
}

function phaseLines(t: PhaseTable, h: Heading): string[] {
  const orphans = t.orphans > 0 ? `; ${plural(t.orphans, 'orphan mark')} in the trace (their warps are not in it)` : '';
  const lines = ['', `${h} Phases`, '', `${plural(t.marks, 'mark')} on ${plural(t.warpsWithMarks, 'warp')}${orphans}. Per draw and stage, the time between marks (start → first mark, mark to mark, last mark → end).`];
  if (t.phases.length === 0) return lines;
  let shown = t.phases;
  if (shown.length > MD_PHASES) {
    const keep = new Set([...shown].sort((a, b) => b.totalNs - a.totalNs).slice(0, MD_PHASES));
    shown = shown.filter((p) => keep.has(p));
    lines.push('', `The ${MD_PHASES} phases with the most time of ${n(t.phases.length)} (all of them: --format json or csv --table phases).`);
  }
  lines.push('', header(['Draw', 'Stage', 'Phase', 'Warps', 'Total', 'Mean', 'Median', 'Max', 'Live lanes', 'Of stage'], ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
  for (const p of shown) {
    lines.push(row([String(p.draw), p.stageName, mdText(p.label), n(p.warps), formatNs(p.totalNs), formatNs(p.meanNs), formatNs(p.p50Ns), formatNs(p.maxNs), formatNumber(p.meanLiveLanes), formatShare(p.share)]));
  }
  return lines;
}

function rayLines(r: RaySection, draws: DrawNames, h: Heading): string[] {
  const notes: string[] = [];
  if (r.dropped > 0) notes.push(`${n(r.dropped)} events dropped`);
  if (r.uncountedTraversals > 0) notes.push(`${plural(r.uncountedTraversals, 'traversal')} without useless any-hits counted`);
  if (r.unprofiledLaunches > 0) notes.push(`${plural(r.unprofiledLaunches, 'trace-rays call')} without a row (the table was full)`);
  const lines = ['', `${h} Ray events`, '', `${plural(r.rows.length, 'trace-rays call')} profiled${notes.length > 0 ? `; ${notes.join('; ')}` : ''}.`];
  if (r.rows.length === 0) return lines;
  let shown = r.rows;
  if (shown.length > MD_RAY_ROWS) {
    const keep = new Set([...shown].sort((a, b) => b.totals.traceCalls - a.totals.traceCalls).slice(0, MD_RAY_ROWS));
    shown = shown.filter((x) => keep.has(x));
    lines.push('', `The ${MD_RAY_ROWS} with the most trace calls, in draw order (all of them: --format json or csv --table rays).`);
  }
  lines.push('', header(['Draw', 'Launches', 'Size', ...RAY_EVENTS.map((e) => RAY_EVENT_LABELS[e])], ['l', 'r', 'r', ...RAY_EVENTS.map(() => 'r' as const)]));
  for (const x of shown) {
    const size = `${x.launchWidth}×${x.launchHeight}${x.launchDepth > 1 ? `×${x.launchDepth}` : ''}${x.mixedSizes ? ' (mixed)' : ''}`;
    lines.push(row([nameOf(draws, x.draw), n(x.launches), size, ...RAY_EVENTS.map((e) => n(x.totals[e]))]));
  }
  return lines;
}

/** The sections' lines (each begins with a blank line); none for a summary without them. */
export function sectionLines(s: TraceSections, draws: DrawNames, h: Heading): string[] {
  return [...(s.blocks ? blockLines(s.blocks, draws, h) : []), ...(s.phases ? phaseLines(s.phases, h) : []), ...(s.rays ? rayLines(s.rays, draws, h) : [])];
}
