/**
 * The contract between `warptrace` and its sub-commands. Each command lives
 * in cli/commands/NAME.ts and is registered in cli/main.ts.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;
export type ParsedArgs<T extends OptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

export interface CliIo {
  /** Writes one line (or block) to standard output. */
  out(text: string): void;
  /** Writes one line to standard error. */
  err(text: string): void;
  /** Writes text as it is (no newline added), for output too long for one string; without it, chunks are joined for `out`. */
  write?(text: string): void;
}

export interface Command {
  readonly name: string;
  /** One line for `warptrace --help`. */
  readonly summary: string;
  /** Full text for `warptrace NAME --help`: usage line, options, examples. */
  readonly help: string;
  /** Returns the exit code: 0 success, 1 bad input, 2 usage error (or throw the errors below). */
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

/** Wrong command line: exit 2 with the message and a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Bad input the user can fix (missing file, failed capture...): exit 1 with one line. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/**
 * Standard output cannot be written (a full disk, a descriptor not open for
 * writing...): exit 1 with this one line. `readerGone` (EPIPE: `| head` has
 * read enough) is no error: exit 0, nothing said.
 */
export class StdoutError extends Error {
  override readonly name = 'StdoutError';
  constructor(
    message: string,
    readonly readerGone: boolean,
  ) {
    super(message);
  }
}

/** util.parseArgs with its errors turned into UsageError. */
export function parseCommandArgs<T extends OptionsConfig>(argv: readonly string[], options: T): ParsedArgs<T> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * A message as one terminal line: line breaks and other control characters
 * written as escapes (V8 quotes a stretch of a bad JSON file, newlines and
 * all, in its syntax errors; a file name may hold an escape sequence).
 */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

/** How a report command prints: a text table, or --json / --csv / --md (blocks, phases, rays). */
export type ReportFormat = 'text' | 'json' | 'csv' | 'md';

/** The report format its --json, --csv and --md flags ask for; more than one is a usage error. */
export function reportFormat(values: { readonly json?: boolean | undefined; readonly csv?: boolean | undefined; readonly md?: boolean | undefined }): ReportFormat {
  const asked = (['json', 'csv', 'md'] as const).filter((f) => values[f] === true);
  if (asked.length > 1) throw new UsageError('--json, --csv and --md exclude each other');
  return asked[0] ?? 'text';
}
