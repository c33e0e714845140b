import { phaseTable, type PhaseStat, type PhaseTable } from '../../analysis/marks.js';
import { csvField, mdText } from '../../analysis/export/escape.js';
import { formatNs, formatShare } from '../../analysis/format.js';
import { parseStageName, STAGES } from '../../shared-schema/stages.js';
import { InputError, UsageError, parseCommandArgs, reportFormat, type Command } from '../command.js';
import { readTraceFile } from '../files.js';
import { formatTable } from '../table.js';
import { drawRange } from './blocks.js';

export const phasesCommand: Command = {
  name: 'phases',
  summary: 'time between the marks inside warps (wtMark, instrument --marks), per draw and stage',
  help: `usage: warptrace phases FILE [--draw N|A..B] [--stage NAME] [--json | --csv | --md]

Cuts every warp of FILE (.wtrace, .wtraw or JSON captured with wtMark or
instrument --marks) that has marks into phases: start → first mark, each mark
→ the next, last mark → end. Per draw and stage, phases with the same ends
(the marks' ids: "before trace #0" is the instrumenter's mark before the
module's first trace call, "mark 7" the shader's wtMark(7)) are summed: warps,
total, mean, median and largest time, the mean live lanes where the phase
starts (the mark's lanes; a warp's first phase takes its first mark's), and
the phase's share of the time of all the stage's warps in the draw. Marks
whose warp is not in the trace (orphans) are counted, never placed.

Options:
  --draw N|A..B   only draw N, or draws A to B (inclusive); default: all
  --stage NAME    only this stage (VS, FS, CS, RAYGEN, CLOSEST_HIT, ...)
  --json          the table as JSON
  --csv           the table as CSV
  --md            the table as Markdown
  -h, --help

Examples:
  warptrace phases frame.wtrace
  warptrace phases capture.wtraw --stage RAYGEN --draw 3
  warptrace phases frame.wtrace --csv > phases.csv

Exit status: 0 ok, 1 unreadable file, no marks, or no such draw, 2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      draw: { type: 'string' },
      stage: { type: 'string' },
      json: { type: 'boolean' },
      csv: { type: 'boolean' },
      md: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const format = reportFormat(values);
    const range = values.draw === undefined ? null : drawRange(values.draw);
    const stage = values.stage === undefined ? null : parseStageName(values.stage);
    if (stage === undefined) throw new UsageError(`--stage: unknown stage "${values.stage}" (expected ${STAGES.map((s) => s.name).join(', ')})`);

    const trace = readTraceFile(positionals[0]!);
    if (trace.marks == null) throw new InputError(`${positionals[0]}: no marks (capture with wtMark or instrument --marks)`);
    if (range !== null && range[0] >= trace.draws.length) {
      throw new InputError(`no draw ${range[0]}: the trace has ${trace.draws.length} draw${trace.draws.length === 1 ? '' : 's'}`);
    }
    const draws = range === null ? null : new Set(Array.from({ length: Math.min(range[1], trace.draws.length - 1) - range[0] + 1 }, (_, k) => range[0] + k));
    const table = phaseTable(trace, { draws, stage });
    if (format === 'json') io.out(JSON.stringify(table, null, 2));
    else if (format === 'csv') io.out(csvLines(table.phases).join('\n'));
    else if (format === 'md') io.out(markdown(table));
    else io.out([headLine(table), '', formatTable(HEADERS, table.phases.map(cells))].join('\n'));
    return 0;
  },
};

const HEADERS = ['draw', 'stage', 'phase', 'warps', 'total', 'mean', 'p50', 'max', 'lanes', 'share'];

function cells(p: PhaseStat): (string | number)[] {
  return [p.draw, p.stageName, p.label, p.warps, formatNs(p.totalNs), formatNs(p.meanNs), formatNs(p.p50Ns), formatNs(p.maxNs), p.meanLiveLanes.toFixed(1), formatShare(p.share)];
}

function headLine(t: PhaseTable): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const orphans = t.orphans > 0 ? `; ${n(t.orphans)} orphan marks in the trace (their warps are not in it)` : '';
  return `${n(t.marks)} marks on ${n(t.warpsWithMarks)} warps${orphans}`;
}

function csvLines(phases: readonly PhaseStat[]): string[] {
  const header = ['draw', 'stage', 'from', 'to', 'phase', 'warps', 'occurrences', 'total_ns', 'mean_ns', 'p50_ns', 'max_ns', 'mean_live_lanes', 'share'];
  return [
    header.join(','),
    ...phases.map((p) => [p.draw, p.stageName, p.from, p.to, p.label, p.warps, p.occurrences, p.totalNs, p.meanNs, p.p50Ns, p.maxNs, p.meanLiveLanes, p.share].map(csvField).join(',')),
  ];
}

function markdown(t: PhaseTable): string {
  const rows = t.phases.map((p) => cells(p).map((c) => (typeof c === 'number' ? c.toLocaleString('en-US') : mdText(c))));
  return [
    mdText(headLine(t)),
    '',
    `| ${HEADERS.join(' | ')} |`,
    `|${HEADERS.map((_, k) => (k >= 3 ? ' ---: ' : ' --- ')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
