/** What `stats`, `export` and `diff` share: thresholds from the command line, loading traces or summaries, output. */
import { analyzeTrace, parseThresholdAssignments, THRESHOLD_DOCS, ThresholdError, type AnalysisSummary, type Thresholds } from '../../analysis/index.js';
import { isSummaryJson, parseSummary, SummaryFormatError } from '../../analysis/summary-json.js';
import type { CsvTable } from '../../analysis/export/csv.js';
import { decodeTrace, type Trace } from '../../shared-schema/index.js';
import { InputError, UsageError, type CliIo } from '../command.js';
import { DECODE_OPTIONS, formatBytes, readInputFile, writeFileAtomic } from '../files.js';

export const THRESHOLD_OPTION = { type: 'string', multiple: true } as const;

/** Help text lines for --threshold, generated from the documented defaults. */
export function thresholdHelp(): string {
  const width = THRESHOLD_DOCS.reduce((w, d) => Math.max(w, d.name.length), 0);
  return THRESHOLD_DOCS.map((d) => `  ${d.name.padEnd(width)}  ${String(d.defaultValue).padStart(5)} ${d.unit.padEnd(6)} ${d.description}`).join('\n');
}

export function thresholdsFrom(assignments: readonly string[] | undefined): Thresholds {
  try {
    return parseThresholdAssignments(assignments ?? []);
  } catch (error) {
    if (error instanceof ThresholdError) throw new UsageError(error.message);
    throw error;
  }
}

/** A non-negative integer option value, or a usage error naming the option. */
export function integerOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`${name} expects a non-negative integer, got "${value}"`);
  return Number(value);
}

export interface Loaded {
  readonly summary: AnalysisSummary;
  /** The trace, when the file was a trace (not a stored summary). */
  readonly trace: Trace | null;
}

/** V8's longest string, in UTF-16 units: JSON text longer than this cannot be parsed. */
const MAX_JSON_TEXT = 2 ** 29 - 24;

/** A trace file (analyzed with `thresholds`) or a stored summary JSON (used as is). */
export function loadTraceOrSummary(path: string, thresholds: Thresholds): Loaded {
  const bytes = readInputFile(path);
  const firstByte = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  if (firstByte === 0x7b && bytes.length > MAX_JSON_TEXT && /^\s*\{\s*"schema"\s*:\s*"warptrace-summary"/.test(new TextDecoder().decode(bytes.subarray(0, 256)))) {
    // `stats --format json` writes summaries of any size (300,000 draws: 590 MB); JSON.parse reads one string.
    throw new InputError(`${path}: a summary of ${formatBytes(bytes.length)} is more JSON than can be read back (512 MiB at most): give the trace instead`);
  }
  if (firstByte === 0x7b && bytes.length <= MAX_JSON_TEXT) {
    let parsed: unknown = undefined;
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      // Not JSON after all: let the trace decoder report what is wrong.
    }
    if (isSummaryJson(parsed)) {
      try {
        return { summary: parseSummary(parsed), trace: null };
      } catch (error) {
        if (error instanceof SummaryFormatError) throw new InputError(`${path}: ${error.message}`);
        throw error;
      }
    }
  }
  const trace = decodeTrace(bytes, DECODE_OPTIONS);
  return { summary: analyzeTrace(trace, { thresholds }), trace };
}

/** Why the summary has no rows for CSV table `table` (a section its trace lacks), or null. */
export function missingSection(summary: AnalysisSummary, table: CsvTable): string | null {
  if (table === 'blocks' && summary.blocks === undefined) return 'no block profile for --table blocks (capture with --blocks)';
  if (table === 'phases' && summary.phases === undefined) return 'no marks for --table phases (capture with wtMark or --marks)';
  if (table === 'rays' && summary.rays === undefined) return 'no ray events for --table rays (capture with --ray-events)';
  if (table === 'passes' && summary.passes === undefined) return 'no regions for --table passes (capture with the capture layer: debug labels or render passes)';
  return null;
}

/** Prints `chunks` (the text of a report) or writes them atomically to `output`. */
export async function deliver(chunks: Iterable<string>, output: string | undefined, force: boolean, io: CliIo): Promise<void> {
  if (output !== undefined) {
    const bytes = await writeFileAtomic(output, chunks, { overwrite: force });
    io.err(`wrote ${output} (${formatBytes(bytes)})`);
    return;
  }
  if (io.write !== undefined) {
    let last = '';
    for (const chunk of chunks) {
      if (chunk === '') continue;
      io.write(chunk);
      last = chunk;
    }
    if (!last.endsWith('\n')) io.write('\n');
    return;
  }
  const text = Array.from(chunks).join('');
  io.out(text.endsWith('\n') ? text.slice(0, -1) : text);
}
