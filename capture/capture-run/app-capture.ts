/**
 * `warptrace capture -- APP ARGS`: traces an unmodified Vulkan app through
 * the capture layer. The CLI serves the layer's instrument requests on a
 * Unix socket in a fresh temporary folder, runs the app with the layer's
 * environment, waits for the layer to report the written capture (or the
 * app to exit, or the timeout), and converts the raw dump into a .wtrace.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { wtrawToWtrace, type TraceHeader } from '../../shared-schema/index.js';
import { InputError, oneLine, type CliIo } from '../../cli/command.js';
import { readInputFile, writeFileAtomic } from '../../cli/files.js';
import { InstrumentServer, type ServerStats } from '../layer-server/server.js';
import type { LayerEvent } from '../layer-server/requests.js';
import { AppProcess, describeExit, type AppExit } from './app-process.js';
import { describeSelection, layerEnvironment, type CaptureSelection } from './app-environment.js';
import { buildLayer } from './layer-build.js';
import { addOffscreenEnvironment } from './offscreen-manifest.js';
import { timeUntracedSubmits, type Baseline } from './app-baseline.js';
import { captureSummary, notCapturedMessage, type LayerProgress } from './app-report.js';
import { DEVICE_GRACE_MS, DeviceWatch, describeRefused, deviceName, type RefusedDevice } from './app-devices.js';

export const DEFAULT_TIMEOUT_SECONDS = 600;

export interface AppCaptureOptions {
  /** The app's command line (argv[0] is the program). */
  readonly app: readonly string[];
  /** The .wtrace to write. */
  readonly output: string;
  /** Keep the raw dump here; null: a temporary file, removed afterwards. */
  readonly raw: string | null;
  /** Replace existing outputs. */
  readonly force: boolean;
  readonly selection: CaptureSelection;
  /** End the app (SIGTERM, SIGKILL 3 s later) once the capture is written. */
  readonly exitAfter: boolean;
  /** Seconds the app may run without a capture before it is ended; 0: no limit. */
  readonly timeoutSeconds: number;
  /** Folder of the layer's manifest; undefined: built (or WARPTRACE_LAYER_DIR). Tests pass a folder and need no C++. */
  readonly manifestDir?: string;
  /** SPIR-V cache folder; undefined: the default (see defaultCacheDir); null: memory only. */
  readonly cacheDir?: string | null;
  /** The app's base environment (default: the CLI's). */
  readonly env?: NodeJS.ProcessEnv;
  /** --submits: untraced runs timed first, for the overhead figure (0: none). */
  readonly overheadRuns?: number;
  /** --offscreen: the app presents into the layer's own images (WARPTRACE_OFFSCREEN=1). */
  readonly offscreen?: boolean;
}

/** The first thing that ended the wait for a capture. */
type Outcome =
  | { readonly kind: 'written'; readonly event: Extract<LayerEvent, { event: 'capture-written' }> }
  | { readonly kind: 'failed'; readonly why: string }
  | { readonly kind: 'exited'; readonly exit: AppExit }
  /** Every device the layer saw is one it cannot trace, and no other came within DEVICE_GRACE_MS (--exit-after only). */
  | { readonly kind: 'untraceable' }
  | { readonly kind: 'timeout' };

/** Runs the capture; returns the exit status (0 written, 1 no capture or a failed one, 130/143 interrupted). */
export async function captureApp(options: AppCaptureOptions, io: CliIo): Promise<number> {
  const manifestDir = options.manifestDir ?? (await buildLayer());
  const baseline = await untracedBaseline(options, manifestDir, io);
  // A fresh private folder: the socket's path must be short (sun_path is 108 bytes) and no other user may connect.
  const temp = mkdtempSync(join(tmpdir(), 'warptrace-app-'));
  const rawPath = resolve(options.raw ?? join(temp, 'capture.wtraw'));
  let settle: (outcome: Outcome) => void = () => {};
  const outcome = new Promise<Outcome>((resolvePromise) => (settle = resolvePromise));
  const say = (text: string) => io.err(`warptrace: ${oneLine(text)}`);
  // No device the layer traces: with --exit-after the capture ends now, as after capture-written; without it the app
  // goes on (it may still create a device the layer traces), and its exit or the timeout ends the wait, told with the reason.
  const devices = new DeviceWatch(() => {
    if (options.exitAfter) settle({ kind: 'untraceable' });
    else say(`no device the layer can trace after ${DEVICE_GRACE_MS / 1000} s: nothing is captured unless the app creates another device; close the app to finish (--exit-after ends it)`);
  });
  const progress: LayerProgress = { hellos: [], started: null, frames: null, skipped: [], notes: [], refused: devices.refused };
  const refusedLine = (device: RefusedDevice) => `cannot trace ${device.device}: ${device.why}; nothing will be captured from this device`;

  const server = await InstrumentServer.start({
    socketPath: join(temp, 'layer.sock'),
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    onHello: (hello, connection) => {
      progress.hellos.push(hello);
      const refused = devices.hello(hello, connection);
      if (refused === null) say(`layer loaded in ${hello.app} (pid ${hello.pid}) on ${deviceName(hello)}`);
      else say(`layer loaded in ${hello.app} (pid ${hello.pid}), but it ${refusedLine(refused)}`);
    },
    onEvent: (event, connection) => {
      track(progress, event);
      const refused = devices.event(event, connection);
      switch (event.event) {
        case 'skipped':
          // A refused device is told once, by the line above (or here, when the layer refused it before its hello).
          if (refused === null) say(`not traced: ${event.what} (${event.why})`);
          else if (!('repeat' in refused)) say(`the layer ${refusedLine(refused)}`);
          break;
        case 'note':
          say(`note: ${event.what} (${event.why})`);
          break;
        case 'capture-started':
          say(`capturing ${event.frame === null ? describeSelection(options.selection) : `frame ${event.frame}`}`);
          break;
        case 'capture-written':
          settle({ kind: 'written', event });
          break;
        case 'capture-failed':
          say(`the layer could not capture: ${event.why}`);
          settle({ kind: 'failed', why: event.why });
          break;
      }
    },
    onWarning: say,
  });
  let app: AppProcess | null = null;
  let timer: NodeJS.Timeout | null = null;
  try {
    const env = layerEnvironment(options.env ?? process.env, { manifestDir, socketPath: server.socketPath, rawOutput: rawPath, selection: options.selection });
    if (options.offscreen === true) addOffscreenEnvironment(env, manifestDir, join(temp, 'offscreen'));
    if (baseline !== null) {
      env['WARPTRACE_PLAIN_NS'] = String(Math.round(baseline.medianNs));
      env['WARPTRACE_PLAIN_RUNS'] = String(baseline.runs);
    }
    app = await AppProcess.start(options.app, env, (signal) => say(`${signal}: passed on to the app`));
    void app.exited.then((exit) => settle({ kind: 'exited', exit }));
    if (options.timeoutSeconds > 0) timer = setTimeout(() => settle({ kind: 'timeout' }), options.timeoutSeconds * 1000);
    const first = await outcome;
    if (timer !== null) clearTimeout(timer);
    devices.cancel();

    if (first.kind === 'timeout') {
      say(`no capture after ${options.timeoutSeconds} s (--timeout): ending the app`);
      await app.stop();
      io.err(`warptrace capture: ${describeSelection(options.selection)} was not captured within ${options.timeoutSeconds} s; ${notCapturedMessage(progress, options.selection, null)}`);
      return 1;
    }
    if (first.kind === 'untraceable') {
      // As after capture-written: SIGTERM, SIGKILL after the grace period.
      say(`no device the layer can trace after ${DEVICE_GRACE_MS / 1000} s: ending the app (--exit-after)`);
      await app.stop();
      io.err(`warptrace capture: nothing captured: the layer cannot trace ${describeRefused(devices.refused)}`);
      return 1;
    }
    if (first.kind === 'exited') {
      // The layer may still report a capture written just before the exit: its event is already in.
      if (app.interruptedBy !== null) {
        io.err(`warptrace capture: interrupted (${app.interruptedBy}); the app ended (${describeExit(first.exit)}), nothing captured`);
        return app.interruptedBy === 'SIGINT' ? 130 : 143;
      }
      io.err(`warptrace capture: ${notCapturedMessage(progress, options.selection, first.exit)}`);
      return 1;
    }
    if (options.exitAfter) void app.stop();
    if (first.kind === 'failed') {
      io.err(`warptrace capture: the layer could not capture ${describeSelection(options.selection)}: ${oneLine(first.why)}`);
      await waitForApp(app, options.exitAfter, say);
      return 1;
    }
    const written = first.event;
    const status = await convertCapture(written.path, rawPath, options, progress, server.stats, io, say);
    await waitForApp(app, options.exitAfter, say);
    return status;
  } finally {
    if (timer !== null) clearTimeout(timer);
    devices.cancel();
    // On an error of ours (a conversion that threw) the app must not outlive the CLI that serves its layer.
    if (app !== null && app.running) await app.stop();
    await server.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Converts the layer's raw dump into the .wtrace and prints the summary; returns the exit status. */
async function convertCapture(
  reportedPath: string,
  rawPath: string,
  options: AppCaptureOptions,
  progress: LayerProgress,
  stats: ServerStats,
  io: CliIo,
  say: (text: string) => void,
): Promise<number> {
  // The layer writes where WARPTRACE_OUTPUT said; a different path in its event is a layer bug, not a file to read blindly.
  if (resolve(reportedPath) !== rawPath) say(`the layer reported ${reportedPath}, not ${rawPath}; reading ${rawPath}`);
  if (!existsSync(rawPath)) throw new InputError(`the layer reported a capture, but ${rawPath} does not exist`);
  let converted: { wtrace: Uint8Array; header: TraceHeader; warpCount: number };
  try {
    converted = wtrawToWtrace(readInputFile(rawPath));
  } catch (error) {
    const keep = options.raw === null ? ' (keep the raw dump with --raw FILE.wtraw to look at it)' : '';
    throw new InputError(`cannot convert the layer's capture: ${error instanceof Error ? error.message : String(error)}${keep}`);
  }
  const size = await writeFileAtomic(options.output, [converted.wtrace], { overwrite: options.force });
  io.out(captureSummary({ output: options.output, size, header: converted.header, warpCount: converted.warpCount, progress, stats, selection: options.selection, raw: options.raw }));
  return 0;
}

/** The --submits baseline: the same submits timed in untraced runs before the traced one (app-baseline.ts). */
async function untracedBaseline(options: AppCaptureOptions, manifestDir: string, io: CliIo): Promise<Baseline | null> {
  const runs = options.overheadRuns ?? 0;
  if (options.selection.submits === null || runs === 0) return null;
  const say = (text: string) => io.err(`warptrace: ${oneLine(text)}`);
  say(`timing ${describeSelection(options.selection)} in ${runs} untraced run(s) first (--overhead-runs)`);
  const baseline = await timeUntracedSubmits(
    { app: options.app, manifestDir, selection: options.selection, exitAfter: options.exitAfter, timeoutSeconds: options.timeoutSeconds, env: options.env ?? process.env, offscreen: options.offscreen === true },
    runs,
    say,
  );
  if (baseline !== null) say(`untraced: ${(baseline.medianNs / 1000).toFixed(1)} µs of GPU time (median of ${baseline.runs})`);
  return baseline;
}

/** Without --exit-after the app goes on after the capture; the CLI keeps serving its layer until it exits. */
async function waitForApp(app: AppProcess, exitAfter: boolean, say: (text: string) => void): Promise<void> {
  if (!app.running) return;
  // Most apps that exit by themselves do so right after their last frame: only one still running after a moment is named.
  let grace: NodeJS.Timeout | null = null;
  const stillRunning = await Promise.race([
    app.exited.then(() => false),
    new Promise<boolean>((resolvePromise) => (grace = setTimeout(() => resolvePromise(true), 2000))),
  ]);
  if (grace !== null) clearTimeout(grace);
  if (stillRunning && !exitAfter) say('the app is still running; close it to finish (or use --exit-after next time)');
  await app.exited;
}

function track(progress: LayerProgress, event: LayerEvent): void {
  if (event.event === 'skipped') progress.skipped.push({ what: event.what, why: event.why });
  if (event.event === 'note') progress.notes.push({ what: event.what, why: event.why });
  if (event.event === 'capture-started') progress.started = event.frame ?? 0;
  if ((event.event === 'capture-started' || event.event === 'capture-failed') && event.frames !== null) {
    progress.frames = Math.max(progress.frames ?? 0, event.frames);
  }
}
