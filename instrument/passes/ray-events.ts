/**
 * The ray-events pass (`--ray-events`, InstrumentOptions.rayEvents): per launch pixel of a profiled
 * trace-rays call, the ray-tracing stages count their events into the ray-event table at the trace
 * binding + 3 (shared-schema/ray-event-layout.ts, README "Ray events"). Calls to the functions of
 * ray-event-code.ts go
 *
 *   at each ray-tracing entry function's start   warptrace_ray_pixel(LaunchId, LaunchSize) (the pixel's
 *                                                 cell and scratch entry); ray generation: warptrace_ray_launch;
 *                                                 any-hit, closest-hit: RayTmaxKHR's bits stored; intersection,
 *                                                 any-hit, closest-hit, miss, callable: warptrace_ray_event(word, 1);
 *                                                 closest-hit: warptrace_ray_closest_hit()
 *   before each OpReturn of an any-hit entry      warptrace_ray_accept() (returning accepts the hit)
 *   before OpTerminateRay*                        warptrace_ray_accept()
 *   before OpIgnoreIntersection*                  warptrace_ray_event(ANY_HITS_IGNORED, 1)
 *   around OpTraceRayKHR                          s = warptrace_ray_trace_begin(); trace; warptrace_ray_trace_end(s)
 *   around the other trace instructions           s = warptrace_ray_trace_uncounted(); trace; warptrace_ray_scratch_restore(s)
 *   around hit-object shader execution            s = warptrace_ray_scratch_save(); execute; warptrace_ray_scratch_restore(s)
 *
 * Calls, not inline code, and no new block: a branch would split the block (blocks and marks count
 * blocks and loops as the source has them). The pass runs before the endings pass, which then moves
 * the any-hit endings after the record: the calls stay where the endings were. Before the reorders
 * and marks passes too: their calls sit inside this pass's around a trace, closest to it.
 */
import { RAY_EVENT_MARK, RayCellWord } from '../../shared-schema/ray-event-layout.js';
import { encodeString, instruction, type Instruction } from '../model/binary.js';
import { FunctionCode as CodeBuilder } from '../model/function-code.js';
import { parseFunctions, reachableFrom, writeFunctions, type FunctionCode } from '../model/functions.js';
import { Section } from '../model/module.js';
import { BuiltIn, MemoryModel, Op, Scope } from '../model/spec.js';
import { InstrumentError } from '../errors.js';
import { isRayTracingStage, type InstrumentedStage } from '../options.js';
import { insertionPoint, nonSemanticSets, privateUint } from './blocks.js';
import { TRACE_OPS } from './marks.js';
import type { InstrumentPass, PassContext, TracedEntry } from './pass.js';
import { CELL_NONE, RayFunctions, SCRATCH_NONE, type RayFunction } from './ray-event-code.js';

export { RAY_FUNCTIONS } from './ray-event-code.js';

/** The globals an entry point's ray-event code reaches (its prologue's built-ins, the functions' buffers and variables), for its interface. */
export interface RayEventHooks {
  readonly globals: readonly number[];
}

/** The cell word each stage counts at its entry (ray generation counts launches and trace calls instead). */
export const ENTRY_EVENT: Readonly<Partial<Record<InstrumentedStage, number>>> = {
  INTERSECTION: RayCellWord.INTERSECTIONS,
  ANY_HIT: RayCellWord.ANY_HITS,
  CLOSEST_HIT: RayCellWord.CLOSEST_HITS,
  MISS: RayCellWord.MISSES,
  CALLABLE: RayCellWord.CALLABLES,
};

/** Instructions that run a hit object's closest-hit or miss shader outside a trace: the outer traversal's scratch entry is kept aside. */
export const EXECUTE_OPS: ReadonlySet<number> = new Set([Op.HitObjectExecuteShaderNV, Op.HitObjectExecuteShaderEXT, Op.HitObjectReorderExecuteShaderEXT]);
const IGNORE_OPS: ReadonlySet<number> = new Set([Op.IgnoreIntersectionKHR, Op.IgnoreIntersectionNV]);
const TERMINATE_OPS: ReadonlySet<number> = new Set([Op.TerminateRayKHR, Op.TerminateRayNV]);

export const rayEventsPass: InstrumentPass = {
  name: 'ray-events',
  transform(context) {
    if (!context.options.rayEvents) return;
    const entries = context.entries.filter((e) => isRayTracingStage(e.stage));
    // A module without a traced ray-tracing entry point is what it was (instrument.ts declares the draw-id block alike).
    if (entries.length > 0) instrumentRayEvents(context, entries);
  },
};

interface SiteCounts {
  traces: number;
  otherTraces: number;
  ignores: number;
  accepts: number;
}

function instrumentRayEvents(context: PassContext, entries: readonly TracedEntry[]): void {
  const { editor, decl } = context;
  const section = parseFunctions(editor.section(Section.Function));
  const byId = new Map(section.functions.map((f) => [f.id, f]));
  const ours = (id: number) => editor.nameOf(id)?.startsWith('warptrace_') === true;
  const shared = new Set(context.untracedEntries.flatMap((e) => [...reachableFrom(e.functionId, byId)]));
  const reached = new Set(entries.flatMap((e) => [...reachableFrom(e.functionId, byId)]).filter((id) => !ours(id) && !shared.has(id)));
  if (entries.some((e) => [...reachableFrom(e.functionId, byId)].some((id) => shared.has(id) && !ours(id)))) {
    context.notes.push('ray events: functions an untraced entry point also calls count nothing');
  }

  const hits = entries.some((e) => e.stage === 'ANY_HIT' || e.stage === 'CLOSEST_HIT');
  const privates = {
    cell: privateUint(context, 'warptrace_ray_cell', CELL_NONE),
    scratch: privateUint(context, 'warptrace_ray_scratch', SCRATCH_NONE),
    t: hits ? privateUint(context, 'warptrace_ray_t', 0) : null,
  };
  const atomicScope = editor.memoryModel()[1] === MemoryModel.Vulkan ? Scope.QueueFamily : Scope.Device;
  const functions = new RayFunctions(context, privates, atomicScope);
  const call = (name: RayFunction, type: number, ...args: number[]): Instruction => instruction(Op.FunctionCall, [type, editor.allocId(), functions.id(name), ...args]);
  const counts: SiteCounts = { traces: 0, otherTraces: 0, ignores: 0, accepts: 0 };

  // The entry functions: each starts with its prologue; an any-hit's returns accept.
  const nonSemantic = nonSemanticSets(context);
  const entryGlobals = new Map<number, number[]>();
  for (const [functionId, group] of groupByFunction(entries)) {
    const f = byId.get(functionId)!;
    const entry = group[0]!;
    const prologue = entryPrologue(context, functions, entry);
    const first = f.blocks[0]!;
    const at = insertionPoint(first, true, nonSemantic);
    first.body = [...first.body.slice(0, at), ...prologue.code, ...first.body.slice(at)];
    for (const e of group) entryGlobals.set(e.index, prologue.globals);
    if (entry.stage !== 'ANY_HIT') continue;
    for (const block of f.blocks) {
      const at = block.body.findIndex((inst) => inst.opcode === Op.Return);
      if (at < 0) continue;
      counts.accepts++;
      block.body.splice(at, 0, call('accept', decl.void));
    }
  }

  // Trace calls, hit-object executions, any-hit endings, wherever the entry points reach them.
  for (const f of section.functions) {
    if (reached.has(f.id)) instrumentSites(f, call, counts, context);
  }
  editor.replaceSection(Section.Function, writeFunctions(section));

  const { code, globals } = functions.emit();
  editor.append(Section.Function, ...code);
  for (const e of entries) context.recordParts.get(e.index)!.rayEvents = { globals: [...new Set([...entryGlobals.get(e.index)!, ...globals])] };
  editor.append(Section.DebugSource, instruction(Op.String, [editor.allocId(), ...encodeString(RAY_EVENT_MARK)]));
  const traces = counts.otherTraces === 0 ? `${counts.traces} OpTraceRayKHR` : `${counts.traces} OpTraceRayKHR and ${counts.otherTraces} other (their useless any-hits uncounted)`;
  context.notes.push(`ray events: ${entries.length} entry point${entries.length === 1 ? '' : 's'}; trace calls: ${traces}; any-hit sites: ${counts.ignores} ignore, ${counts.accepts} accept`);
}

/** Traced entries by the function they name: entry points sharing one must be of one stage (one prologue serves them). */
function groupByFunction(entries: readonly TracedEntry[]): Map<number, TracedEntry[]> {
  const groups = new Map<number, TracedEntry[]>();
  for (const e of entries) {
    const group = groups.get(e.functionId) ?? [];
    if (group.length > 0 && group[0]!.stage !== e.stage) {
      throw new InstrumentError(`entry points "${group[0]!.name}" (${group[0]!.stage}) and "${e.name}" (${e.stage}) share one function: ray events count each stage at its entry function's start`);
    }
    group.push(e);
    groups.set(e.functionId, group);
  }
  return groups;
}

/** The prologue's instructions for one entry function, and the globals they use (its built-ins, the t variable). */
function entryPrologue(context: PassContext, functions: RayFunctions, entry: TracedEntry): { code: Instruction[]; globals: number[] } {
  const { decl } = context;
  const g = new CodeBuilder(decl, false, entry.interfaceIds);
  const launchId = g.load(g.builtin(BuiltIn.LaunchIdKHR, 'uvec3'));
  const launchSize = g.load(g.builtin(BuiltIn.LaunchSizeKHR, 'uvec3'));
  g.value(Op.FunctionCall, decl.void, functions.id('pixel'), launchId, launchSize);
  if (entry.stage === 'RAYGEN') g.value(Op.FunctionCall, decl.void, functions.id('launch'), launchId, launchSize);
  if (entry.stage === 'ANY_HIT' || entry.stage === 'CLOSEST_HIT') {
    const t = g.value(Op.Bitcast, decl.uint, g.load(g.builtin(BuiltIn.RayTmaxKHR, 'float')));
    g.op(Op.Store, g.global(functions.privates.t!), t);
  }
  const word = ENTRY_EVENT[entry.stage];
  if (word !== undefined) g.value(Op.FunctionCall, decl.void, functions.id('event'), decl.u32(word), decl.u32(1));
  if (entry.stage === 'CLOSEST_HIT') g.value(Op.FunctionCall, decl.void, functions.id('closestHit'));
  return { code: g.code, globals: [...g.globals] };
}

/** The calls around and before the sites of one function the traced entry points reach. */
function instrumentSites(f: FunctionCode, call: (name: RayFunction, type: number, ...args: number[]) => Instruction, counts: SiteCounts, context: PassContext): void {
  const { decl } = context;
  const bracket = (before: RayFunction, inst: Instruction, after: RayFunction): Instruction[] => {
    const saved = call(before, decl.uvec2);
    return [saved, inst, call(after, decl.void, saved.words[2]!)];
  };
  const sites = (inst: Instruction): Instruction[] => {
    if (inst.opcode === Op.TraceRayKHR) {
      counts.traces++;
      return bracket('traceBegin', inst, 'traceEnd');
    }
    if (TRACE_OPS.has(inst.opcode)) {
      counts.otherTraces++;
      return bracket('traceUncounted', inst, 'scratchRestore');
    }
    if (EXECUTE_OPS.has(inst.opcode)) return bracket('scratchSave', inst, 'scratchRestore');
    if (IGNORE_OPS.has(inst.opcode)) {
      counts.ignores++;
      return [call('event', decl.void, decl.u32(RayCellWord.ANY_HITS_IGNORED), decl.u32(1)), inst];
    }
    if (TERMINATE_OPS.has(inst.opcode)) {
      counts.accepts++;
      return [call('accept', decl.void), inst];
    }
    return [inst];
  };
  for (const block of f.blocks) block.body = block.body.flatMap(sites);
}
