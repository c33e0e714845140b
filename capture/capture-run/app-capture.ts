/**
 * `warptrace capture -- APP ARGS`: traces an unmodified Vulkan app through
 * the capture layer. The CLI serves the layer's instrument requests on a
 * Unix socket in a fresh temporary folder, runs the app with the layer's
 * environment, waits for the layer to report the written capture (or the
 * app to exit, or the timeout), and converts the raw dump into a .wtrace.
 * A capture that dropped records, in a buffer the CLI sized (--capacity auto),
 * is taken again once with the buffer its frame needed; the second trace
 * replaces the first only if it dropped fewer. With --budget B the app is run
 * up to five times, at the rates app-budget-runs.ts chooses.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { wtrawToWtrace, type TraceHeader } from '../../shared-schema/index.js';
import { describeBlocks } from '../../instrument/block-map.js';
import { InputError, oneLine, type CliIo } from '../../cli/command.js';
import { readInputFile, writeFileAtomic } from '../../cli/files.js';
import { InstrumentServer, type ServerStats } from '../layer-server/server.js';
import type { LayerEvent } from '../layer-server/requests.js';
import { AppProcess, describeExit, waitForApp, type AppExit, type Ending } from './app-process.js';
import { captureWithinBudget } from './app-budget-runs.js';
import { describeSelection, layerEnvironment, type CaptureSelection } from './app-environment.js';
import { buildLayer } from './layer-build.js';
import { addOffscreenEnvironment } from './offscreen-manifest.js';
import { timeUntracedSubmits, type Baseline } from './app-baseline.js';
import { captureSummary, notCapturedMessage, type LayerProgress } from './app-report.js';
import { DEFAULT_CAPACITY, capacityMemory, retryCapacity } from './app-capacity.js';
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
  /**
   * --capacity auto (the default) or auto:N: a capture that dropped records is taken again, once, with the buffer its
   * frame needed (not with a trigger; only when the app ended by itself or by --exit-after). False: the user fixed it.
   */
  readonly growCapacity?: boolean;
  /** --budget B: runs until the traced frame is within B x the untraced frames (app-budget-runs.ts); null or absent: one capture. */
  readonly budget?: number | null;
  /** The paths the summary names, where a run writes elsewhere (a --budget run's temporary files); absent: output and raw. */
  readonly shownAs?: { readonly output: string; readonly raw: string | null };
}

/** One capture's exit status, and how its app ended (null: nothing was captured). */
export interface CaptureOnce {
  readonly status: number;
  readonly ending: Ending | null;
}

/** The first thing that ended the wait for a capture. */
type Outcome =
  | { readonly kind: 'written'; readonly event: Extract<LayerEvent, { event: 'capture-written' }> }
  | { readonly kind: 'failed'; readonly why: string }
  | { readonly kind: 'exited'; readonly exit: AppExit }
  /** Every device the layer saw is one it cannot trace, and no other came within DEVICE_GRACE_MS (--exit-after only). */
  | { readonly kind: 'untraceable' }
  | { readonly kind: 'timeout' };

/** One run's capture, converted. */
interface Captured {
  readonly wtrace: Uint8Array;
  readonly header: TraceHeader;
  readonly warpCount: number;
  /** The raw dump, kept for --raw when the layer wrote it elsewhere (a second run's); null otherwise. */
  readonly raw: Uint8Array | null;
  readonly progress: LayerProgress;
  readonly stats: ServerStats;
}

type RunResult =
  | { readonly kind: 'captured'; readonly capture: Captured; readonly ending: Ending; readonly interruptedBy: NodeJS.Signals | null }
  /** Nothing captured: `message` says why (a first run has printed it), `status` is the exit status it means. */
  | { readonly kind: 'failed'; readonly message: string; readonly status: number; readonly interruptedBy: NodeJS.Signals | null };

/** What differs between the first run and the second. */
interface RunPlan {
  readonly manifestDir: string;
  readonly baseline: Baseline | null;
  /** The selection, with this run's capacity. */
  readonly selection: CaptureSelection;
  /**
   * The second run: its dump goes to its temporary folder (kept in memory for --raw), a conversion that fails is its
   * failure, not an error, and its failures are not printed (the summary tells them).
   */
  readonly second: boolean;
  /** With the converted capture, before the run waits for the app (which --exit-after is ending). */
  readonly onCaptured: (capture: Captured) => Promise<void>;
  /** The app still runs past the grace period after its capture, without --exit-after: called before "close it to finish". */
  readonly onRunningOn?: () => void;
}

/** A second capture's buffer, or why there is none although records were dropped (null: nothing to say). */
type SecondCapture = { readonly capacity: number } | { readonly why: string };

/** Runs the capture; returns the exit status (0 written, 1 no capture or a failed one, 130/143 interrupted). */
export async function captureApp(options: AppCaptureOptions, io: CliIo): Promise<number> {
  const manifestDir = options.manifestDir ?? (await buildLayer());
  if (options.budget === undefined || options.budget === null) return (await captureOnce(options, io, manifestDir)).status;
  return captureWithinBudget(options, options.budget, io, (runOptions, runIo) => captureOnce(runOptions, runIo, manifestDir));
}

/** One capture, taken again once where the buffer dropped records and a larger one can help. */
async function captureOnce(options: AppCaptureOptions, io: CliIo, manifestDir: string): Promise<CaptureOnce> {
  const baseline = await untracedBaseline(options, manifestDir, io);
  const say = (text: string) => io.err(`warptrace: ${oneLine(text)}`);
  const asked = options.selection.capacity ?? DEFAULT_CAPACITY;
  let captured: Captured | null = null;
  let size = 0;
  let again: SecondCapture | null = null;
  let told = false;
  /** The first capture's summary, with what became of a second one or why there is none. */
  const tellFirst = (retry: string | null) => {
    if (told || captured === null) return;
    told = true;
    io.out(captureSummary({ ...summaryOf(options, captured), size, asked, retry }));
  };
  const first = await captureRun(options, io, {
    manifestDir,
    baseline,
    selection: options.selection,
    second: false,
    onCaptured: async (capture) => {
      captured = capture;
      size = await writeFileAtomic(options.output, [capture.wtrace], { overwrite: options.force });
      again = secondCapture(options, capture.header, asked);
      // Nothing to capture again: the summary now, while the app may run on (without --exit-after).
      if (again === null || 'why' in again) tellFirst(again?.why ?? null);
    },
    // Not ended by itself: a second run would need the user to end the app again, and may not see the same frame.
    onRunningOn: () => tellFirst(`not captured again: the app ran on after the capture (with --exit-after the command ends it and captures again)`),
  });
  if (first.kind === 'failed') return { status: first.status, ending: null };
  const firstCapture = first.capture;
  const plan = again as SecondCapture | null;
  const kept = (ending: Ending): CaptureOnce => ({ status: 0, ending });
  if (told || plan === null || 'why' in plan) return kept(first.ending);
  if (first.ending === 'interrupted') {
    tellFirst(`not captured again: interrupted (${first.interruptedBy ?? 'by a signal'})`);
    return kept(first.ending);
  }

  const c = firstCapture.header.capture;
  const dropped = c.recordsWritten - c.recordsKept;
  const capacity = plan.capacity;
  say(
    `${count(dropped)} of ${count(c.recordsWritten)} records dropped (the buffer holds ${count(c.bufferCapacity)}): capturing ` +
      `${describeSelection(options.selection)} again with --capacity ${count(capacity)} (${capacityMemory(capacity)}); ` +
      `${options.shownAs?.output ?? options.output} keeps this capture unless the new one drops fewer`,
  );
  const retry = await captureRun(options, io, {
    manifestDir,
    // Measured once: the same submits, untraced, whatever the buffer.
    baseline,
    selection: { ...options.selection, capacity },
    second: true,
    onCaptured: async () => {},
  });
  const withCapacity = `with --capacity ${count(capacity)}`;
  if (retry.kind === 'failed') {
    if (retry.interruptedBy !== null) {
      tellFirst(`not replaced: capturing again ${withCapacity} was interrupted (${retry.interruptedBy})`);
      return { status: retry.status, ending: 'interrupted' };
    }
    tellFirst(`not replaced: capturing again ${withCapacity} failed: ${retry.message}`);
    return kept(first.ending);
  }
  const next = retry.capture;
  const nextDropped = next.header.capture.recordsWritten - next.header.capture.recordsKept;
  if (nextDropped >= dropped) {
    tellFirst(`not replaced: captured again ${withCapacity}, ${count(nextDropped)} records dropped, no fewer`);
    return kept(retry.ending);
  }
  const nextSize = await writeFileAtomic(options.output, [next.wtrace], { overwrite: true });
  if (options.raw !== null && next.raw !== null) await writeFileAtomic(options.raw, [next.raw], { overwrite: true });
  const draws = next.header.draws.length === firstCapture.header.draws.length ? '' : `; it had ${count(firstCapture.header.draws.length)} draws, this one ${count(next.header.draws.length)}`;
  const line = `captured again ${withCapacity}: the first capture dropped ${count(dropped)} of ${count(c.recordsWritten)} records (the buffer held ${count(c.bufferCapacity)})${draws}`;
  io.out(captureSummary({ ...summaryOf(options, next), size: nextSize, asked: capacity, retry: line }));
  return kept(retry.ending);
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * Whether a capture that dropped records is taken again, and with what buffer: only where the CLI sized it (no fixed
 * --capacity) and a larger buffer can help; null where nothing was dropped or the summary's advice says it all (the
 * buffer was already the most the device or the layer holds).
 */
function secondCapture(options: AppCaptureOptions, header: TraceHeader, asked: number): SecondCapture | null {
  const c = header.capture;
  if (c.recordsWritten <= c.recordsKept || options.growCapacity !== true) return null;
  // The device held less than asked (maxStorageBufferRange): a larger request gets no more.
  if (c.bufferCapacity < asked) return null;
  const capacity = retryCapacity(c.recordsWritten);
  if (capacity <= c.bufferCapacity) return null;
  // The frame after a trigger comes when the user makes it come: a second run could not find it.
  if (options.selection.trigger !== null) return { why: `not captured again: --trigger frames are not repeated (--capacity ${count(capacity)} next time)` };
  return { capacity };
}

function summaryOf(options: AppCaptureOptions, capture: Captured) {
  return {
    output: options.shownAs?.output ?? options.output,
    header: capture.header,
    warpCount: capture.warpCount,
    progress: capture.progress,
    stats: capture.stats,
    selection: options.selection,
    raw: options.shownAs === undefined ? options.raw : options.shownAs.raw,
  };
}

/** One run of the app with the layer, up to the capture converted (and the app gone). */
async function captureRun(options: AppCaptureOptions, io: CliIo, plan: RunPlan): Promise<RunResult> {
  const { manifestDir, baseline, selection } = plan;
  // A fresh private folder: the socket's path must be short (sun_path is 108 bytes) and no other user may connect.
  const temp = mkdtempSync(join(tmpdir(), 'warptrace-app-'));
  const rawPath = resolve(plan.second || options.raw === null ? join(temp, 'capture.wtraw') : options.raw);
  let settle: (outcome: Outcome) => void = () => {};
  const outcome = new Promise<Outcome>((resolvePromise) => (settle = resolvePromise));
  const say = (text: string) => io.err(`warptrace: ${oneLine(text)}`);
  const failed = (message: string, status: number, interruptedBy: NodeJS.Signals | null = null): RunResult => {
    if (!plan.second) io.err(`warptrace capture: ${message}`);
    return { kind: 'failed', message, status, interruptedBy };
  };
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
          say(`capturing ${event.frame === null ? describeSelection(selection) : `frame ${event.frame}`}`);
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
    const env = layerEnvironment(options.env ?? process.env, { manifestDir, socketPath: server.socketPath, rawOutput: rawPath, selection });
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
      return failed(`${describeSelection(selection)} was not captured within ${options.timeoutSeconds} s; ${notCapturedMessage(progress, selection, null)}`, 1);
    }
    if (first.kind === 'untraceable') {
      // As after capture-written: SIGTERM, SIGKILL after the grace period.
      say(`no device the layer can trace after ${DEVICE_GRACE_MS / 1000} s: ending the app (--exit-after)`);
      await app.stop();
      return failed(`nothing captured: the layer cannot trace ${describeRefused(devices.refused)}`, 1);
    }
    if (first.kind === 'exited') {
      // The layer may still report a capture written just before the exit: its event is already in.
      if (app.interruptedBy !== null) {
        return failed(`interrupted (${app.interruptedBy}); the app ended (${describeExit(first.exit)}), nothing captured`, app.interruptedBy === 'SIGINT' ? 130 : 143, app.interruptedBy);
      }
      return failed(notCapturedMessage(progress, selection, first.exit), 1);
    }
    if (options.exitAfter) void app.stop();
    if (first.kind === 'failed') {
      const result = failed(`the layer could not capture ${describeSelection(selection)}: ${oneLine(first.why)}`, 1);
      await waitForApp(app, options.exitAfter, say);
      return result;
    }
    let capture: Captured;
    try {
      capture = { ...convertCapture(first.event.path, rawPath, options, plan.second && options.raw !== null, say), progress, stats: server.stats };
    } catch (error) {
      // The first run's conversion error is the command's (exit 1, as before); a second run's leaves the first trace.
      if (!plan.second || !(error instanceof InputError)) throw error;
      await waitForApp(app, options.exitAfter, say);
      return failed(error.message, 1);
    }
    await plan.onCaptured(capture);
    const ending = await waitForApp(app, options.exitAfter, say, plan.onRunningOn);
    return { kind: 'captured', capture, ending, interruptedBy: app.interruptedBy };
  } finally {
    if (timer !== null) clearTimeout(timer);
    devices.cancel();
    // On an error of ours (a conversion that threw) the app must not outlive the CLI that serves its layer.
    if (app !== null && app.running) await app.stop();
    await server.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Converts the layer's raw dump into a .wtrace (in memory); `keepRaw`: its bytes too. */
function convertCapture(
  reportedPath: string,
  rawPath: string,
  options: AppCaptureOptions,
  keepRaw: boolean,
  say: (text: string) => void,
): { wtrace: Uint8Array; header: TraceHeader; warpCount: number; raw: Uint8Array | null } {
  // The layer writes where WARPTRACE_OUTPUT said; a different path in its event is a layer bug, not a file to read blindly.
  if (resolve(reportedPath) !== rawPath) say(`the layer reported ${reportedPath}, not ${rawPath}; reading ${rawPath}`);
  if (!existsSync(rawPath)) throw new InputError(`the layer reported a capture, but ${rawPath} does not exist`);
  const bytes = readInputFile(rawPath);
  try {
    const converted = wtrawToWtrace(bytes, { describeModule: describeBlocks });
    return { wtrace: converted.wtrace, header: converted.header, warpCount: converted.warpCount, raw: keepRaw ? bytes : null };
  } catch (error) {
    const keep = options.raw === null ? ' (keep the raw dump with --raw FILE.wtraw to look at it)' : '';
    throw new InputError(`cannot convert the layer's capture: ${error instanceof Error ? error.message : String(error)}${keep}`);
  }
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

function track(progress: LayerProgress, event: LayerEvent): void {
  if (event.event === 'skipped') progress.skipped.push({ what: event.what, why: event.why });
  if (event.event === 'note') progress.notes.push({ what: event.what, why: event.why });
  if (event.event === 'capture-started') progress.started = event.frame ?? 0;
  if ((event.event === 'capture-started' || event.event === 'capture-failed') && event.frames !== null) {
    progress.frames = Math.max(progress.frames ?? 0, event.frames);
  }
}
