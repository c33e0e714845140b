/**
 * Turns `warptrace instrument` / `warptrace capture --instrument` flags into
 * InstrumentOptions. Pure (no I/O) so both commands and the tests share it.
 */
import {
  CUSTOM_ID_SOURCES,
  DEFAULT_CUSTOM_IDS,
  INSTRUMENTED_STAGES,
  LEGACY_SUBGROUP_MODES,
  TARGETS,
  checkOptions,
  customIdsFor,
  targetOptions,
  type CustomIdSource,
  type DiscardMode,
  DISCARD_MODES,
  SAMPLING_MODES,
  type SamplingMode,
  POSITION_STAGES,
  MARK_SITES,
  type MarkSite,
  type PositionStage,
  type InstrumentOptions,
  type InstrumentedStage,
  type LegacySubgroupMode,
  type TargetName,
} from './options.js';

export interface InstrumentFlags {
  readonly target?: string | undefined;
  readonly set?: string | undefined;
  readonly binding?: string | undefined;
  readonly smBuiltins?: boolean | undefined;
  readonly noSmBuiltins?: boolean | undefined;
  readonly subgroupStages?: string | undefined;
  readonly clocks?: string | undefined;
  readonly stageId?: readonly string[] | undefined;
  readonly legacySubgroup?: string | undefined;
  readonly entry?: readonly string[] | undefined;
  readonly discard?: string | undefined;
  /** Only to say where the rate went: the instrumenter no longer takes one. */
  readonly sampleFs?: string | undefined;
  readonly sampling?: string | undefined;
  readonly position?: string | undefined;
  readonly blocks?: boolean | undefined;
  readonly marks?: string | undefined;
  readonly rayEvents?: boolean | undefined;
}

/** util.parseArgs option table for the flags above. */
export const INSTRUMENT_ARG_OPTIONS = {
  target: { type: 'string' },
  set: { type: 'string' },
  binding: { type: 'string' },
  'sm-builtins': { type: 'boolean' },
  'no-sm-builtins': { type: 'boolean' },
  'subgroup-stages': { type: 'string' },
  clocks: { type: 'string' },
  'stage-id': { type: 'string', multiple: true },
  'legacy-subgroup': { type: 'string' },
  entry: { type: 'string', multiple: true },
  discard: { type: 'string' },
  'sample-fs': { type: 'string' },
  sampling: { type: 'string' },
  position: { type: 'string' },
  blocks: { type: 'boolean' },
  marks: { type: 'string' },
  'ray-events': { type: 'boolean' },
} as const;

/** Stage names on the command line: glslang's file extensions for ray tracing (the schema's names work too: any_hit). */
export const STAGE_FLAG_NAMES: Readonly<Record<InstrumentedStage, string>> = {
  VS: 'vs',
  TCS: 'tcs',
  TES: 'tes',
  GS: 'gs',
  FS: 'fs',
  CS: 'cs',
  TASK: 'task',
  MESH: 'mesh',
  RAYGEN: 'rgen',
  ANY_HIT: 'rahit',
  CLOSEST_HIT: 'rchit',
  MISS: 'rmiss',
  INTERSECTION: 'rint',
  CALLABLE: 'rcall',
};

export const INSTRUMENT_FLAGS_HELP = `Target (what the device supports; the GLSL library adapts the same way):
  --target T            ${Object.entries(TARGETS)
    .map(([name, t]) => `${name}: ${t.text}`)
    .join('\n                        ')}
                        (default nvidia)
  --sm-builtins, --no-sm-builtins
                        record gl_SMIDNV / gl_WarpIDNV, or SM 0xffff / slot 0xff
  --subgroup-stages L   stages with subgroup operations, e.g. fs,cs or none: one
                        record per warp there, one per invocation elsewhere
                        (stages: ${INSTRUMENTED_STAGES.map((s) => STAGE_FLAG_NAMES[s]).join(' ')})
  --clocks C            sm,device (default) | device | sm
  --legacy-subgroup M   for SPIR-V 1.0-1.2 modules: upgrade (default: raise to 1.3,
                        needs a Vulkan 1.1 application) | khr-ballot (keep the
                        version, SPV_KHR_shader_ballot) | per-invocation
Trace buffer:
  --set N               descriptor set of the trace buffer and draw-id block (default 7)
  --binding M           trace buffer binding (default 0); the draw-id block takes M+1
Records:
  --stage-id S=SRC,...  custom id per stage (repeatable). Sources:
${(Object.keys(CUSTOM_ID_SOURCES) as CustomIdSource[]).map((s) => `                          ${s.padEnd(23)}${s === 'none' ? 'all' : CUSTOM_ID_SOURCES[s].stages.map((t) => STAGE_FLAG_NAMES[t]).join('/')}: ${CUSTOM_ID_SOURCES[s].text}`).join('\n')}
                        defaults: ${INSTRUMENTED_STAGES.map((s) => `${STAGE_FLAG_NAMES[s]}=${DEFAULT_CUSTOM_IDS[s]}`).join(', ')}
  --discard D           fragment lanes that discard: defer (default: they leave the
                        shader at once, are counted in their warp's record, and are
                        killed after it) | kill (as written: they record nothing, a
                        warp whose lanes all discard writes no record)
  --sampling M          runtime (default): every warp decides before its first clock,
                        from its stage's rate the host writes into the draw-id block
                        (warptrace capture --sample fs=8, the host header's
                        wtSetSampling; unset: every warp), whether it records; an
                        unsampled warp runs the shader alone | none: no decision
                        code, every warp of a traced draw records
  --position L          stages whose records carry the warp's screen position (word 3,
                        flag POSITION): fs (floor(gl_FragCoord.xy) of non-helper
                        lanes), rgen, rahit, rchit, rmiss, rint, rcall (gl_LaunchIDEXT.xy:
                        the launch pixel), cs (gl_GlobalInvocationID.xy), or none
                        (default fs and every ray-tracing stage, like the GLSL library);
                        the lanes' bounding box via subgroup min/max, subgroups of up
                        to 32 lanes
  --entry NAME          instrument only this entry point (repeatable; default all)
Block profiles:
  --blocks              every basic block counts its warp executions, live lanes and
                        clock ticks per draw into a block table at binding M+2 (the
                        host gives each draw a row: shared-schema/README.md "Block
                        profiles"); off, the module is what it was without the flag
Marks inside a warp:
  --marks L             mark records (stage 15, shared-schema/README.md "Marks") at: trace
                        (right before and after every trace call), loops (each loop
                        header's iteration, and its exit), e.g. trace,loops; at most 16
                        per invocation; off, the module is what it was without the flag
Ray events:
  --ray-events          in ray-tracing stages, per launch pixel of each profiled
                        trace-rays call: trace calls, intersection, any-hit,
                        closest-hit, miss and callable invocations, ignored and
                        useless any-hits, into a ray-event table at binding M+3
                        (shared-schema/README.md "Ray events"); the draw-id block
                        gains word 2, the call's row; modules without ray-tracing
                        entry points, and every module without the flag, are
                        what they were`;

export class FlagError extends Error {
  override readonly name = 'FlagError';
}

export function optionsFromFlags(flags: InstrumentFlags): InstrumentOptions {
  const target = flags.target ?? 'nvidia';
  if (!(target in TARGETS)) throw new FlagError(`unknown --target "${target}" (${Object.keys(TARGETS).join(', ')})`);
  let options: InstrumentOptions = targetOptions(target as TargetName);
  const patch = (p: Partial<InstrumentOptions>) => (options = { ...options, ...p });

  if (flags.set !== undefined) patch({ set: parseU32(flags.set, '--set') });
  if (flags.binding !== undefined) patch({ binding: parseU32(flags.binding, '--binding') });
  if (flags.smBuiltins && flags.noSmBuiltins) throw new FlagError('--sm-builtins and --no-sm-builtins contradict each other');
  if (flags.smBuiltins) patch({ smBuiltins: true });
  if (flags.noSmBuiltins) patch({ smBuiltins: false });
  if (flags.subgroupStages !== undefined) patch({ subgroupStages: parseStages(flags.subgroupStages) });
  if (flags.clocks !== undefined) {
    const parts = new Set(flags.clocks.split(',').map((s) => s.trim().toLowerCase()));
    for (const p of parts) if (p !== 'sm' && p !== 'device') throw new FlagError(`--clocks takes sm, device or sm,device, not "${p}"`);
    patch({ subgroupClock: parts.has('sm'), deviceClock: parts.has('device') });
  }
  if (flags.legacySubgroup !== undefined) {
    if (!(LEGACY_SUBGROUP_MODES as readonly string[]).includes(flags.legacySubgroup)) throw new FlagError(`--legacy-subgroup takes ${LEGACY_SUBGROUP_MODES.join(', ')}`);
    patch({ legacySubgroup: flags.legacySubgroup as LegacySubgroupMode });
  }
  if (flags.discard !== undefined) {
    if (!(DISCARD_MODES as readonly string[]).includes(flags.discard)) throw new FlagError(`--discard takes ${DISCARD_MODES.join(', ')}`);
    patch({ discard: flags.discard as DiscardMode });
  }
  if (flags.sampleFs !== undefined) {
    throw new FlagError(
      '--sample-fs is gone: the rate is set at run time by the host, not compiled in (the layer: warptrace capture --sample fs=8; the host header: wtSetSampling); modules instrumented with --sampling runtime (the default) read it',
    );
  }
  if (flags.sampling !== undefined) {
    if (!(SAMPLING_MODES as readonly string[]).includes(flags.sampling)) throw new FlagError(`--sampling takes ${SAMPLING_MODES.join(' or ')}, not "${flags.sampling}"`);
    patch({ sampling: flags.sampling as SamplingMode });
  }
  if (flags.position !== undefined) patch({ positionStages: parsePositionStages(flags.position) });
  if (flags.stageId !== undefined) {
    const customIds: Record<InstrumentedStage, CustomIdSource> = { ...options.customIds };
    for (const item of flags.stageId.flatMap((s) => s.split(','))) {
      const [stageText, source] = item.split('=').map((s) => s.trim());
      const stage = instrumentedStage(stageText ?? '', '--stage-id');
      if (source === undefined || !(source in CUSTOM_ID_SOURCES)) {
        throw new FlagError(`--stage-id ${item}: expected STAGE=SOURCE with SOURCE one of ${customIdsFor(stage).join(', ')}`);
      }
      customIds[stage] = source as CustomIdSource;
    }
    patch({ customIds });
  }
  if (flags.entry !== undefined && flags.entry.length > 0) patch({ entryPoints: [...flags.entry] });
  if (flags.blocks === true) patch({ blocks: true });
  if (flags.marks !== undefined) patch({ marks: parseMarkSites(flags.marks) });
  if (flags.rayEvents === true) patch({ rayEvents: true });
  const problem = checkOptions(options);
  if (problem !== null) throw new FlagError(problem);
  return options;
}

/** --marks trace,loops: the sites in MARK_SITES order. */
export function parseMarkSites(text: string, flag = '--marks'): MarkSite[] {
  const sites = new Set(text.split(',').map((s) => s.trim().toLowerCase()));
  for (const s of sites) if (!(MARK_SITES as readonly string[]).includes(s)) throw new FlagError(`${flag} takes ${MARK_SITES.join(', ')} (comma-separated), not "${s}"`);
  return MARK_SITES.filter((s) => sites.has(s));
}

function parsePositionStages(text: string): PositionStage[] {
  if (text.trim().toLowerCase() === 'none') return [];
  const stages = new Set(text.split(',').map((s) => instrumentedStage(s.trim(), '--position')));
  for (const s of stages) {
    if (!(POSITION_STAGES as readonly string[]).includes(s)) throw new FlagError(`--position: ${STAGE_FLAG_NAMES[s]} records no screen position (${POSITION_STAGES.map((p) => STAGE_FLAG_NAMES[p]).join(', ')} or none)`);
  }
  return POSITION_STAGES.filter((s) => stages.has(s));
}

function parseU32(text: string, flag: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 0xfffffffe) throw new FlagError(`${flag} takes a non-negative integer, not "${text}"`);
  return Number(text);
}

function parseStages(text: string): InstrumentedStage[] {
  if (text.trim().toLowerCase() === 'none') return [];
  return [...new Set(text.split(',').map((s) => instrumentedStage(s.trim(), '--subgroup-stages')))];
}

function instrumentedStage(text: string, flag: string): InstrumentedStage {
  const lower = text.toLowerCase();
  const name = INSTRUMENTED_STAGES.find((s) => s.toLowerCase() === lower || STAGE_FLAG_NAMES[s] === lower);
  if (name === undefined) throw new FlagError(`${flag}: "${text}" is not one of ${INSTRUMENTED_STAGES.map((s) => STAGE_FLAG_NAMES[s]).join(', ')}`);
  return name;
}
