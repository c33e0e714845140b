import { analyzeTrace, type AnalysisSummary } from '../../analysis/index.js';
import { summaryCsvChunks, type CsvTable } from '../../analysis/export/csv.js';
import { summaryJsonChunks } from '../../analysis/export/json.js';
import { summaryToMarkdown } from '../../analysis/export/markdown.js';
import { perfettoJsonChunks, type PerfettoStats } from '../../analysis/export/perfetto.js';
import { perfettoProtoChunks, type PerfettoProtoStats } from '../../analysis/export/perfetto-proto.js';
import { checkOutputs, formatBytes, readTraceFile, writeFileAtomic, type Output } from '../files.js';
import { InputError, UsageError, parseCommandArgs, type Command } from '../command.js';
import { missingSection, THRESHOLD_OPTION, thresholdsFrom } from './analysis-shared.js';
import { PARQUET_HELP, checkParquetDir, parquetOutputs, writeParquetTables } from './export-parquet.js';
import { SCREEN_HELP, SCREEN_OPTIONS, renderScreenExport, screenExportSpec } from './export-screen.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'export a trace for Perfetto (protobuf or Chrome JSON), its tables as Parquet, its statistics as JSON, Markdown or CSV, or its screen image as PNG',
  help: `usage: warptrace export FILE [--perfetto OUT [--perfetto-format proto|json]
                        [--perfetto-names stage|stage-draw]] [--json OUT] [--md OUT]
                        [--csv-stages OUT] [--csv-draws OUT] [--csv-draw-stages OUT]
                        [--csv-findings OUT] [--csv-blocks OUT] [--csv-phases OUT]
                        [--csv-rays OUT] [--parquet DIR] [--no-findings] [--no-draw-labels]
                        [--no-phases] [--threshold NAME=VALUE]... [--force]
       warptrace export FILE --screen METRIC [--draw N] [--until NS] [--stage S[,S]] -o OUT.png

Writes one or more files from FILE (.wtrace, .wtraw or warptrace JSON):

  --perfetto OUT   a trace for ui.perfetto.dev: a process per SM, a thread per
                   warp slot ("SM n / slot k"), a slice per warp named by stage.
                   Perfetto's protobuf format (OUT.perfetto-trace; ~25 B/warp,
                   integer ns): plus "Draws" and, when the capture recorded
                   regions, nested "Regions" tracks. With marks, each warp's
                   phases between them are slices nested in its slice, named
                   as warptrace phases names them ("start → before trace
                   #0"; ~23 B a phase). With block profiles or ray events,
                   the draw slices carry args block_profile (the draw's 10
                   hottest source lines) and ray_events (launches, size,
                   totals per event), in Perfetto's SQL as
                   debug.block_profile[0].tick_share, debug.ray_events.*.
  --perfetto-format proto|json
                   proto (default), or Chrome JSON (the default when OUT ends
                   in .json) for small traces and chrome://tracing: args {draw,
                   drawLabel, customId, activeLanes} on every warp, ts/dur in
                   µs, "Draws" and "Findings" tracks; ~170 B/warp.
  --perfetto-names stage|stage-draw
                   protobuf warp slice names: "FS" (default) or "FS draw 12"
                   (~36 B/warp when draws spread over every SM).
  --json OUT       the analysis summary (versioned JSON schema)
  --md OUT         the Markdown report
  --csv-stages OUT, --csv-draws OUT, --csv-draw-stages OUT, --csv-findings OUT
                   CSV tables; for traces with them --csv-blocks OUT,
                   --csv-phases OUT, --csv-rays OUT (see warptrace stats
                   --help, --table)
${PARQUET_HELP}
${SCREEN_HELP}

Options:
  --no-findings     JSON: leave the Draws and Findings tracks out of --perfetto
                    (skips the analysis when only --perfetto is asked for)
  --no-draw-labels  JSON: leave draw labels out of every warp's args
  --no-phases       leave the phase slices (marks) out of --perfetto
  --threshold NAME=VALUE   detector threshold (see warptrace stats --help)
  --force           replace existing output files
  -h, --help

Each file is written to a temporary file and renamed into place: a failed run
never leaves a partial file, and never replaces an existing one without --force.
Exit status: 0 ok, 1 bad input or unwritable output, 2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      perfetto: { type: 'string' },
      'perfetto-format': { type: 'string' },
      'perfetto-names': { type: 'string' },
      json: { type: 'string' },
      md: { type: 'string' },
      'csv-stages': { type: 'string' },
      'csv-draws': { type: 'string' },
      'csv-draw-stages': { type: 'string' },
      'csv-findings': { type: 'string' },
      'csv-blocks': { type: 'string' },
      'csv-phases': { type: 'string' },
      'csv-rays': { type: 'string' },
      parquet: { type: 'string' },
      'no-findings': { type: 'boolean' },
      'no-phases': { type: 'boolean' },
      'no-draw-labels': { type: 'boolean' },
      threshold: THRESHOLD_OPTION,
      force: { type: 'boolean' },
      ...SCREEN_OPTIONS,
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const summaryOutputs: [keyof typeof values & string, (s: AnalysisSummary) => Iterable<string>, CsvTable | null][] = [
      ['json', (s) => summaryJsonChunks(s), null],
      ['md', (s) => [summaryToMarkdown(s)], null],
      ['csv-stages', (s) => summaryCsvChunks(s, 'stages'), 'stages'],
      ['csv-draws', (s) => summaryCsvChunks(s, 'draws'), 'draws'],
      ['csv-draw-stages', (s) => summaryCsvChunks(s, 'draw-stages'), 'draw-stages'],
      ['csv-findings', (s) => summaryCsvChunks(s, 'findings'), 'findings'],
      ['csv-blocks', (s) => summaryCsvChunks(s, 'blocks'), 'blocks'],
      ['csv-phases', (s) => summaryCsvChunks(s, 'phases'), 'phases'],
      ['csv-rays', (s) => summaryCsvChunks(s, 'rays'), 'rays'],
    ];
    const wanted = summaryOutputs.flatMap(([option, format, table]) => {
      const path = values[option];
      return typeof path === 'string' ? [{ option: `--${option}`, path, format, table }] : [];
    });
    const screen = screenExportSpec(values);
    const parquetDir = values.parquet ?? null;
    if (values.perfetto === undefined && wanted.length === 0 && screen === null && parquetDir === null) {
      throw new UsageError('nothing to export: give at least one of --perfetto, --json, --md, --csv-*, --parquet, --screen');
    }
    const outputs: Output[] = [
      ...(values.perfetto === undefined ? [] : [{ option: '--perfetto', path: values.perfetto }]),
      ...wanted,
      ...(screen === null ? [] : [{ option: '-o', path: screen.path }]),
      // A DIR still to be made holds no file yet: its files need no check.
      ...(parquetDir !== null && checkParquetDir(parquetDir) ? parquetOutputs(parquetDir) : []),
    ];
    const format = values['perfetto-format'] ?? (values.perfetto?.toLowerCase().endsWith('.json') ? 'json' : 'proto');
    if (format !== 'proto' && format !== 'json') throw new UsageError(`--perfetto-format must be proto or json, not ${JSON.stringify(format)}`);
    const warpNames = values['perfetto-names'] ?? 'stage';
    if (warpNames !== 'stage' && warpNames !== 'stage-draw') throw new UsageError(`--perfetto-names must be stage or stage-draw, not ${JSON.stringify(warpNames)}`);
    const thresholds = thresholdsFrom(values.threshold);
    const force = values.force === true;
    const phases = values['no-phases'] !== true;
    checkOutputs(outputs, positionals, force);

    const trace = readTraceFile(positionals[0]!);
    // The protobuf export has no Findings track: it needs no analysis.
    const needSummary = wanted.length > 0 || (values.perfetto !== undefined && format === 'json' && values['no-findings'] !== true);
    const summary = needSummary ? analyzeTrace(trace, { thresholds }) : null;
    // A table of data the trace lacks: said before any file is written.
    for (const { option, table } of wanted) {
      const missing = table === null ? null : missingSection(summary!, table);
      if (missing !== null) throw new InputError(`${positionals[0]}: ${missing.replace(`--table ${table}`, option)}`);
    }
    let screenWarnings: readonly string[] = [];
    if (screen !== null) {
      const image = renderScreenExport(trace, screen, positionals[0]!);
      const bytes = await writeFileAtomic(screen.path, [image.png], { overwrite: force });
      io.out(`wrote ${screen.path} (${formatBytes(bytes)}, PNG ${image.width} x ${image.height}): ${image.what}`);
      io.out(`legend: ${image.legend.text}`);
      screenWarnings = image.warnings;
    }
    for (const { path, format } of wanted) {
      const bytes = await writeFileAtomic(path, format(summary!), { overwrite: force });
      io.out(`wrote ${path} (${formatBytes(bytes)})`);
    }
    if (values.perfetto !== undefined && format === 'proto') {
      const result: { stats?: PerfettoProtoStats } = {};
      const bytes = await writeFileAtomic(values.perfetto, keepReturn(perfettoProtoChunks(trace, { warpNames, phases }), result), { overwrite: force });
      const s = result.stats!;
      io.out(
        `wrote ${values.perfetto} (${formatBytes(bytes)}, Perfetto protobuf): ${s.warps.toLocaleString('en-US')} warps on ${s.lanes} lanes (Perfetto threads)` +
          (s.slotOverlaps > 0 ? `; ${s.slotOverlaps} warps overlapped their slot's previous warp and went to extra lanes` : '') +
          (s.forcedOverlaps > 0 ? `; ${s.forcedOverlaps} warps had to share a lane (over 4096 in flight on one SM)` : '') +
          (s.phaseSlices > 0 ? `; ${s.phaseSlices.toLocaleString('en-US')} phase slices between marks` : ''),
      );
    } else if (values.perfetto !== undefined) {
      const result: { stats?: PerfettoStats } = {};
      const chunks = perfettoJsonChunks(trace, { summary: values['no-findings'] === true ? null : summary, drawLabels: values['no-draw-labels'] !== true, phases });
      const bytes = await writeFileAtomic(values.perfetto, keepReturn(chunks, result), { overwrite: force });
      const s = result.stats!;
      io.out(
        `wrote ${values.perfetto} (${formatBytes(bytes)}): ${s.warps.toLocaleString('en-US')} warps on ${s.lanes} lanes (Perfetto threads)` +
          (s.slotOverlaps > 0 ? `; ${s.slotOverlaps} warps overlapped their slot's previous warp and went to extra lanes` : '') +
          (s.forcedOverlaps > 0 ? `; ${s.forcedOverlaps} warps had to share a lane (over 4096 in flight on one SM)` : '') +
          (s.phaseSlices > 0 ? `; ${s.phaseSlices.toLocaleString('en-US')} phase slices between marks` : ''),
      );
    }
    if (parquetDir !== null) {
      for (const line of await writeParquetTables(trace, { dir: parquetDir, thresholds, summary, force })) io.out(line);
    }
    // After the outputs: a failed write is one line, not warnings about outputs nobody got.
    for (const warning of [...(summary?.reliability.warnings ?? []), ...screenWarnings]) io.err(`warning: ${warning}`);
    return 0;
  },
};

/** Iterates a generator and keeps its return value. */
function* keepReturn<T, R>(gen: Generator<T, R, undefined>, box: { stats?: R }): Generator<T, void, undefined> {
  box.stats = yield* gen;
}
