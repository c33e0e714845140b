/**
 * Compiles the reference workloads' GLSL twice: traced (warptrace.glsl on,
 * with the switches the device calls for, see capture/shaders/warptrace.glsl)
 * and plain (every wt* call compiles to nothing). Outputs are cached per
 * device profile and rebuilt only when a source is newer.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { StageName } from '../../shared-schema/index.js';
import { InputError } from '../../cli/command.js';
import { DEMO_SHADER_DIR, TRACE_SHADER_DIR, buildDir } from './paths.js';
import { inParallel, runTool } from './tools.js';

/** What the device offers the shaders (from `wt-capture-vk --probe`). */
export interface DeviceProfile {
  readonly subgroupClock: boolean;
  readonly deviceClock: boolean;
  readonly smBuiltins: boolean;
  /** Stages where basic + ballot subgroup operations work. */
  readonly subgroupStages: readonly StageName[];
  /** Lanes per subgroup, when probed: wider than 32 leaves no record word for the screen position (WT_POSITION 0). */
  readonly subgroupSize?: number;
  /** Subgroup min/max work (the screen position's reduction); false: no position in subgroup stages. Absent: assumed. */
  readonly subgroupArithmetic?: boolean;
}

/** An NVIDIA GPU with VK_KHR_shader_clock and VK_NV_shader_sm_builtins (H100, driver 580). */
export const NVIDIA_PROFILE: DeviceProfile = {
  subgroupClock: true,
  deviceClock: true,
  smBuiltins: true,
  subgroupStages: ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS', 'TASK', 'MESH', 'RAYGEN', 'ANY_HIT', 'CLOSEST_HIT', 'MISS', 'INTERSECTION', 'CALLABLE'],
};

/** glslangValidator's file extensions, and the stage each compiles to. */
const STAGE_OF_EXTENSION: Readonly<Record<string, StageName>> = {
  vert: 'VS',
  tesc: 'TCS',
  tese: 'TES',
  geom: 'GS',
  frag: 'FS',
  comp: 'CS',
  task: 'TASK',
  mesh: 'MESH',
  rgen: 'RAYGEN',
  rahit: 'ANY_HIT',
  rchit: 'CLOSEST_HIT',
  rmiss: 'MISS',
  rint: 'INTERSECTION',
  rcall: 'CALLABLE',
};

/** The stage a workload shader file ("rt.rgen", or its SPIR-V "rt.rgen.spv") compiles to; undefined for other files. */
export function stageOfShaderFile(file: string): StageName | undefined {
  const name = file.endsWith('.spv') ? file.slice(0, -4) : file;
  return STAGE_OF_EXTENSION[name.slice(name.lastIndexOf('.') + 1)];
}

/** Which shaders of a set are traced, and how. */
export interface ShaderSetOptions {
  /** Stages compiled with tracing on; the rest compile plain. Empty: a plain set. */
  readonly tracedStages: readonly StageName[];
  /** WT_VARIANT (cost-breakdown experiments); undefined: the record. */
  readonly variant?: number;
  /** WT_VARIANT of single stages, overriding `variant`. */
  readonly stageVariants?: Readonly<Partial<Record<StageName, number>>>;
  /** More -D switches for the traced stages (e.g. -DWT_EARLY_FRAGMENT_TESTS=1). */
  readonly extraDefines?: readonly string[];
  /** glslangValidator's --target-env; default vulkan1.2. vulkan1.0 gives SPIR-V 1.0, for the harness's --app --vulkan-1.0. */
  readonly targetEnv?: 'vulkan1.0' | 'vulkan1.2';
  /** glslangValidator -g: line information and the source text in the SPIR-V (block profiles map to source lines). */
  readonly debugInfo?: boolean;
}

export const ALL_STAGES: readonly StageName[] = ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS', 'TASK', 'MESH', 'RAYGEN', 'ANY_HIT', 'CLOSEST_HIT', 'MISS', 'INTERSECTION', 'CALLABLE'];
const VULKAN_1_0_STAGES: readonly StageName[] = ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'];
export const TRACED: ShaderSetOptions = { tracedStages: ALL_STAGES };
export const PLAIN: ShaderSetOptions = { tracedStages: [] };

/** glslangValidator -D switches of one traced stage (the same as wtShaderDefines in warptrace.h). */
export function traceDefines(profile: DeviceProfile, stage: StageName, variant?: number): string[] {
  const subgroup = profile.subgroupStages.includes(stage);
  const defines = [
    '-DWT_ENABLE',
    `-DWT_SUBGROUP_CLOCK=${profile.subgroupClock ? 1 : 0}`,
    `-DWT_DEVICE_CLOCK=${profile.deviceClock ? 1 : 0}`,
    `-DWT_SM_BUILTINS=${profile.smBuiltins ? 1 : 0}`,
    `-DWT_SUBGROUP=${subgroup ? 1 : 0}`,
  ];
  // As wtShaderDefines: the position takes record word 3 (lanes 32..63 otherwise) and, per subgroup, a min/max.
  if ((profile.subgroupSize ?? 0) > 32 || (subgroup && profile.subgroupArithmetic === false)) defines.push('-DWT_POSITION=0');
  if (variant !== undefined) defines.push(`-DWT_VARIANT=${variant}`);
  return defines;
}

/** The workload shader sources (file names such as "aqt.vert"). */
export function demoShaderFiles(): string[] {
  return readdirSync(DEMO_SHADER_DIR)
    .filter((f) => stageOfShaderFile(f) !== undefined)
    .sort();
}

function newestSourceMs(): number {
  let newest = 0;
  for (const dir of [DEMO_SHADER_DIR, TRACE_SHADER_DIR]) {
    for (const f of readdirSync(dir)) newest = Math.max(newest, statSync(join(dir, f)).mtimeMs);
  }
  return newest;
}

function setKey(profile: DeviceProfile, options: ShaderSetOptions): string {
  const text = JSON.stringify({ profile, options });
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * Compiles every workload shader into a directory of FILE.spv for the harness
 * (--shaders DIR). Returns the directory. Up-to-date outputs are kept.
 */
export async function compileShaderSet(profile: DeviceProfile, options: ShaderSetOptions, outDir?: string): Promise<string> {
  const dir = outDir ?? join(buildDir(), 'spv', setKey(profile, options));
  mkdirSync(dir, { recursive: true });
  const newest = newestSourceMs();
  // Vulkan 1.0 has no task, mesh or ray-tracing stage (the harness's 1.0 app runs only workloads without them).
  const files = options.targetEnv === 'vulkan1.0' ? demoShaderFiles().filter((f) => VULKAN_1_0_STAGES.includes(stageOfShaderFile(f)!)) : demoShaderFiles();
  const jobs = files.map((file) => async () => {
    const out = join(dir, `${file}.spv`);
    if (existsSync(out) && statSync(out).mtimeMs >= newest) return;
    const stage = stageOfShaderFile(file)!;
    const traced = options.tracedStages.includes(stage);
    const temp = `${out}.${process.pid}.tmp`;
    const args = [
      '-V',
      '--target-env',
      options.targetEnv ?? 'vulkan1.2',
      `-I${TRACE_SHADER_DIR}`,
      ...(options.debugInfo === true ? ['-g'] : []),
      ...(traced ? [...traceDefines(profile, stage, options.stageVariants?.[stage] ?? options.variant), ...(options.extraDefines ?? [])] : []),
      join(DEMO_SHADER_DIR, file),
      '-o',
      temp,
    ];
    const r = await runTool('glslangValidator', args, 'install glslang-tools (see scripts/install-system-deps.sh)');
    if (r.code !== 0) {
      const error = (r.stdout + r.stderr).split('\n').find((l) => l.startsWith('ERROR')) ?? r.stdout.trim();
      throw new InputError(`cannot compile ${file}: ${error}`);
    }
    renameSync(temp, out);
  });
  await inParallel(jobs, Math.max(1, Math.min(4, cpus().length)));
  return dir;
}
