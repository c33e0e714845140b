/**
 * Temporary outputs removed when the user interrupts a run: Node's default
 * for SIGINT/SIGTERM/SIGHUP is to die on the spot, which would leave a
 * `.OUT.PID.tmp` (up to the whole output) beside the destination.
 * Handlers are installed only while a temporary file exists, so an
 * interrupted analysis (nothing written yet) still stops at once.
 */
import { rmSync } from 'node:fs';

/** Exit status of a process killed by the signal: 128 + its number, as shells report it. */
const EXIT_STATUS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type HandledSignal = keyof typeof EXIT_STATUS;
const SIGNALS = Object.keys(EXIT_STATUS) as HandledSignal[];

const temporaryFiles = new Set<string>();

function onSignal(signal: NodeJS.Signals): void {
  exitRemovingTemporaryFiles(EXIT_STATUS[signal as HandledSignal] ?? 1);
}

/** Ends the process now (a signal, standard output gone mid-run) without leaving a temporary output behind. */
export function exitRemovingTemporaryFiles(status: number): never {
  for (const path of temporaryFiles) rmSync(path, { force: true });
  process.exit(status);
}

/** Removes `path` if a signal ends the process before the returned release is called. */
export function removeOnSignal(path: string): () => void {
  if (temporaryFiles.size === 0) for (const s of SIGNALS) process.on(s, onSignal);
  temporaryFiles.add(path);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    temporaryFiles.delete(path);
    if (temporaryFiles.size === 0) for (const s of SIGNALS) process.off(s, onSignal);
  };
}
