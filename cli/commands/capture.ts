import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { encodeWtrace, STAGES, type Trace, decodeWtraw } from '../../shared-schema/index.js';
import { buildNative } from '../../capture/capture-run/native.js';
import { listWorkloads, probeDevice, runCapture } from '../../capture/capture-run/harness.js';
import { PLAIN, TRACED, compileShaderSet } from '../../capture/capture-run/shaders.js';
import { autoInstrumentOptions, autoInstrumentSet } from '../../capture/capture-run/auto-instrument.js';
import { InputError, UsageError, parseCommandArgs, type Command } from '../command.js';
import { DECODE_OPTIONS, checkOutputs, formatBytes, readInputFile, writeFileAtomic } from '../files.js';
import { APP_CAPTURE_HELP, markSites, runAppCapture } from './capture-app.js';

export const captureCommand: Command = {
  name: 'capture',
  summary: 'trace a Vulkan app (-- APP ARGS) or a reference workload on the GPU into a calibrated warp trace',
  help: `usage: warptrace capture -o OUT.wtrace [options] -- APP ARGS...
       warptrace capture --workload NAME -o OUT.wtrace [options]
       warptrace capture --list

${APP_CAPTURE_HELP}

Workload mode (--workload):
Builds the headless harness (cmake + g++ against libvulkan-dev, into
.capture-build/), compiles the workload's shaders with glslangValidator for
what the device offers (traced and plain twins), runs one traced frame,
measures the overhead (plain vs traced frames interleaved in the same run),
and converts the raw dump into a calibrated .wtrace.

Workloads (--list prints their knobs):
  aqt               AQT-like frame: irregular / regular-quartet / regular tessellated draws
  tess-stall        a few very expensive TCS patches hold the in-order pipeline; then sorted
  syncs             free-running draws vs draws separated by full pipeline barriers
  compute-graphics  a dispatch beside a VS+GS+FS draw, then a dispatch after a barrier
  busy-loop         a dispatch and a full-screen draw whose work follows the work knob
  divergence        a dispatch and a full-screen draw whose branch half of every warp takes

Options:
  --workload NAME        the workload to run
  -o, --output OUT       the .wtrace to write
  --param KEY=VALUE      set a workload knob (repeatable), e.g. --param shading=256
  --raw FILE.wtraw       also keep the raw GPU dump (re-convert it with warptrace convert)
  --overhead-frames N    frames of each kind timed for the overhead figure (20; 0: skip)
  --capacity RECORDS     trace buffer size in records (2097152 = 64 MiB)
  --device N             Vulkan physical device index (default: the first GPU)
  --shaders DIR          use this instrumented SPIR-V (DIR/aqt.vert.spv, ...) instead of
                         compiling the hand-instrumented sources, e.g. auto-instrumented shaders
  --plain-shaders DIR    the plain twin for the overhead figure (default: compiled from source)
  --instrument auto      trace with the plain shaders instrumented by \`warptrace instrument\`
                         (for what the device offers) instead of the hand-instrumented sources
  --blocks               block profiles: per basic block of each shader, per draw, warp
                         executions, live lanes and clock ticks (implies --instrument auto,
                         with the instrumenter's --blocks; with --shaders, their marked modules)
  --block-cells N        cells of the block table (65536): one per block of each profiled draw
  --block-rows pipeline  one profile per pipeline (its draws share a row) instead of per draw
  --marks LIST           marks inside a warp: trace, loops (comma-separated; implies
                         --instrument auto, with the instrumenter's --marks)
  --ray-events           ray events: per launch pixel of each trace-rays call, trace calls,
                         intersection/any-hit/closest-hit/miss/callable invocations, ignored
                         and useless any-hits (implies --instrument auto, with the
                         instrumenter's --ray-events; ray-tracing workloads)
  --force                replace OUT (and --raw) if they exist
  --list                 list the workloads and their knobs
  -h, --help

Environment: WARPTRACE_BUILD_DIR moves the build outputs (default .capture-build/).
Exit status: 0 ok, 1 no Vulkan device, missing feature or tool, failed capture; 2 usage error.`,
  async run(argv, io) {
    // Everything after the first -- is an app's command line: its options are the app's, not ours.
    const split = argv.indexOf('--');
    if (split >= 0) return runAppCapture(argv.slice(0, split), argv.slice(split + 1), io);
    const { values, positionals } = parseCommandArgs(argv, {
      workload: { type: 'string' },
      output: { type: 'string', short: 'o' },
      param: { type: 'string', multiple: true },
      raw: { type: 'string' },
      'overhead-frames': { type: 'string' },
      capacity: { type: 'string' },
      device: { type: 'string' },
      shaders: { type: 'string' },
      'plain-shaders': { type: 'string' },
      instrument: { type: 'string' },
      blocks: { type: 'boolean' },
      'block-cells': { type: 'string' },
      'block-rows': { type: 'string' },
      marks: { type: 'string' },
      'ray-events': { type: 'boolean' },
      force: { type: 'boolean' },
      list: { type: 'boolean' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (values.list) {
      io.out(await listWorkloads(await buildNative()));
      return 0;
    }
    if (values.workload === undefined) throw new UsageError('missing --workload NAME (see --list)');
    if (values.output === undefined) throw new UsageError('missing -o OUT.wtrace');
    const output = values.output;
    const force = values.force === true;
    checkOutputs([{ option: '-o', path: output }, ...(values.raw === undefined ? [] : [{ option: '--raw', path: values.raw }])], [], force);
    const params = (values.param ?? []).map(parseParam);
    const overheadFrames = optionalCount(values['overhead-frames'], '--overhead-frames');
    const capacity = optionalCount(values.capacity, '--capacity');
    const device = optionalCount(values.device, '--device');
    if (capacity === 0) throw new UsageError('--capacity must be at least 1');
    const blocks = values.blocks === true;
    const blockCells = optionalCount(values['block-cells'], '--block-cells');
    if (blockCells !== undefined && !blocks) throw new UsageError('--block-cells needs --blocks');
    if (blockCells === 0) throw new UsageError('--block-cells must be at least 1');
    const blockRows = values['block-rows'];
    if (blockRows !== undefined && (!blocks || (blockRows !== 'draw' && blockRows !== 'pipeline'))) {
      throw new UsageError('--block-rows takes draw or pipeline, with --blocks');
    }
    const marks = values.marks === undefined ? [] : markSites(values.marks);
    if (marks.length > 0 && values.shaders !== undefined) throw new UsageError('--marks instruments the plain shaders itself: it excludes --shaders');
    // Block profiles and marks come from the instrumenter's passes: --blocks traces auto-instrumented shaders (or --shaders as given).
    const rayEvents = values['ray-events'] === true;
    if (rayEvents && values.shaders !== undefined) throw new UsageError('--ray-events instruments the plain shaders itself: it excludes --shaders');
    const auto = values.instrument === 'auto' || (blocks && values.shaders === undefined) || marks.length > 0 || rayEvents;
    if (values.instrument !== undefined && values.instrument !== 'auto') throw new UsageError(`--instrument takes auto, not "${values.instrument}"`);
    if (auto && values.shaders !== undefined) throw new UsageError('--instrument auto and --shaders exclude each other');

    const binary = await buildNative();
    const probed = await probeDevice(binary, device);
    const traced = values.shaders !== undefined ? checkDir(values.shaders) : auto ? null : await compileShaderSet(probed, TRACED);
    const plain = (overheadFrames === 0 && !auto) ? null : values['plain-shaders'] !== undefined ? checkDir(values['plain-shaders']) : await compileShaderSet(probed, blocks ? { ...PLAIN, debugInfo: true } : PLAIN);
    const tracedDir = traced ?? autoInstrumentSet(plain!, { ...autoInstrumentOptions(probed), ...(blocks ? { blocks: true } : {}), ...(marks.length > 0 ? { marks } : {}), ...(rayEvents ? { rayEvents } : {}) });

    const temp = values.raw === undefined ? mkdtempSync(join(tmpdir(), 'warptrace-capture-')) : null;
    const rawPath = values.raw ?? join(temp!, 'capture.wtraw');
    try {
      const report = await runCapture(binary, {
        workload: values.workload,
        tracedShaders: tracedDir,
        plainShaders: overheadFrames === 0 ? null : plain,
        out: rawPath,
        params,
        ...(capacity === undefined ? {} : { capacity }),
        ...(overheadFrames === undefined ? {} : { overheadFrames }),
        ...(device === undefined ? {} : { device }),
        ...(blocks ? { blocks, ...(blockCells === undefined ? {} : { blockCells }), ...(blockRows === undefined ? {} : { blockRows }) } : {}),
        ...(rayEvents ? { rayEvents } : {}),
      });
      const trace = decodeWtraw(readInputFile(rawPath), DECODE_OPTIONS);
      const bytes = encodeWtrace(trace);
      await writeFileAtomic(output, [bytes], { overwrite: force });
      io.out(describe(output, bytes.length, trace, probed.name));
      if (report.counter > report.capacity) {
        io.err(`warning: ${report.counter - report.capacity} records dropped: the buffer holds ${report.capacity}; raise --capacity`);
      }
      return 0;
    } finally {
      if (temp !== null) rmSync(temp, { recursive: true, force: true });
    }
  },
};

function parseParam(text: string): [string, number] {
  const eq = text.indexOf('=');
  const value = Number(text.slice(eq + 1));
  if (eq <= 0 || text.slice(eq + 1).trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`--param needs KEY=NUMBER (a number >= 0), got "${text}"`);
  }
  return [text.slice(0, eq), value];
}

function optionalCount(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) > 0xffffffff) throw new UsageError(`${flag} needs a whole number, got "${text}"`);
  return Number(text);
}

function checkDir(dir: string): string {
  if (!existsSync(dir)) throw new InputError(`${dir}: no such shader directory`);
  return resolve(dir);
}

function describe(output: string, size: number, trace: Trace, deviceName: string): string {
  const c = trace.capture;
  const perStage = STAGES.map((s) => {
    let n = 0;
    for (let i = 0; i < trace.warps.count; i++) if (trace.warps.stage[i] === s.code) n++;
    return n > 0 ? `${s.name} ${n.toLocaleString('en-US')}` : '';
  }).filter((s) => s !== '');
  const lines = [
    `wrote ${output} (${formatBytes(size)}): ${c.workload} on ${deviceName}`,
    `  ${trace.warps.count.toLocaleString('en-US')} warps (${perStage.join(', ')}), ${trace.draws.length} draws, ` +
      `${(c.recordsWritten - c.recordsKept).toLocaleString('en-US')} records dropped`,
    `  calibration ${c.calibration.method}, SMs aligned: ${c.calibration.alignedAcrossSms ? 'yes' : 'NO'}`,
  ];
  if (c.overhead !== null) {
    const o = c.overhead;
    lines.push(
      `  overhead ${(o.tracedFrameNs / o.plainFrameNs).toFixed(3)}x: traced ${(o.tracedFrameNs / 1000).toFixed(1)} us vs plain ` +
        `${(o.plainFrameNs / 1000).toFixed(1)} us per frame (median of ${o.frames} each, interleaved)`,
    );
  }
  return lines.join('\n');
}
