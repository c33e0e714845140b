/**
 * Drives the native harness: --probe (what the device offers) and one capture
 * (a .wtraw file). Its one-line errors ("no Vulkan device: ...", "... lacks
 * the tessellationShader feature") become InputErrors.
 */
import { STAGES, type StageName } from '../../shared-schema/index.js';
import { InputError } from '../../cli/command.js';
import type { DeviceProfile } from './shaders.js';
import { lastLine, runTool } from './tools.js';

export interface ProbedDevice extends DeviceProfile {
  readonly name: string;
  readonly driverName: string;
  readonly driverVersion: string;
  readonly subgroupSize: number;
  readonly smCount: number;
  readonly warpsPerSm: number;
}

const STAGE_NAMES = new Set<string>(STAGES.map((s) => s.name));

function harnessError(binary: string, stderr: string, code: number): InputError {
  const line = lastLine(stderr).replace(/^wt-capture-vk: /, '');
  return new InputError(line || `${binary} failed (exit ${code})`);
}

export async function probeDevice(binary: string, device?: number): Promise<ProbedDevice> {
  const args = ['--probe', ...(device === undefined ? [] : ['--device', String(device)])];
  const r = await runTool(binary, args, 'build it with `warptrace capture`');
  if (r.code !== 0) throw harnessError(binary, r.stderr, r.code);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new InputError(`the capture harness printed an unreadable device probe: ${r.stdout.slice(0, 80)}`);
  }
  const stages = Array.isArray(json['subgroupStages']) ? json['subgroupStages'].filter((s): s is StageName => typeof s === 'string' && STAGE_NAMES.has(s)) : [];
  return {
    name: String(json['name'] ?? ''),
    driverName: String(json['driverName'] ?? ''),
    driverVersion: String(json['driverVersion'] ?? ''),
    subgroupClock: json['subgroupClock'] === true,
    deviceClock: json['deviceClock'] === true,
    smBuiltins: json['smBuiltins'] === true,
    subgroupStages: stages,
    subgroupSize: Number(json['subgroupSize'] ?? 0),
    // Absent from older harness builds: assumed where ballots work (as on every device seen).
    subgroupArithmetic: json['subgroupArithmetic'] !== false,
    smCount: Number(json['smCount'] ?? 0),
    warpsPerSm: Number(json['warpsPerSm'] ?? 0),
  };
}

export interface HarnessCapture {
  readonly workload: string;
  readonly tracedShaders: string;
  /** Plain twin for the overhead measure (null: not measured). */
  readonly plainShaders: string | null;
  readonly out: string;
  readonly params: readonly (readonly [string, number])[];
  readonly capacity?: number;
  readonly overheadFrames?: number;
  readonly device?: number;
  /** Draw N of the capture reads draw id 0xFFFFFFFF, as the layer marks draws outside `--draws A..B` (`--skip-draw N`). */
  readonly skipDraw?: number;
  /** Block profiles (`--blocks`): a block table, each traced draw a row for the modules marked by `warptrace instrument --blocks`. */
  readonly blocks?: boolean;
  /** Cells of the block table (the harness's default: 65536). */
  readonly blockCells?: number;
  /** `pipeline`: the draws of one pipeline share one row (a profile per pipeline); default `draw`, a row each. */
  readonly blockRows?: 'draw' | 'pipeline';
  /** Ray events (`--ray-events`): a ray-event table, each trace-rays call a row, for modules from `warptrace instrument --ray-events`. */
  readonly rayEvents?: boolean;
  /** Sampling rates (`--sample STAGE=N`: one warp in N of that stage records), written into every draw's draw-id block words 10-11. */
  readonly sample?: readonly (readonly [string, number])[];
}

/** What the harness reports on stdout after a capture. */
export interface HarnessReport {
  readonly records: number;
  readonly counter: number;
  readonly capacity: number;
  readonly draws: number;
  readonly plainFrameNs?: number;
  readonly tracedFrameNs?: number;
}

export async function runCapture(binary: string, job: HarnessCapture): Promise<HarnessReport> {
  const args = ['--workload', job.workload, '--shaders', job.tracedShaders, '--out', job.out];
  if (job.plainShaders !== null) args.push('--plain-shaders', job.plainShaders);
  for (const [key, value] of job.params) args.push('--param', `${key}=${value}`);
  if (job.capacity !== undefined) args.push('--capacity', String(job.capacity));
  if (job.overheadFrames !== undefined) args.push('--overhead-frames', String(job.overheadFrames));
  if (job.device !== undefined) args.push('--device', String(job.device));
  if (job.skipDraw !== undefined) args.push('--skip-draw', String(job.skipDraw));
  if (job.blocks === true) args.push('--blocks');
  if (job.blockCells !== undefined) args.push('--block-cells', String(job.blockCells));
  if (job.blockRows !== undefined) args.push('--block-rows', job.blockRows);
  if (job.rayEvents === true) args.push('--ray-events');
  for (const [stage, every] of job.sample ?? []) args.push('--sample', `${stage}=${every}`);
  const r = await runTool(binary, args, 'build it with `warptrace capture`');
  if (r.code !== 0) throw harnessError(binary, r.stderr, r.code);
  const report = JSON.parse(lastLine(r.stdout)) as HarnessReport;
  return report;
}

export async function listWorkloads(binary: string): Promise<string> {
  const r = await runTool(binary, ['--list'], 'build it with `warptrace capture`');
  if (r.code !== 0) throw harnessError(binary, r.stderr, r.code);
  return r.stdout.trimEnd();
}
