/**
 * The environment the traced app runs with (capture/layer/CONTRACT.md): the
 * layer found through VK_ADD_LAYER_PATH and enabled through
 * VK_INSTANCE_LAYERS, both prepended so the user's own layers stay, and the
 * WARPTRACE_* variables that tell the layer what to capture and where.
 */
import type { StageName } from '../../shared-schema/index.js';
import { delimiter } from 'node:path';
import { LAYER_NAME } from './layer-build.js';

/** 0-based inclusive queue-submit range. */
export interface SubmitRange {
  readonly first: number;
  readonly last: number;
}

/** What to capture, as the layer's variables carry it. */
export interface CaptureSelection {
  /** Frame N (1-based); null: the layer's default, or none when a trigger or submits decide. */
  readonly frame: number | null;
  readonly submits: SubmitRange | null;
  /** File whose appearance captures the next frame. */
  readonly trigger: string | null;
  /** Stage names for WARPTRACE_STAGES (vs, tcs, tes, gs, fs, cs, task, mesh); null: all. */
  readonly stages: readonly string[] | null;
  /** Label glob or draw index range; null: every draw. */
  readonly draws: string | null;
  /** Trace buffer records; null: the layer's default. */
  readonly capacity: number | null;
  /** One warp in N records, by stage (WARPTRACE_SAMPLE, cli/commands/capture-sample.ts); null or absent: every warp. */
  readonly sample?: Readonly<Partial<Record<StageName, number>>> | null;
  /** --budget B: the rates above were chosen to keep the frame within B (WARPTRACE_SAMPLE_BUDGET); null or absent: by the user. */
  readonly sampleBudget?: number | null;
  /** Stages whose warps record a screen position ('fs', 'fs,cs,rgen,chit', 'none'; WARPTRACE_POSITIONS); null or absent: the instrumenter's default (fragment and ray tracing). */
  readonly positions?: string | null;
  /** The fragment records' custom id (WARPTRACE_FS_ID); null or absent: the layer's default (frag-coord). */
  readonly fsCustomId?: 'primitive-id' | 'frag-coord' | 'none' | null;
  /** Block profiles (WARPTRACE_BLOCKS, _BLOCK_CELLS, _BLOCK_ROWS); null or absent: none. */
  readonly blocks?: BlockSelection | null;
  /** Mark sites (WARPTRACE_MARKS, the instrumenter's --marks: 'trace', 'loops'); null, absent or []: none. */
  readonly marks?: readonly string[] | null;
  /** Ray events (WARPTRACE_RAY_EVENTS): per launch pixel counts of each traced trace-rays call; absent or false: none. */
  readonly rayEvents?: boolean;
}

export interface BlockSelection {
  /** Cells of the block table; null: the layer's default. */
  readonly cells: number | null;
  /** One row per pipeline instead of per draw. */
  readonly perPipeline: boolean;
}

export interface LayerEnvironmentInput {
  readonly manifestDir: string;
  readonly socketPath: string;
  readonly rawOutput: string;
  readonly selection: CaptureSelection;
}

/**
 * The WARPTRACE_* selection variables and those the CLI sets for one run (the overhead baseline's time-only mode, its
 * result): inherited values are dropped so the command line alone decides (an inherited WARPTRACE_TIME_ONLY made the
 * traced run only time, and the capture wait for --timeout).
 */
const SELECTION_VARIABLES = [
  'WARPTRACE_FRAME', 'WARPTRACE_SUBMITS', 'WARPTRACE_TRIGGER', 'WARPTRACE_STAGES', 'WARPTRACE_DRAWS', 'WARPTRACE_CAPACITY', 'WARPTRACE_SAMPLE', 'WARPTRACE_SAMPLE_FS', 'WARPTRACE_SAMPLE_BUDGET', 'WARPTRACE_FS_ID',
  'WARPTRACE_POSITIONS', 'WARPTRACE_BLOCKS', 'WARPTRACE_BLOCK_CELLS', 'WARPTRACE_BLOCK_ROWS', 'WARPTRACE_MARKS', 'WARPTRACE_RAY_EVENTS', 'WARPTRACE_TIME_ONLY', 'WARPTRACE_PLAIN_NS', 'WARPTRACE_PLAIN_RUNS',
] as const;

/** `base` (the CLI's environment) with the layer's variables set. */
export function layerEnvironment(base: NodeJS.ProcessEnv, input: LayerEnvironmentInput): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of SELECTION_VARIABLES) delete env[name];
  env['VK_ADD_LAYER_PATH'] = prepend(input.manifestDir, base['VK_ADD_LAYER_PATH'], delimiter);
  // The loader splits VK_INSTANCE_LAYERS on ':' on Linux (';' on Windows): the same delimiter as paths.
  env['VK_INSTANCE_LAYERS'] = prepend(LAYER_NAME, base['VK_INSTANCE_LAYERS'], delimiter);
  env['WARPTRACE_SOCKET'] = input.socketPath;
  env['WARPTRACE_OUTPUT'] = input.rawOutput;
  const s = input.selection;
  if (s.frame !== null) env['WARPTRACE_FRAME'] = String(s.frame);
  if (s.submits !== null) env['WARPTRACE_SUBMITS'] = `${s.submits.first}..${s.submits.last}`;
  if (s.trigger !== null) env['WARPTRACE_TRIGGER'] = s.trigger;
  if (s.stages !== null) env['WARPTRACE_STAGES'] = s.stages.join(',');
  if (s.draws !== null) env['WARPTRACE_DRAWS'] = s.draws;
  if (s.capacity !== null) env['WARPTRACE_CAPACITY'] = String(s.capacity);
  if (s.sample !== undefined && s.sample !== null) env['WARPTRACE_SAMPLE'] = Object.entries(s.sample).map(([stage, n]) => `${stage}=${n}`).join(',');
  if (s.sampleBudget !== undefined && s.sampleBudget !== null) env['WARPTRACE_SAMPLE_BUDGET'] = String(s.sampleBudget);
  if (s.positions !== undefined && s.positions !== null) env['WARPTRACE_POSITIONS'] = s.positions;
  if (s.fsCustomId !== undefined && s.fsCustomId !== null) env['WARPTRACE_FS_ID'] = s.fsCustomId;
  if (s.blocks !== undefined && s.blocks !== null) {
    env['WARPTRACE_BLOCKS'] = '1';
    if (s.blocks.cells !== null) env['WARPTRACE_BLOCK_CELLS'] = String(s.blocks.cells);
    if (s.blocks.perPipeline) env['WARPTRACE_BLOCK_ROWS'] = 'pipeline';
  }
  if (s.marks !== undefined && s.marks !== null && s.marks.length > 0) env['WARPTRACE_MARKS'] = s.marks.join(',');
  if (s.rayEvents === true) env['WARPTRACE_RAY_EVENTS'] = '1';
  return env;
}

function prepend(value: string, existing: string | undefined, separator: string): string {
  if (existing === undefined || existing === '') return value;
  // Already first (a nested capture, or a user who set it by hand): do not list it twice.
  if (existing.split(separator).includes(value)) return existing;
  return `${value}${separator}${existing}`;
}

/** "frame 60", "submits 3..5", "the frame after FILE appears", for messages. */
export function describeSelection(s: CaptureSelection): string {
  if (s.submits !== null) return `submits ${s.submits.first}..${s.submits.last}`;
  if (s.trigger !== null && s.frame === null) return `the frame after ${s.trigger} appears`;
  return `frame ${s.frame ?? 60}`;
}
