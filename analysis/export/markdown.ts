/**
 * Markdown reports to paste into a review: the summary (or one draw of it)
 * and A/B diffs. Every trace string goes through mdText.
 */
import type { Delta, DrawDiff, SummaryDiff } from '../diff.js';
import { changeText } from '../diff-noise.js';
import { isEstimated, sideText } from '../diff-sampling.js';
import type { MatchHow } from '../draw-match.js';
import { formatChange, formatNs, formatNumber, formatShare, gapBeforeCell, gapBeforeText, smLabel } from '../format.js';
import type { AnalysisSummary, DrawSummary, DurationStats, Finding, FindingGroup, StageSummary } from '../summary.js';
import { groupFindings } from '../finding-groups.js';
import { changedThresholds } from '../thresholds.js';
import { mdText } from './escape.js';
import { formatSmRanges } from '../../shared-schema/units.js';
import { drawName, header, row } from './markdown-table.js';
import { sectionLines } from './markdown-sections.js';
import { sectionsOfDraw } from '../trace-sections.js';
import { passMarkdownLines } from './passes-report.js';
import { samplingMarkdownLines } from './sampling-report.js';

export interface MarkdownOptions {
  /** Only this draw. */
  readonly draw?: number;
  /** Most draws listed (the longest spans, in draw order); default 50. */
  readonly maxDraws?: number;
}


function overview(s: AnalysisSummary): string[] {
  const t = s.trace;
  const lines = [
    `${mdText(t.device)} · ${formatNumber(t.warps)} warps${s.sampling !== undefined ? ' recorded' : ''} · ${formatNumber(t.draws)} draws · ${s.frame.smsUsed} SMs used${t.smCount !== null ? ` of ${t.smCount}` : ''} · captured ${mdText(t.capturedAt)}`,
    '',
    s.sampling !== undefined
      ? `Frame: ${formatNs(s.frame.spanNs)} from first warp to last; warp-time ≈ ${formatNs(s.frame.warpTimeNs)}; busy and idle time withheld (sampled trace, below).`
      : `Frame: ${formatNs(s.frame.spanNs)} from first warp to last; warp-time ${formatNs(s.frame.warpTimeNs)}; some draw open for ${formatNs(s.frame.drawBusyNs)}, ` +
        `some warp running for ${formatNs(s.frame.gpuBusyNs)} (no warp on any SM for ${formatNs(s.frame.drawBusyNs - s.frame.gpuBusyNs)} inside draws, ` +
        `${formatNs(s.frame.spanNs - s.frame.drawBusyNs)} between them).`,
  ];
  if (t.dropped > 0) lines.push('', `**Dropped records: ${formatNumber(t.dropped)} of ${formatNumber(t.recordsWritten)}** (trace buffer full).`);
  if (t.overheadRatio !== null) lines.push('', `Tracing overhead: frame time ×${t.overheadRatio.toFixed(3)} (traced vs plain, same run).`);
  for (const w of s.reliability.warnings) lines.push('', `> **Warning:** ${mdText(w)}`);
  return lines;
}

/** Finding groups listed in a Markdown report; the JSON and CSV exports have every group and finding. */
const MAX_MD_GROUPS = 20;
/** Members named per group in the details. */
const MAX_MD_MEMBERS = 5;

function groupRows(groups: readonly FindingGroup[], from: number): string[] {
  return [
    header(['#', 'Finding', 'Count', 'Cost', 'Of frame', 'When', 'Reliable'], ['r', 'l', 'r', 'r', 'r', 'l', 'l']),
    ...groups.map((g, i) =>
      row([
        String(from + i),
        mdText(g.title),
        formatNumber(g.count),
        g.totalNs > 0 ? formatNs(g.totalNs) : '–',
        g.totalNs > 0 ? formatShare(g.shareOfFrame) : '–',
        `${formatNs(g.startNs)} – ${formatNs(g.endNs)}${g.sm !== null ? `, ${smLabel(g.sm)}` : ''}`,
        g.reliable ? 'yes' : 'no (clocks)',
      ]),
    ),
  ];
}

/** Groups, costliest first; those below the threshold after the others, under their own heading. */
function findingsSection(groups: readonly FindingGroup[], findings: readonly Finding[], minShare: number, sampled = false): string[] {
  // A sampled trace's detectors of gaps and occupancy are withheld: their silence is no "none".
  if (groups.length === 0) return ['## Findings', '', sampled ? 'None reported: syncs, idle windows, leftovers and stalls are withheld in a sampled trace (see "Sampled trace").' : 'None at the current thresholds.'];
  const shown = groups.filter((g) => !g.hidden);
  const hidden = groups.filter((g) => g.hidden);
  const listed = [...shown, ...hidden].slice(0, MAX_MD_GROUPS);
  const listedShown = listed.filter((g) => !g.hidden);
  const listedHidden = listed.filter((g) => g.hidden);
  const lines = [
    '## Findings',
    '',
    `${findings.length} finding${findings.length === 1 ? '' : 's'} in ${groups.length} group${groups.length === 1 ? '' : 's'} (same kind and cause), costliest first.` +
      (listed.length < groups.length ? ` The ${listed.length} costliest groups (all of them: --format json or csv --table findings).` : ''),
    '',
  ];
  if (listedShown.length > 0) lines.push(...groupRows(listedShown, 1));
  else lines.push(`None at or above ${formatShare(minShare)} of the frame.`);
  if (listedHidden.length > 0) {
    lines.push('', `### ${hidden.length} more below ${formatShare(minShare)} of the frame`, '', ...groupRows(listedHidden, listedShown.length + 1));
  }
  lines.push('');
  const byId = new Map(findings.map((f) => [f.id, f]));
  listed.forEach((g, i) => {
    const members = g.findingIds.flatMap((id) => byId.get(id) ?? []);
    const first = members[0];
    if (first === undefined) return;
    const remedy = first.remedy !== null ? ` **What to do:** ${mdText(first.remedy)}` : '';
    if (members.length === 1) {
      lines.push(`${i + 1}. ${mdText(first.detail)}${remedy}`);
      return;
    }
    const named = members.slice(0, MAX_MD_MEMBERS).map((m) => `${mdText(m.title)} (at ${formatNs(m.startNs)})`);
    const more = members.length - named.length;
    lines.push(`${i + 1}. ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}. The costliest: ${mdText(first.detail)}${remedy}`);
  });
  return lines;
}

const DURATION_HEAD = ['Warps', 'Warp-time', 'Mean', 'Median', 'p90', 'p99', 'Max', 'σ', 'Active lanes', 'SMs'];
const durationCells = (s: DurationStats) => [
  formatNumber(s.warps),
  formatNs(s.totalNs),
  formatNs(s.meanNs),
  formatNs(s.medianNs),
  formatNs(s.p90Ns),
  formatNs(s.p99Ns),
  formatNs(s.maxNs),
  formatNs(s.stddevNs),
  `${formatNumber(s.meanActiveLanes)} (${formatShare(s.simtEfficiency, 0)})`,
  String(s.smsUsed),
];

function stagesSection(stages: readonly StageSummary[], sampling?: AnalysisSummary['sampling']): string[] {
  const lines = ['## Stages', '', header(['Stage', ...DURATION_HEAD], ['l', ...DURATION_HEAD.map(() => 'r' as const)])];
  // A sampled stage's warps and warp-time are estimates: its name says so.
  for (const s of stages) lines.push(row([(sampling?.every[s.stage] ?? 1) > 1 ? `${s.stage} (≈, 1 in ${sampling!.every[s.stage]})` : s.stage, ...durationCells(s)]));
  lines.push('', '## Occupancy', '', header(['Stage', 'Peak on one SM', 'SM', 'Mean per SM while running', 'At peak', 'Slots per SM', 'Capacity', 'Device mean', 'Of capacity'], ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
  for (const s of stages) {
    const o = s.occupancy;
    lines.push(
      row([
        s.stage,
        o.perSm ? String(o.perSm.peak) : '–',
        o.perSm ? String(o.perSm.peakSm) : '–',
        o.perSm ? formatNumber(o.perSm.meanWhileActive) : '–',
        o.perSm ? formatShare(o.perSm.timeAtPeakShare, 0) : '–',
        formatNumber(o.warpsPerSm),
        formatNumber(o.capacityWarps),
        formatNumber(o.deviceMeanInFlight),
        formatShare(o.deviceMeanShareOfCapacity),
      ]),
    );
  }
  lines.push('');
  for (const s of stages) {
    const o = s.occupancy;
    if (o.perSm) {
      lines.push(
        `- ${s.stage}: at most ${o.perSm.peak} ${s.stage} warps ran at once on an SM (${smLabel(o.perSm.peakSm)} at ${formatNs(o.perSm.peakAtNs)})` +
          `${o.warpsPerSm !== null ? `, ${formatShare(o.perSm.peak / o.warpsPerSm, 0)} of its ${o.warpsPerSm} slots` : ''}; ` +
          `${formatNumber(o.perSm.meanWhileActive)} on average while running; on SMs ${formatSmRanges(s.sms)}.`,
      );
    }
    if (o.unknownSm) lines.push(`- ${s.stage} (no SM id): at most ${o.unknownSm.peak} warps at once device-wide; ${formatNumber(o.unknownSm.meanWhileActive)} on average.`);
  }
  return lines;
}


function drawsSection(draws: readonly DrawSummary[], maxDraws: number): string[] {
  let shown = draws.filter((d) => d.warps > 0);
  const total = shown.length;
  if (shown.length > maxDraws) {
    const keep = new Set([...shown].sort((a, b) => (b.spanNs ?? 0) - (a.spanNs ?? 0)).slice(0, maxDraws).map((d) => d.index));
    shown = shown.filter((d) => keep.has(d.index));
  }
  const lines = ['## Draws', ''];
  if (shown.length < total) lines.push(`The ${shown.length} longest of ${total} draws with warps, in draw order.`, '');
  lines.push(header(['Draw', 'Kind', 'Warps', 'Start', 'Span', 'Warp-time', 'Overlapped', 'Hidden', 'Gap before', 'SMs idle', 'Stages'], ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l']));
  for (const d of shown) {
    lines.push(
      row([
        drawName(d),
        d.kind,
        formatNumber(d.warps),
        formatNs(d.firstStartNs),
        formatNs(d.spanNs),
        formatNs(d.warpTimeNs),
        formatNs(d.overlapNs),
        formatShare(d.hiddenShare, 0),
        gapBeforeCell(d.gapBeforeNs),
        formatNs(d.idleNs),
        d.stages.map((s) => s.stage).join(' '),
      ]),
    );
  }
  return lines;
}

function drawDetail(s: AnalysisSummary, d: DrawSummary): string[] {
  const lines = [
    s.sampling !== undefined
      ? `Draw ${drawName(d)} (${d.kind}): ≈ ${formatNumber(d.warps)} warps, span ${formatNs(d.spanNs)} (of its recorded warps) from ${formatNs(d.firstStartNs)}, warp-time ≈ ${formatNs(d.warpTimeNs)}; overlap, gap before and idle time withheld (sampled trace).`
      : `Draw ${drawName(d)} (${d.kind}): ${formatNumber(d.warps)} warps, span ${formatNs(d.spanNs)} from ${formatNs(d.firstStartNs)}, warp-time ${formatNs(d.warpTimeNs)}; ` +
        `overlapped by other draws for ${formatNs(d.overlapNs)} (${formatShare(d.hiddenShare, 0)} hidden); ${gapBeforeText(d.gapBeforeNs)}; ` +
        `no warp on any SM for ${formatNs(d.idleNs)} of its span.`,
    '',
    header(['Stage', ...DURATION_HEAD, 'Peak on one SM', 'Mean per SM'], ['l', ...DURATION_HEAD.map(() => 'r' as const), 'r', 'r']),
  ];
  for (const st of d.stages) lines.push(row([st.stage, ...durationCells(st), formatNumber(st.occupancy?.peak), formatNumber(st.occupancy?.meanWhileActive)]));
  const own = s.findings.filter((f) => f.draw === d.index);
  const minShare = s.thresholds.findingGroupMinShare;
  lines.push('', ...findingsSection(groupFindings(own, { minShare, idleWindows: s.idle.windows }), own, minShare, s.sampling !== undefined));
  return lines;
}

export function summaryToMarkdown(s: AnalysisSummary, options: MarkdownOptions = {}): string {
  const lines = [`# warptrace: ${mdText(s.trace.workload)}`, '', ...overview(s), '', ...samplingMarkdownLines(s)];
  if (s.sampling !== undefined) lines.push('');
  if (options.draw !== undefined) {
    const d = s.draws[options.draw];
    if (d === undefined) throw new RangeError(`no draw ${options.draw}: the trace has ${s.draws.length} draws`);
    lines.push(`## Draw ${drawName(d)}`, '', ...drawDetail(s, d), ...sectionLines(sectionsOfDraw(s, d.index), s.draws, '###'));
  } else {
    // A loop, not push(...): maxDraws may let through every one of 150,000 draws.
    for (const section of [findingsSection(s.findingGroups, s.findings, s.thresholds.findingGroupMinShare, s.sampling !== undefined), [''], stagesSection(s.stages, s.sampling), [''], passMarkdownLines(s.passes, '##', mdText), [''], drawsSection(s.draws, options.maxDraws ?? 50), sectionLines(s, s.draws, '##')]) {
      for (const line of section) lines.push(line);
    }
  }
  const changed = new Map(changedThresholds(s.thresholds).map((c) => [c.name as string, c.defaultValue]));
  lines.push('', `<details><summary>Thresholds${changed.size > 0 ? ` (${changed.size} changed from the defaults)` : ''}</summary>`, '');
  for (const [name, value] of Object.entries(s.thresholds)) lines.push(`- \`${name}\` = ${value}${changed.has(name) ? ` (default ${changed.get(name)})` : ''}`);
  lines.push('', '</details>', '');
  return lines.join('\n');
}

const pct = (d: Delta) => formatChange(d.relative);
const ns = (v: number | null) => formatNs(v);
const num = (v: number | null) => formatNumber(v);

const PAIRED_BY: Record<MatchHow, string> = { 'label-pass': 'label and pass', order: 'pass and order', label: 'label', pipeline: 'pipeline', index: 'index only' };

/** 'A 12 "its label", pass and order' (A's label where it differs; weak pairs say so), or "only in A" / "only in B". */
function pairedText(x: DrawDiff): string {
  if (x.indexA === null) return 'only in B';
  if (x.indexB === null) return 'only in A';
  const name = drawName({ index: x.indexA, label: x.labelA !== x.labelB ? (x.labelA ?? '') : '' });
  return `A ${name}, ${PAIRED_BY[x.matchedBy!]}${x.confidence === 'weak' ? ' (weak)' : ''}`;
}

/** Both sides (diff-sampling.ts's sideText) and the change; a change from an estimate is an estimate, with its ± and verdict (diff-noise.ts). */
function pairCells(d: SummaryDiff, x: Delta, format: (v: number | null) => string, stages: readonly string[] | null, withheld = false): [string, string, string] {
  const a = sideText(d.sampling, 'a', x.a, format, stages, withheld);
  const b = sideText(d.sampling, 'b', x.b, format, stages, withheld);
  const estimated = !withheld && x.relative !== null && (x.noise !== undefined || isEstimated(d.sampling, 'a', stages) || isEstimated(d.sampling, 'b', stages));
  return [a, b, estimated ? changeText(x, true) : pct(x)];
}

function sideLine(label: string, t: SummaryDiff['a'], sampled: string | null): string {
  return `- **${mdText(label)}**: ${mdText(t.workload)} on ${mdText(t.device)}, ${formatNumber(t.warps)} warps${sampled === null ? '' : ` recorded (sampled: ${mdText(sampled)})`}`;
}

export function diffToMarkdown(d: SummaryDiff, labels: { a: string; b: string } = { a: 'A', b: 'B' }): string {
  const sampledA = isEstimated(d.sampling, 'a') ? d.sampling!.describeA : null;
  const sampledB = isEstimated(d.sampling, 'b') ? d.sampling!.describeB : null;
  const lines = ['# warptrace diff', '', sideLine(labels.a, d.a, sampledA), sideLine(labels.b, d.b, sampledB), ''];
  for (const w of d.warnings) lines.push(`> **Warning:** ${mdText(w)}`, '');
  if (d.highlights.length > 0) lines.push('## Highlights', '', ...d.highlights.map((h) => `- ${mdText(h)}`), '');
  lines.push('## Frame', '', header(['', labels.a, labels.b, 'Change'], ['l', 'r', 'r', 'r']));
  // Span and warp-time are estimates on a sampled side; the rest is withheld there.
  const frameRows: [string, Delta, (v: number | null) => string, boolean][] = [
    ['Span', d.frame.spanNs, ns, false],
    ['Warp-time', d.frame.warpTimeNs, ns, false],
    ['Draws open', d.frame.drawBusyNs, ns, true],
    ['Warps running', d.frame.gpuBusyNs, ns, true],
    ['Syncs', d.syncs.count, num, true],
    ['Time lost to syncs', d.syncs.totalNs, ns, true],
    ['Idle windows inside draws', d.idle.count, num, true],
    ['SMs idle inside draws', d.idle.totalNs, ns, true],
    ['Leftover tails', d.leftovers.count, num, true],
    ['Leftover time', d.leftovers.totalNs, ns, true],
    ['Stalls', d.stalls.count, num, true],
    ['Stalled time', d.stalls.totalNs, ns, true],
  ];
  for (const [name, x, f, withheld] of frameRows) lines.push(row([name, ...pairCells(d, x, f, null, withheld)]));
  lines.push(
    '',
    '## Stages',
    '',
    header(['Stage', 'Warps', 'Mean', 'Change', 'Median', 'p90', 'p99', 'Warp-time', 'Share', 'Peak on one SM'], ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']),
  );
  for (const s of d.stages) {
    const one = [s.stage];
    const arrow = (x: Delta, f: (v: number | null) => string, withheld = false) => {
      const [a, b] = pairCells(d, x, f, one, withheld);
      return `${a} → ${b}`;
    };
    const change = (x: Delta) => pairCells(d, x, ns, one)[2];
    lines.push(
      row([
        s.stage,
        arrow(s.warps, num),
        arrow(s.meanNs, ns),
        change(s.meanNs),
        change(s.medianNs),
        change(s.p90Ns),
        change(s.p99Ns),
        change(s.totalNs),
        change(s.shareOfWarpTime),
        arrow(s.peakPerSm, num, true),
      ]),
    );
  }
  lines.push('', '## Draws', '', header(['Draw', 'Paired', 'Span', 'Change', 'Warp-time', 'Change', 'Overlapped', 'Warps'], ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r']));
  for (const x of d.draws) {
    const label = x.labelB ?? x.labelA ?? '';
    const stages = x.stages.map((s) => s.stage);
    const [spanA, spanB, spanChange] = pairCells(d, x.spanNs, ns, stages);
    const [timeA, timeB, timeChange] = pairCells(d, x.warpTimeNs, ns, stages);
    // A sampled trace withholds every draw's overlap, whichever stages the draw has.
    const [overlapA, overlapB] = pairCells(d, x.overlapNs, ns, null, true);
    const [warpsA, warpsB] = pairCells(d, x.warps, num, stages);
    lines.push(row([drawName({ index: x.index, label }), pairedText(x), `${spanA} → ${spanB}`, spanChange, `${timeA} → ${timeB}`, timeChange, `${overlapA} → ${overlapB}`, `${warpsA} → ${warpsB}`]));
  }
  lines.push('');
  return lines.join('\n');
}
