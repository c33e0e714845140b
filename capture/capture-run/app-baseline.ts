/**
 * The untraced baseline of a `--submits` capture: apps that never present
 * have no untraced neighbour frames, so the same submits are timed in runs of
 * the app before the traced one, with the layer only timing them
 * (WARPTRACE_TIME_ONLY: no instrumentation, the device created as the app
 * asks). The traced run's overhead is its GPU time against their median.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstrumentServer } from '../layer-server/server.js';
import { AppProcess } from './app-process.js';
import { layerEnvironment, type CaptureSelection } from './app-environment.js';
import { addOffscreenEnvironment } from './offscreen-manifest.js';

export interface BaselineOptions {
  readonly app: readonly string[];
  readonly manifestDir: string;
  readonly selection: CaptureSelection;
  /** End each run once its submits are timed (apps that never exit). */
  readonly exitAfter: boolean;
  readonly timeoutSeconds: number;
  readonly env: NodeJS.ProcessEnv;
  /** --offscreen: the app presents into the layer's own images, as in the traced run. */
  readonly offscreen?: boolean;
}

export interface Baseline {
  /** Median GPU time of the submits, ns. */
  readonly medianNs: number;
  readonly runs: number;
}

/** Times the submits in `runs` untraced runs; null when none reported a time (the reason goes to `say`). */
export async function timeUntracedSubmits(options: BaselineOptions, runs: number, say: (text: string) => void): Promise<Baseline | null> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const ns = await timeOneRun(options);
    if (ns === null) {
      say(`untraced run ${run + 1} of ${runs} reported no GPU time for its submits: the overhead is not measured`);
      return null;
    }
    times.push(ns);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const medianNs = times.length % 2 ? (times[mid] as number) : ((times[mid - 1] as number) + (times[mid] as number)) / 2;
  return { medianNs, runs: times.length };
}

async function timeOneRun(options: BaselineOptions): Promise<number | null> {
  const temp = mkdtempSync(join(tmpdir(), 'warptrace-base-'));
  let reported: (ns: number | null) => void = () => {};
  const timed = new Promise<number | null>((resolvePromise) => (reported = resolvePromise));
  const server = await InstrumentServer.start({
    socketPath: join(temp, 'layer.sock'),
    cacheDir: null,
    onHello: () => {},
    onEvent: (event) => {
      if (event.event === 'timing') reported(event.gpuNs);
    },
    onWarning: () => {},
  });
  let app: AppProcess | null = null;
  let timer: NodeJS.Timeout | null = null;
  try {
    const env = layerEnvironment(options.env, { manifestDir: options.manifestDir, socketPath: server.socketPath, rawOutput: join(temp, 'unused.wtraw'), selection: options.selection });
    env['WARPTRACE_TIME_ONLY'] = '1';
    if (options.offscreen === true) addOffscreenEnvironment(env, options.manifestDir, join(temp, 'offscreen'));
    app = await AppProcess.start(options.app, env, () => {});
    void app.exited.then(() => reported(null));
    if (options.timeoutSeconds > 0) timer = setTimeout(() => reported(null), options.timeoutSeconds * 1000);
    const ns = await timed;
    // An app that exits by itself is waited for (the next run must not overlap it); one that never does is ended.
    if (options.exitAfter) await app.stop();
    else await app.exited;
    return ns;
  } finally {
    if (timer !== null) clearTimeout(timer);
    if (app !== null && app.running) await app.stop();
    await server.close();
    rmSync(temp, { recursive: true, force: true });
  }
}
