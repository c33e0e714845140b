/**
 * Child processes for the layer tests that run real apps: each in a process
 * group of its own (under `xvfb-run -a` when asked), so a run past the limit
 * is killed with its X server and app, not just the script; whatever is still
 * running when a file's tests end is killed by killAll() in its after().
 */
import { spawn } from 'node:child_process';

export interface GroupRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly out: string;
  readonly err: string;
  readonly ms: number;
}

export class ProcessGroups {
  private readonly running = new Set<number>();

  constructor(private readonly limitMs: number) {}

  run(command: readonly string[], env: NodeJS.ProcessEnv, options: { readonly x: boolean }): Promise<GroupRun> {
    const argv = options.x ? ['xvfb-run', '-a', ...command] : [...command];
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      let err = '';
      let timedOut = false;
      const pid = child.pid;
      if (pid !== undefined) this.running.add(pid);
      const timer = setTimeout(() => {
        timedOut = true;
        if (pid !== undefined) killGroup(pid);
      }, this.limitMs);
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`cannot run ${argv[0]} (scripts/install-system-deps.sh installs what the tests run): ${error.message}`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (pid !== undefined) this.running.delete(pid);
        if (timedOut) err += `\n[killed after ${this.limitMs / 1000} s: ${argv.join(' ')}]`;
        resolve({ code, signal, out, err, ms: Date.now() - started });
      });
    });
  }

  killAll(): void {
    for (const pid of this.running) killGroup(pid);
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
