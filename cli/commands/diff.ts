import { diffSummaries } from '../../analysis/diff.js';
import { drawIdentities, summaryDrawIdentities } from '../../analysis/draw-match.js';
import { summaryJsonChunks } from '../../analysis/export/json.js';
import { diffToMarkdown } from '../../analysis/export/markdown.js';
import { UsageError, parseCommandArgs, type Command } from '../command.js';
import { checkOutputs } from '../files.js';
import { deliver, loadTraceOrSummary, THRESHOLD_OPTION, thresholdsFrom } from './analysis-shared.js';

export const diffCommand: Command = {
  name: 'diff',
  summary: 'compare two traces (or stored summaries): per-stage and per-draw deltas',
  help: `usage: warptrace diff A B [--format md|json] [-o OUT [--force]] [--threshold NAME=VALUE]...

Compares A with B, each a trace (.wtrace, .wtraw, warptrace JSON) or a summary
saved by \`warptrace stats --format json\`: frame span, time lost to syncs,
leftover tails and stalls; per stage the warp count, mean, median, p90, p99,
warp-time and peak warps per SM; per draw span, warp-time and overlap.

Draws are paired within each pass (region path) by their order, labels
counting only where they agree with it, then by label (a draw that moved
pass), by pipeline within the pass, and by index only where nothing else
matches (a stored summary has no passes or pipelines: its draws are one
pass). Each pair says how it was made and whether it is strong (the pass
lines up one to one, or the label is unique in both) or weak (an insertion's
place guessed, a shared label, a pipeline or index). Highlights name the
largest changes, e.g. "TCS mean warp duration +15.0% ... Draw 2 span −8.0%"
(longer warps, yet a shorter draw); draws of weak pairs come last, marked
"Weak pair, check it".

A sampled trace (captured with --sample or --budget) is named with its rates
in a warning above the tables; its estimated figures are marked ≈, and what
needs every warp (syncs, idle windows, leftovers, stalls, busy time, draws'
overlap, peaks on one SM) reads "withheld" and is not compared.

Sampling noise: a change of an estimate carries its combined standard error
√(SE_A² + SE_B²) (an exact side counts 0) and is a change only beyond 2 of
them: "FS mean warp duration ≈ −25.9% ± 0.2%". Within them it reads
"≈ +0.5% ± 0.7% (within sampling noise)"; an estimate without a standard error
(a span of recorded warps, a percentile, a figure from fewer than 30 recorded
warps) reads "≈ −7.7% (untested)". Neither is highlighted, and a draw with
sampled warps is ranked by its warp-time, not its span. The JSON has
"noise": {seA, seB, se, verdict: significant | within-noise | untested} on
each such delta. The exit status does not depend on the changes.

Options:
  --format F      md (default) or json (schema "warptrace-diff")
  -o, --output OUT  write to OUT (atomically) instead of standard output
  --force         replace OUT if it exists
  --threshold NAME=VALUE   detector threshold for traces (see warptrace stats --help)
  -h, --help

Exit status: 0 ok, 1 unreadable or invalid input, 2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      format: { type: 'string' },
      output: { type: 'string', short: 'o' },
      force: { type: 'boolean' },
      threshold: THRESHOLD_OPTION,
    });
    if (positionals.length !== 2) throw new UsageError('expected two inputs, A and B');
    const format = values.format ?? 'md';
    if (format !== 'md' && format !== 'json') throw new UsageError(`--format must be md or json, got "${format}"`);
    const thresholds = thresholdsFrom(values.threshold);
    if (values.output !== undefined) checkOutputs([{ option: '-o', path: values.output }], positionals, values.force === true);
    const a = loadTraceOrSummary(positionals[0]!, thresholds);
    const b = loadTraceOrSummary(positionals[1]!, thresholds);
    // Traces know their draws' passes and pipelines; a stored summary only kind and label.
    const identities = (loaded: typeof a) => (loaded.trace === null ? summaryDrawIdentities(loaded.summary.draws) : drawIdentities(loaded.trace));
    const diff = diffSummaries(a.summary, b.summary, { a: identities(a), b: identities(b) });
    const text = format === 'json' ? summaryJsonChunks(diff) : [diffToMarkdown(diff, { a: positionals[0]!, b: positionals[1]! })];
    await deliver(text, values.output, values.force === true, io);
    // After the report: a failed write is one line, not warnings about a report nobody got.
    for (const w of diff.warnings) io.err(`warning: ${w}`);
    return 0;
  },
};
