/**
 * `warptrace` command-line entry: dispatches to a sub-command and maps errors
 * to exit codes (0 ok, 1 bad input or output that cannot be written, 2 usage).
 * Bad input never prints a stack.
 */
import { TraceFormatError } from '../shared-schema/errors.js';
import { InputError, StdoutError, UsageError, oneLine, type CliIo, type Command } from './command.js';
import { COMMANDS } from './commands/index.js';
import { TOOL_VERSION } from './version.js';

function topLevelHelp(): string {
  const width = COMMANDS.reduce((w, c) => Math.max(w, c.name.length), 0);
  return [
    'usage: warptrace <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `warptrace <command> --help` for a command\'s options.',
  ].join('\n');
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (!(error instanceof StdoutError)) throw error;
    // Help and version text too: `warptrace --help > /dev/full` is one line, like a report.
    const name = argv[0];
    return stdoutFailed(error, COMMANDS.some((c) => c.name === name) ? `warptrace ${name}` : 'warptrace', io);
  }
}

/** Standard output failed: one line and exit 1, or, when its reader has gone (EPIPE), a quiet 0. */
function stdoutFailed(error: StdoutError, prefix: string, io: CliIo): number {
  if (error.readerGone) return 0;
  io.err(`${prefix}: ${error.message}`);
  return 1;
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === undefined) {
      io.err(topLevelHelp());
      return 2;
    }
    io.out(topLevelHelp());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    io.out(TOOL_VERSION);
    return 0;
  }
  const command: Command | undefined = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.err(`warptrace: unknown command "${oneLine(name)}" (see warptrace --help)`);
    return 2;
  }
  // After `--` come another program's arguments (capture -- APP --help): its help flags are not ours.
  const end = rest.indexOf('--');
  const own = end >= 0 ? rest.slice(0, end) : rest;
  if (own.includes('--help') || own.includes('-h')) {
    io.out(command.help);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof StdoutError) return stdoutFailed(error, `warptrace ${name}`, io);
    if (error instanceof UsageError) {
      io.err(`warptrace ${name}: ${oneLine(error.message)} (see warptrace ${name} --help)`);
      return 2;
    }
    if (error instanceof TraceFormatError || error instanceof InputError) {
      io.err(`warptrace ${name}: ${oneLine(error.message)}`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.err(`warptrace ${name}: internal error: ${oneLine(message)}`);
    if (process.env['WARPTRACE_DEBUG']) console.error(error);
    return 70;
  }
}
