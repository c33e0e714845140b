/**
 * What the instrumenter may assume about the device, and where the trace
 * goes. Target presets mirror what the GLSL library adapts to: SM builtins
 * and subgroup operations are optional, per stage.
 */
import { Stage, type StageName } from '../shared-schema/stages.js';

/** The stages the instrumenter handles: every stage code of shared-schema/stages.ts. */
export const INSTRUMENTED_STAGES = ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS', 'TASK', 'MESH', 'RAYGEN', 'ANY_HIT', 'CLOSEST_HIT', 'MISS', 'INTERSECTION', 'CALLABLE'] as const satisfies readonly StageName[];
export type InstrumentedStage = (typeof INSTRUMENTED_STAGES)[number];
/** The graphics pipeline's and compute stages (what lavapipe and the GLSL library's workloads run). */
export const CLASSIC_STAGES = ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'] as const satisfies readonly InstrumentedStage[];
/** Ray-tracing stages: their warps re-form at every trace call (README: "Ray-tracing records"). */
export const RAY_TRACING_STAGES = ['RAYGEN', 'ANY_HIT', 'CLOSEST_HIT', 'MISS', 'INTERSECTION', 'CALLABLE'] as const satisfies readonly InstrumentedStage[];
export const MESH_STAGES = ['TASK', 'MESH'] as const satisfies readonly InstrumentedStage[];

export function isRayTracingStage(stage: InstrumentedStage): boolean {
  return (RAY_TRACING_STAGES as readonly string[]).includes(stage);
}

/** Where a record's CUSTOM_ID comes from. */
export const CUSTOM_ID_SOURCES = {
  'vertex-index': { stages: ['VS'], text: 'gl_VertexIndex' },
  'instance-index': { stages: ['VS'], text: 'gl_InstanceIndex' },
  'primitive-id': { stages: ['TCS', 'TES', 'GS', 'FS', 'INTERSECTION', 'ANY_HIT', 'CLOSEST_HIT'], text: 'gl_PrimitiveID (gl_PrimitiveIDIn in GS); in FS it needs the Geometry capability' },
  'invocation-id': { stages: ['TCS', 'GS'], text: 'gl_InvocationID' },
  'workgroup-id': { stages: ['CS', 'TASK', 'MESH'], text: 'flattened gl_WorkGroupID: x + y*numX + z*numX*numY (NV mesh/task: x)' },
  'local-invocation-index': { stages: ['CS', 'TASK', 'MESH'], text: 'gl_LocalInvocationIndex' },
  'launch-id': { stages: RAY_TRACING_STAGES, text: 'flattened gl_LaunchIDEXT: x + y*sizeX + z*sizeX*sizeY' },
  'instance-custom-index': { stages: ['INTERSECTION', 'ANY_HIT', 'CLOSEST_HIT'], text: 'gl_InstanceCustomIndexEXT' },
  'frag-coord': { stages: ['FS'], text: 'pixel: uint(gl_FragCoord.x) | uint(gl_FragCoord.y) << 16' },
  none: { stages: INSTRUMENTED_STAGES, text: '0' },
} as const satisfies Record<string, { stages: readonly InstrumentedStage[]; text: string }>;
export type CustomIdSource = keyof typeof CUSTOM_ID_SOURCES;

/**
 * Stages whose records may carry a screen position (RecordFlag.POSITION, shared-schema/position.ts):
 * fragment (floor(gl_FragCoord.xy) of non-helper lanes), every ray-tracing stage (gl_LaunchIDEXT.xy:
 * the launch pixel each lane works for), compute (gl_GlobalInvocationID.xy). The GLSL library records
 * FS and the ray-tracing stages by default, CS when asked.
 */
export const POSITION_STAGES = ['FS', ...RAY_TRACING_STAGES, 'CS'] as const satisfies readonly InstrumentedStage[];
export type PositionStage = (typeof POSITION_STAGES)[number];
/**
 * Fragment and every ray-tracing stage: a ray-traced frame's screen panel then has SIMT efficiency per
 * launch pixel for each stage without flags (a hit, miss or callable warp gathers lanes from many rays,
 * so its footprint is the box of their launch pixels).
 */
export const DEFAULT_POSITION_STAGES: readonly PositionStage[] = ['FS', ...RAY_TRACING_STAGES];

export const DEFAULT_CUSTOM_IDS: Readonly<Record<InstrumentedStage, CustomIdSource>> = {
  VS: 'vertex-index',
  TCS: 'primitive-id',
  TES: 'primitive-id',
  GS: 'primitive-id',
  FS: 'primitive-id',
  CS: 'workgroup-id',
  TASK: 'workgroup-id',
  MESH: 'workgroup-id',
  RAYGEN: 'launch-id',
  ANY_HIT: 'primitive-id',
  CLOSEST_HIT: 'primitive-id',
  MISS: 'launch-id',
  INTERSECTION: 'primitive-id',
  CALLABLE: 'launch-id',
};

/**
 * SPIR-V 1.0-1.2 modules have no core subgroup operations:
 * - `upgrade`: raise the module to SPIR-V 1.3 (needs a Vulkan 1.1 application),
 * - `khr-ballot`: keep the version, use SPV_KHR_shader_ballot (needs VK_EXT_shader_subgroup_ballot),
 * - `per-invocation`: keep the version, one record per invocation.
 */
export const LEGACY_SUBGROUP_MODES = ['upgrade', 'khr-ballot', 'per-invocation'] as const;
export type LegacySubgroupMode = (typeof LEGACY_SUBGROUP_MODES)[number];

/**
 * Fragment lanes that discard (OpKill / OpTerminateInvocation):
 * - `defer`: they leave the shader at once, take part in their warp's record, and are killed after it,
 * - `kill`: as written; they never reach the epilogue (a warp whose lanes all discard writes no record).
 */
export const DISCARD_MODES = ['defer', 'kill'] as const;
export type DiscardMode = (typeof DISCARD_MODES)[number];

/**
 * Which warps of a traced draw record (passes/sample-code.ts, shared-schema/sample-layout.ts):
 * - `runtime`: each warp decides in the prologue, before any clock, from its stage's log2 rate the host
 *   writes into the draw-id block (0, the words' initial value: every warp) and a hash of its warp key;
 * - `none`: no decision code, every warp of a traced draw records (the cheapest full trace).
 */
export const SAMPLING_MODES = ['runtime', 'none'] as const;
export type SamplingMode = (typeof SAMPLING_MODES)[number];

export interface InstrumentOptions {
  /** Descriptor set of the trace buffer and the draw-id block. */
  readonly set: number;
  /** Binding of the trace buffer; the draw-id block is at binding + 1. */
  readonly binding: number;
  /** Read gl_SMIDNV / gl_WarpIDNV (SPV_NV_shader_sm_builtins); else SM 0xffff, slot 0xff. */
  readonly smBuiltins: boolean;
  /** Read the subgroup-scope (SM) clock around the shader. */
  readonly subgroupClock: boolean;
  /** Read the device-scope clock in the epilogue. */
  readonly deviceClock: boolean;
  /** Stages with subgroup operations: one record per warp there, one per invocation elsewhere. */
  readonly subgroupStages: readonly InstrumentedStage[];
  readonly customIds: Readonly<Record<InstrumentedStage, CustomIdSource>>;
  readonly legacySubgroup: LegacySubgroupMode;
  readonly discard: DiscardMode;
  /** Entry-point names to instrument; null: all of them. */
  readonly entryPoints: readonly string[] | null;
  /**
   * `runtime`: every traced entry point reads its stage's sampling rate from the draw-id block at run time
   * and an unsampled warp runs the entry point alone (README "Sampled records"); `none`: every warp records.
   */
  readonly sampling: SamplingMode;
  /** Stages whose records carry the warp's screen position (word 3, RecordFlag.POSITION); [] for none. */
  readonly positionStages: readonly PositionStage[];
  /**
   * Block profiles (passes/blocks.ts, shared-schema/block-layout.ts): every basic block of the traced
   * entry points' functions counts its warp executions, live lanes and clock ticks into the block
   * table at binding + 2. Off: the module is byte-for-byte what it was without the option.
   */
  readonly blocks: boolean;
  /**
   * Marks inside a warp (passes/marks.ts): a mark record at each site of these kinds the traced entry
   * points reach. []: none, and the module is byte-for-byte what it was without the option.
   */
  readonly marks: readonly MarkSite[];
  /**
   * Ray events (passes/ray-events.ts, shared-schema/ray-event-layout.ts): in ray-tracing stages, per launch
   * pixel, trace calls, shader invocations and ignored and useless any-hits counted into the ray-event table
   * at binding + 3. Off, or a module without a traced ray-tracing entry point: the module is byte-for-byte
   * what it was without the option.
   */
  readonly rayEvents: boolean;
}

/**
 * Where the instrumenter puts marks (passes/marks.ts, shared-schema/mark-layout.ts):
 * - `trace`: right before and right after every trace call (MarkKind BEFORE_TRACE, AFTER_TRACE),
 * - `loops`: at every loop header, each iteration (LOOP_HEAD), and where the loop exits (LOOP_EXIT).
 */
export const MARK_SITES = ['trace', 'loops'] as const;
export type MarkSite = (typeof MARK_SITES)[number];

export const TARGETS = {
  nvidia: {
    text: 'NVIDIA (VK_NV_shader_sm_builtins, subgroup ops in every stage, ray tracing and mesh included, both clocks)',
    smBuiltins: true,
    subgroupStages: INSTRUMENTED_STAGES,
    subgroupClock: true,
    deviceClock: true,
  },
  lavapipe: {
    text: 'Mesa lavapipe (no SM builtins, subgroup ops in FS and CS only, both clocks)',
    smBuiltins: false,
    subgroupStages: ['FS', 'CS'],
    subgroupClock: true,
    deviceClock: true,
  },
  portable: {
    text: 'any VK_KHR_shader_clock device (no SM builtins, subgroup ops in CS only, both clocks)',
    smBuiltins: false,
    subgroupStages: ['CS'],
    subgroupClock: true,
    deviceClock: true,
  },
} as const satisfies Record<string, { text: string; smBuiltins: boolean; subgroupStages: readonly InstrumentedStage[]; subgroupClock: boolean; deviceClock: boolean }>;
export type TargetName = keyof typeof TARGETS;

/** Set 7 leaves sets 0-6 to the application and fits the Vulkan minimum of maxBoundDescriptorSets on lavapipe and NVIDIA (8+). */
export const DEFAULT_SET = 7;
export const DEFAULT_BINDING = 0;

export function targetOptions(target: TargetName): InstrumentOptions {
  const t = TARGETS[target];
  return {
    set: DEFAULT_SET,
    binding: DEFAULT_BINDING,
    smBuiltins: t.smBuiltins,
    subgroupClock: t.subgroupClock,
    deviceClock: t.deviceClock,
    subgroupStages: t.subgroupStages,
    customIds: DEFAULT_CUSTOM_IDS,
    legacySubgroup: 'upgrade',
    discard: 'defer',
    entryPoints: null,
    sampling: 'runtime',
    positionStages: DEFAULT_POSITION_STAGES,
    blocks: false,
    marks: [],
    rayEvents: false,
  };
}

export const DEFAULT_OPTIONS: InstrumentOptions = targetOptions('nvidia');

/**
 * Largest `warptrace capture --sample-fs`: the capture tool's bound (cli/commands/capture-app.ts). The
 * instrumenter no longer takes a rate: the host writes it into the draw-id block (InstrumentOptions.sampling).
 */
export const MAX_SAMPLE_FRAGMENT = 65536;

/** Why a set of options cannot work; null when they can. */
export function checkOptions(options: InstrumentOptions): string | null {
  const u32 = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
  if (!u32(options.set)) return `descriptor set ${options.set} is not a 32-bit unsigned integer`;
  if (!u32(options.binding) || options.binding === 0xffffffff) return `binding ${options.binding} is out of range (the draw-id block needs binding + 1)`;
  if (options.blocks && options.binding >= 0xfffffffe) return `binding ${options.binding} is out of range (the block table needs binding + 2)`;
  if (options.rayEvents && options.binding >= 0xfffffffd) return `binding ${options.binding} is out of range (the ray-event table needs binding + 3)`;
  if (!options.subgroupClock && !options.deviceClock) return 'at least one clock (subgroup or device) is needed';
  if (!(SAMPLING_MODES as readonly string[]).includes(options.sampling)) return `sampling "${String(options.sampling)}" is none of ${SAMPLING_MODES.join(', ')}`;
  for (const stage of options.positionStages) {
    if (!(POSITION_STAGES as readonly string[]).includes(stage)) return `stage ${String(stage)} records no position (positions: ${POSITION_STAGES.join(', ')})`;
  }
  for (const site of options.marks) {
    if (!(MARK_SITES as readonly string[]).includes(site)) return `marks: "${String(site)}" is no mark site (${MARK_SITES.join(', ')})`;
  }
  for (const stage of INSTRUMENTED_STAGES) {
    const source = options.customIds[stage];
    const allowed: readonly string[] = CUSTOM_ID_SOURCES[source].stages;
    if (!allowed.includes(stage)) return `custom id "${source}" is not available in ${stage} (allowed there: ${customIdsFor(stage).join(', ')})`;
  }
  return null;
}

export function customIdsFor(stage: InstrumentedStage): CustomIdSource[] {
  return (Object.keys(CUSTOM_ID_SOURCES) as CustomIdSource[]).filter((s) => (CUSTOM_ID_SOURCES[s].stages as readonly string[]).includes(stage));
}

export function stageCode(stage: InstrumentedStage): number {
  return Stage[stage];
}
