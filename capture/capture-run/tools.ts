/**
 * Running the external tools the capture needs (cmake, glslangValidator, the
 * native harness) with one-line errors a user can act on.
 */
import { spawn, spawnSync } from 'node:child_process';
import { InputError } from '../../cli/command.js';

export interface ToolResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program to completion; a missing program becomes an InputError naming `installHint`. */
export function runTool(program: string, args: readonly string[], installHint: string, cwd?: string): Promise<ToolResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new InputError(`${program} not found: ${installHint}`)
          : new InputError(`cannot run ${program}: ${error.message}`),
      );
    });
    child.on('close', (code, signal) => {
      resolvePromise({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8') + (signal ? `\n${program} was killed by ${signal}` : ''),
      });
    });
  });
}

/** Whether a program can be started at all. */
export function hasTool(program: string): boolean {
  const r = spawnSync(program, ['--version'], { stdio: 'ignore' });
  return r.error === undefined;
}

/** The last non-empty line of a tool's error output (the one-line reason). */
export function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  return lines[lines.length - 1] ?? '';
}

/** Runs `jobs` with at most `limit` in flight. */
export async function inParallel<T>(jobs: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}
