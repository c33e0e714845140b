/**
 * The app mode of `warptrace capture`: `capture [options] -- APP ARGS...`
 * traces an unmodified Vulkan app through the capture layer. This file reads
 * and checks the options; capture/capture-run/app-capture.ts does the run.
 */
import { resolve } from 'node:path';
import { DEFAULT_TIMEOUT_SECONDS, captureApp } from '../../capture/capture-run/app-capture.js';
import type { BlockSelection, CaptureSelection, SubmitRange } from '../../capture/capture-run/app-environment.js';
import { UsageError, parseCommandArgs, type CliIo } from '../command.js';
import { checkOutputs } from '../files.js';
import type { MarkSite } from '../../instrument/options.js';
import { LAYER_STAGES, sampleRates } from './capture-sample.js';
import { FlagError, parseMarkSites } from '../../instrument/cli-options.js';
import { DEFAULT_CAPACITY, MAX_CAPACITY, parseCapacity } from '../../capture/capture-run/app-capacity.js';
import { MAX_BUDGET_RUNS } from '../../capture/capture-run/app-budget-runs.js';

export const DEFAULT_FRAME = 60;
/** Untraced runs timed before a --submits capture: a median of three is robust to one slow run. */
export const DEFAULT_OVERHEAD_RUNS = 3;

export const APP_CAPTURE_HELP = `App mode: trace an unmodified Vulkan app through the capture layer
(VK_LAYER_WARPTRACE_capture, built from capture/layer/ into .capture-build/layer):
  warptrace capture -o OUT.wtrace [--frame N | --submits N..M | --trigger FILE]
                    [--stages vs,fs] [--draws GLOB|A..B] [--sample N|fs=8,..] [--budget B] [--offscreen]
                    [--capacity auto|auto:N|N] [--exit-after] -- APP ARGS...

Everything after the first -- is the app's command line. The app runs with the
layer enabled (VK_ADD_LAYER_PATH, VK_INSTANCE_LAYERS prepended) and asks this
command to instrument its shaders (cached by content in
$XDG_CACHE_HOME/warptrace/spirv); the raw dump the layer writes is converted
into OUT. The app's stdout goes to stderr, so stdout carries only the summary.

  -o, --output OUT       the .wtrace to write
  --frame N              capture frame N, counted in presents (default ${DEFAULT_FRAME})
  --submits N..M         capture queue submits N to M (0-based, inclusive) instead,
                         for apps that never present
  --overhead-runs K      with --submits: run the app K times untraced first and time the
                         same submits, for the traced run's overhead figure (default
                         ${DEFAULT_OVERHEAD_RUNS}; 0: skip; the app must do the same work each run)
  --trigger FILE         capture the frame after FILE appears (the layer deletes it):
                         run \`touch FILE\` when the app shows what you want
  --stages LIST          stages to trace, comma-separated: vs,tcs,tes,gs,fs,cs,task,mesh,
                         rgen,ahit,chit,miss,rint,call (ray tracing) (default all)
  --draws SPEC           draws to trace: a label glob (GBuffer*, * and ?) or an index range A..B
  --capacity SIZE        trace buffer size in records of 32 bytes (1..${MAX_CAPACITY}; the layer
                         gives at most what the device holds, in a note). auto (the
                         default) starts at ${DEFAULT_CAPACITY} (64 MiB) and, if the capture drops
                         records, runs the app once more with what the frame needed plus
                         1/8 (not with --trigger; without --exit-after only if the app
                         exits by itself), keeping the trace that dropped fewer; auto:N
                         starts at N. A number N is fixed: one run, whatever it drops
  --sample SPEC          record one warp in N: N for every stage (--sample 8) or per stage
                         (--sample fs=8,vs=4; the --stages names), N a power of two up to
                         32768. Each warp decides before it reads a clock, on a hash of its
                         first lane's pixel, vertex, patch, launch cell or workgroup and the
                         draw (the same frame samples the same warps); the others run as
                         untraced. Counts and summed times are then estimates (x N, with a
                         standard error), figures that need every warp (idle, syncs,
                         occupancy of the stage) are withheld; the trace says so.
                         --sample-fs N is --sample fs=N
  --budget B             keep the traced frame within B times the untraced frames before it
                         (1 < B <= 100, up to 4 decimals; 1.10: 10% longer): capture, read the
                         trace's overhead, and while it is over B capture again, sampling more
                         warps of the stages that recorded the most (never one with under 1%
                         of the recorded warps while another can be sampled more), at most
                         ${MAX_BUDGET_RUNS} runs in all. Each run launches the app again: use it with an app
                         whose frame N is the same work every run, and with --exit-after
                         (with --trigger, touch FILE again in each run).
                         --sample gives the first run's rates (default every warp). Keeps the
                         first run within B, else the lowest, saying plainly the budget was
                         not met (exit 0). The trace records the rates as chosen by the budget
                         (capture.sampling) and the budget (capture.parameters.budget). Frames
                         only (--frame, --trigger), not --submits
  --positions LIST       warps that record their screen position: fs, cs, rgen, ahit, chit,
                         miss, rint, call (comma-separated; the ray-tracing stages' pixel
                         is the launch id) or none (default fs and every ray-tracing
                         stage; positions cost ~10% of a light fragment-bound frame on
                         the H100, see bench/RESULTS.md)
  --fs-id ID             the fragment records' custom id: frag-coord (default: the first
                         lane's pixel), primitive-id (gl_PrimitiveID: costs 10-16% of a
                         tessellated or mesh-shader frame on the H200 even in warps that
                         record nothing, see bench/RESULTS.md) or none
  --blocks               block profiles: per basic block of each traced shader, per draw,
                         warp executions, live lanes and clock ticks (the instrumenter's
                         --blocks; graphics pipelines, whole or linked from libraries,
                         compute, and ray-tracing pipelines without libraries; see
                         \`warptrace blocks\`). Shader objects, descriptor-buffer pipelines
                         and ray-tracing pipelines linking libraries are traced without
                         one: a note says so, and each such draw says why (info, blocks)
  --block-cells N        cells of the block table (1..67108864; default 262144, 8 MiB):
                         one per basic block of each profiled draw; the GPU counts into
                         up to 64 copies of it (256 MiB at most), summed when written
  --block-rows pipeline  one profile per pipeline (its draws share a row) instead of per draw
  --marks LIST           marks inside a warp (the instrumenter's --marks): trace (right
                         before and after every trace call), loops (each loop header's
                         iteration, and its exit), comma-separated; at most 16 per
                         invocation, each placed on its warp (shared-schema "Marks")
  --ray-events           ray events (the instrumenter's --ray-events): per launch pixel of
                         each traced trace-rays call (up to 4 per capture), trace calls,
                         intersection, any-hit, closest-hit, miss and callable invocations,
                         ignored and useless any-hits (shared-schema "Ray events"; see
                         \`warptrace rays\`). Ray-tracing pipelines, libraries included, not
                         with descriptor buffers. WARPTRACE_RAY_ROWS and _RAY_CELLS size it
  --offscreen            the app presents into the layer's own images, never to a display:
                         window surfaces (xcb, Xlib, Wayland) and VK_EXT_headless_surface
                         (which the layer provides where the driver lacks it) get
                         swapchains of ordinary images; frames, --frame and --trigger
                         count as usual. For GPUs with no display (datacentre GPUs) and
                         CI. A windowed app still needs its window system (X: run it
                         under xvfb-run). Without it the layer does the same for a window
                         the device cannot present to (WARPTRACE_OFFSCREEN=0: never)
  --exit-after           end the app (SIGTERM, SIGKILL 3 s later) once the capture is written,
                         or once the layer has refused every device the app made (no shader
                         clock, an extension it does not know, ...) and none it can trace
                         came within 5 s; without it the command waits for the app to exit
  --timeout SECONDS      end the app and fail when nothing is captured in time
                         (default ${DEFAULT_TIMEOUT_SECONDS}; 0: no limit)
  --raw FILE.wtraw       also keep the raw dump
  --cache DIR            SPIR-V cache folder (default $XDG_CACHE_HOME/warptrace/spirv,
                         or $WARPTRACE_SPIRV_CACHE)
  --force                replace OUT (and --raw) if they exist

Ctrl-C is passed on to the app. WARPTRACE_LAYER_DIR names a prebuilt layer folder
(holding VkLayer_warptrace.json): then nothing is built.
Exit status: 0 captured; 1 the app exited or timed out before the capture, the layer
never loaded, failed or cannot trace the app's device (it says why at once); 2 usage
error; 130 interrupted.`;

/** Runs `capture OPTIONS -- APP ARGS`: `own` are the options before the --, `app` the command line after it. */
export async function runAppCapture(own: readonly string[], app: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(own, {
    output: { type: 'string', short: 'o' },
    frame: { type: 'string' },
    submits: { type: 'string' },
    trigger: { type: 'string' },
    stages: { type: 'string' },
    draws: { type: 'string' },
    capacity: { type: 'string' },
    sample: { type: 'string' },
    budget: { type: 'string' },
    'sample-fs': { type: 'string' },
    positions: { type: 'string' },
    'fs-id': { type: 'string' },
    blocks: { type: 'boolean' },
    'block-cells': { type: 'string' },
    'block-rows': { type: 'string' },
    marks: { type: 'string' },
    'ray-events': { type: 'boolean' },
    'exit-after': { type: 'boolean' },
    offscreen: { type: 'boolean' },
    'overhead-runs': { type: 'string' },
    timeout: { type: 'string' },
    raw: { type: 'string' },
    cache: { type: 'string' },
    force: { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]} before -- (the app's command line goes after it)`);
  if (app.length === 0 || app[0] === '') throw new UsageError('no app after -- (usage: warptrace capture -o OUT.wtrace -- APP ARGS...)');
  if (values.output === undefined) throw new UsageError('missing -o OUT.wtrace');
  if (values.frame !== undefined && values.submits !== undefined) throw new UsageError('--frame and --submits exclude each other');
  if (values.trigger !== undefined && values.submits !== undefined) throw new UsageError('--trigger and --submits exclude each other');
  if (values.trigger === '') throw new UsageError('--trigger needs a file path');
  if (values.cache === '') throw new UsageError('--cache needs a folder');
  // --submits are measured against separate untraced runs (--overhead-runs), not against frames of the same run.
  if (values.budget !== undefined && values.submits !== undefined) {
    throw new UsageError('--budget applies to frames: it compares the traced frame with the untraced frames before it in the same run, and --submits overhead comes from separate untraced runs');
  }
  const budget = values.budget === undefined ? null : parseBudget(values.budget);
  const capacity = parseCapacity(values.capacity);
  if (capacity === null) throw new UsageError(`--capacity needs auto, auto:N or N, N a whole number from 1 to ${MAX_CAPACITY}, got "${values.capacity}"`);
  const selection: CaptureSelection = {
    // A trigger alone decides the frame; --frame with it is passed on for the layer to combine.
    frame: values.frame !== undefined ? wholeNumber(values.frame, '--frame', 1, 0xffffffff) : values.submits !== undefined || values.trigger !== undefined ? null : DEFAULT_FRAME,
    submits: values.submits === undefined ? null : parseRange(values.submits, '--submits'),
    // Absolute: the app may change its working directory before the layer looks.
    trigger: values.trigger === undefined ? null : resolve(values.trigger),
    stages: values.stages === undefined ? null : parseStages(values.stages),
    draws: values.draws === undefined ? null : parseDraws(values.draws),
    capacity: capacity.start,
    sample: sampleRates(values.sample, values['sample-fs']),
    positions: values.positions === undefined ? null : parsePositions(values.positions),
    fsCustomId: values['fs-id'] === undefined ? null : parseFsCustomId(values['fs-id']),
    blocks: parseBlocks(values.blocks === true, values['block-cells'], values['block-rows']),
    marks: values.marks === undefined ? null : markSites(values.marks),
    rayEvents: values['ray-events'] === true,
  };
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : wholeNumber(values.timeout, '--timeout', 0, 7 * 24 * 3600);
  if (values['overhead-runs'] !== undefined && values.submits === undefined) {
    throw new UsageError('--overhead-runs applies to --submits (a frame is measured against the untraced frames before it)');
  }
  const overheadRuns = values['overhead-runs'] === undefined ? (values.submits === undefined ? 0 : DEFAULT_OVERHEAD_RUNS) : wholeNumber(values['overhead-runs'], '--overhead-runs', 0, 100);
  const force = values.force === true;
  checkOutputs([{ option: '-o', path: values.output }, ...(values.raw === undefined ? [] : [{ option: '--raw', path: values.raw }])], [], force);
  return captureApp(
    {
      app,
      output: values.output,
      raw: values.raw ?? null,
      force,
      selection,
      exitAfter: values['exit-after'] === true,
      timeoutSeconds,
      overheadRuns,
      offscreen: values.offscreen === true,
      growCapacity: capacity.grow,
      budget,
      ...(values.cache === undefined ? {} : { cacheDir: values.cache }),
    },
    io,
  );
}

/** --budget B: 1 < B <= 100, at most 4 decimals (what the layer reads back, and what the trace records). */
function parseBudget(text: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d{1,4})?$/.test(text) || !(value > 1) || value > 100) throw new UsageError(`--budget needs a number above 1 and at most 100, with up to 4 decimals (1.10: 10% over the untraced frames), got "${text}"`);
  return value;
}

function wholeNumber(text: string, flag: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new UsageError(`${flag} needs a whole number from ${min} to ${Math.floor(max)}, got "${text}"`);
  return value;
}

function parseRange(text: string, flag: string): SubmitRange {
  const match = /^(\d+)\.\.(\d+)$/.exec(text);
  if (match === null) throw new UsageError(`${flag} needs N..M (whole numbers), got "${text}"`);
  const first = Number(match[1]);
  const last = Number(match[2]);
  if (first > 0xffffffff || last > 0xffffffff || first > last) throw new UsageError(`${flag} needs N <= M (32-bit), got "${text}"`);
  return { first, last };
}

function parseStages(text: string): string[] {
  const stages = [...new Set(text.split(',').map((s) => s.trim().toLowerCase()))];
  for (const stage of stages) {
    if (!(LAYER_STAGES as readonly string[]).includes(stage)) throw new UsageError(`--stages takes ${LAYER_STAGES.join(',')}, got "${stage}"`);
  }
  return LAYER_STAGES.filter((s) => stages.includes(s));
}

/** A glob the layer can match (printable, no separators it would misread) or an index range A..B. */
function parseDraws(text: string): string {
  if (/^\d+\.\.\d+$/.test(text)) {
    parseRange(text, '--draws');
    return text;
  }
  if (text === '' || text.length > 1024 || /[\u0000-\u001f\u007f]/.test(text)) throw new UsageError(`--draws needs a label glob or an index range A..B, got "${text}"`);
  return text;
}

/** --marks trace,loops: the sites, or a usage error naming the option. */
export function markSites(text: string): MarkSite[] {
  try {
    return parseMarkSites(text);
  } catch (error) {
    if (error instanceof FlagError) throw new UsageError(error.message);
    throw error;
  }
}

/** --blocks, --block-cells, --block-rows: null without --blocks. */
function parseBlocks(blocks: boolean, cells: string | undefined, rows: string | undefined): BlockSelection | null {
  if (!blocks) {
    if (cells !== undefined || rows !== undefined) throw new UsageError('--block-cells and --block-rows need --blocks');
    return null;
  }
  if (rows !== undefined && rows !== 'draw' && rows !== 'pipeline') throw new UsageError(`--block-rows takes draw or pipeline, not "${rows}"`);
  return { cells: cells === undefined ? null : wholeNumber(cells, '--block-cells', 1, 1 << 26), perPipeline: rows === 'pipeline' };
}

/** The stages whose warps can record a position, as --stages names them: fragment, compute and the ray-tracing stages. */
const POSITION_LAYER_STAGES = ['fs', 'cs', 'rgen', 'ahit', 'chit', 'miss', 'rint', 'call'] as const satisfies readonly (typeof LAYER_STAGES)[number][];

/** --positions: 'none', or stages among POSITION_LAYER_STAGES. */
export function parsePositions(text: string): string {
  const list = text.split(',').map((s) => s.trim().toLowerCase());
  if (list.length === 1 && list[0] === 'none') return 'none';
  const bad = list.find((s) => !(POSITION_LAYER_STAGES as readonly string[]).includes(s));
  if (bad !== undefined) throw new UsageError(`--positions: expected ${POSITION_LAYER_STAGES.join(', ')} (comma-separated) or none, got "${bad}"`);
  return [...new Set(list)].join(',');
}

/** --fs-id: the fragment stage's custom id source (WARPTRACE_FS_ID). */
export function parseFsCustomId(text: string): 'primitive-id' | 'frag-coord' | 'none' {
  if (text === 'primitive-id' || text === 'frag-coord' || text === 'none') return text;
  throw new UsageError(`--fs-id takes primitive-id, frag-coord or none, got "${text}"`);
}
