/**
 * The traced app as a child process: started with the layer's environment,
 * ended politely (SIGTERM, then SIGKILL after a grace period), and told of
 * the user's Ctrl-C. Its stdout goes to the CLI's stderr so the CLI's own
 * stdout carries only the capture summary (scripts read it); its stdin and
 * stderr are the terminal's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { InputError } from '../../cli/command.js';
import { systemMessage } from '../../cli/files.js';

/** How long an app gets to exit after SIGTERM before it is killed. */
export const STOP_GRACE_MS = 3000;
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface AppExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class AppProcess {
  /** Resolves when the app has exited (never rejects). */
  readonly exited: Promise<AppExit>;
  /** The signal the user sent the CLI, once forwarded to the app. */
  interruptedBy: NodeJS.Signals | null = null;
  private exitInfo: AppExit | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private readonly forward = (signal: NodeJS.Signals) => {
    this.interruptedBy ??= signal;
    this.onInterrupt?.(signal);
    this.signal(signal);
  };

  private constructor(
    private readonly child: ChildProcess,
    private readonly onInterrupt: ((signal: NodeJS.Signals) => void) | undefined,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        if (this.killTimer !== null) clearTimeout(this.killTimer);
        for (const s of FORWARDED_SIGNALS) process.off(s, this.forward);
        resolve(this.exitInfo);
      });
    });
    // While the app runs, the user's Ctrl-C is the app's to handle (the layer may be writing); the CLI follows its exit.
    for (const s of FORWARDED_SIGNALS) process.on(s, this.forward);
  }

  /** Starts `argv`; a program that cannot be started is an InputError. */
  static start(argv: readonly string[], env: NodeJS.ProcessEnv, onInterrupt?: (signal: NodeJS.Signals) => void): Promise<AppProcess> {
    const [program, ...args] = argv;
    if (program === undefined) return Promise.reject(new InputError('no app to run'));
    return new Promise((resolve, reject) => {
      const child = spawn(program, args, { env, stdio: ['inherit', 2, 'inherit'] });
      child.once('error', (error) => reject(new InputError(`cannot start ${program}: ${systemMessage(error)}`)));
      child.once('spawn', () => resolve(new AppProcess(child, onInterrupt)));
    });
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SIGTERM now, SIGKILL after the grace period; resolves when the app is gone. */
  stop(): Promise<AppExit> {
    if (this.running && this.killTimer === null) {
      this.signal('SIGTERM');
      this.killTimer = setTimeout(() => this.signal('SIGKILL'), STOP_GRACE_MS);
    }
    return this.exited;
  }

  private signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      this.child.kill(signal);
    } catch {
      // Exited between the check and the kill: 'exit' is on its way.
    }
  }
}

/** Signals a process gets from its own fault (or abort()), not from someone ending it. */
const CRASH_SIGNALS: readonly NodeJS.Signals[] = ['SIGSEGV', 'SIGBUS', 'SIGILL', 'SIGFPE', 'SIGABRT', 'SIGTRAP', 'SIGSYS'];

/** Whether the app died of its own fault (a crash signal). */
export function crashed(exit: AppExit): boolean {
  return exit.signal !== null && CRASH_SIGNALS.includes(exit.signal);
}

/** "exit code 3" / "crashed with SIGSEGV" / "killed by SIGKILL", for messages. */
export function describeExit(exit: AppExit): string {
  if (exit.signal === null) return `exit code ${exit.code ?? '?'}`;
  return crashed(exit) ? `crashed with ${exit.signal}` : `killed by ${exit.signal}`;
}

/**
 * How the app ended after its capture was written: by itself (within the grace period after it), by --exit-after,
 * after running on past the grace period without --exit-after (the user closed it, or it ran on), or on the user's
 * signal (Ctrl-C, passed on to it).
 */
export type Ending = 'itself' | 'exit-after' | 'ran-on' | 'interrupted';

/** How long after its capture an app that exits by itself is given before it is said to run on (and is not run again). */
const APP_GRACE_MS = 2000;

/**
 * Without --exit-after the app goes on after the capture; the CLI keeps serving its layer until it exits. Returns how
 * it ended; `onRunningOn` is called when it still runs past the grace period without --exit-after.
 */
export async function waitForApp(app: AppProcess, exitAfter: boolean, say: (text: string) => void, onRunningOn?: () => void): Promise<Ending> {
  let ranOn = false;
  if (app.running) {
    // Most apps that exit by themselves do so right after their last frame: only one still running after a moment is named.
    let grace: NodeJS.Timeout | null = null;
    const stillRunning = await Promise.race([
      app.exited.then(() => false),
      new Promise<boolean>((resolvePromise) => (grace = setTimeout(() => resolvePromise(true), APP_GRACE_MS))),
    ]);
    if (grace !== null) clearTimeout(grace);
    if (stillRunning && !exitAfter) {
      ranOn = true;
      onRunningOn?.();
      say('the app is still running; close it to finish (or use --exit-after next time)');
    }
    await app.exited;
  }
  if (app.interruptedBy !== null) return 'interrupted';
  return exitAfter ? 'exit-after' : ranOn ? 'ran-on' : 'itself';
}
