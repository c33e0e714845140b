/**
 * The `warptrace` process's standard streams as a CliIo. A report sent where
 * it cannot be written (`> /dev/full`, a closed or read-only descriptor, a
 * failing device) is one line and exit 1, never a stack trace; a reader that
 * went away (`warptrace stats x | head`: EPIPE) is no error at all.
 */
import type { Writable } from 'node:stream';
import { StdoutError, type CliIo } from './command.js';
import { errorCode, systemMessage } from './files.js';
import { exitRemovingTemporaryFiles } from './signals.js';

/** The one line for a failed write to standard output. */
export function stdoutErrorOf(error: Error): StdoutError {
  const code = errorCode(error);
  const message = code === 'ENOSPC' ? 'no space left on device writing standard output' : `cannot write standard output: ${systemMessage(error)}`;
  return new StdoutError(message, code === 'EPIPE');
}

/**
 * Writes to stdout report their failure at once: Node sets the stream's
 * `errored` during a write to a file, device or pipe that fails there and
 * then, but emits the error only later, after the command might have gone
 * on to print more (a warning before the error line). The throw stops the
 * command; cli/main.ts turns it into the one line (or, for EPIPE, exit 0).
 */
export function processIo(stdout: Writable = process.stdout, stderr: Writable = process.stderr): CliIo {
  let reported = false;
  const check = () => {
    const error = stdout.errored;
    if (error === null) return;
    reported = true;
    throw stdoutErrorOf(error);
  };
  // A write that fails after it was queued (a pipe that was full, then closed) is only seen here.
  stdout.on('error', (error: Error) => {
    if (reported) return;
    reported = true;
    // The command may be writing an output file meanwhile: its temporary file goes too.
    const failure = stdoutErrorOf(error);
    if (failure.readerGone) exitRemovingTemporaryFiles(Number(process.exitCode ?? 0));
    stderr.write(`warptrace: ${failure.message}\n`);
    exitRemovingTemporaryFiles(1);
  });
  // Messages that cannot be written have nowhere left to go; the exit status still tells.
  stderr.on('error', () => {});
  return {
    out: (text) => {
      stdout.write(`${text}\n`);
      check();
    },
    err: (text) => {
      stderr.write(`${text}\n`);
    },
    write: (text) => {
      stdout.write(text);
      check();
    },
  };
}
