/**
 * The marks pass (`--marks trace,loops`, InstrumentOptions.marks): marks inside a warp
 * (shared-schema/mark-layout.ts, README "Marks"). In the functions the traced entry points
 * reach, it calls `warptrace_mark(id)` (mark-code.ts)
 *
 *   trace  right before and right after every trace call (OpTraceRayKHR, OpTraceNV,
 *          OpTraceMotionNV, OpTraceRayMotionNV, the hit-object traces): ids
 *          BEFORE_TRACE << 24 | site and AFTER_TRACE << 24 | site, sites numbered from 0
 *          in module order;
 *   loops  at every loop header (the block with OpLoopMerge), so each iteration marks
 *          LOOP_HEAD << 24 | loop, and at the start of the loop's merge block,
 *          LOOP_EXIT << 24 | loop, loops numbered from 0 in module order.
 *
 * A call and not inline code: a branch would split the block (a split loop header, or a
 * block a later OpPhi names, would no longer be the same block), so the calls sit after
 * the block's OpPhis like the blocks pass's. A trace that is also a reorder point (the
 * fused EXT trace-reorder-execute) is bracketed outside the reorders pass's calls: the
 * mark before it names the warp that reaches it, the mark after it the warp the lanes
 * joined. The wrapper stores its start clock into a private variable the mark function
 * reads (a report's or reorder's own when the entry has one), so each mark carries its
 * warp record's CLOCK_START, and (sampling 'runtime') its decision, so that only the warps
 * that record mark.
 */
import { MARK_KIND_SHIFT, MARK_SITE_MASK, MarkKind } from '../../shared-schema/mark-layout.js';
import { instruction, type Instruction } from '../model/binary.js';
import { parseFunctions, reachableFrom, writeFunctions, type Block } from '../model/functions.js';
import { Section } from '../model/module.js';
import { BuiltIn, Capability, Decoration, MemoryModel, Op, Scope } from '../model/spec.js';
import { InstrumentError } from '../errors.js';
import { insertionPoint, nonSemanticSets, privateUint } from './blocks.js';
import { emitMarkFunction } from './mark-code.js';
import { sampledFlagVariable } from './sample-code.js';
import type { InstrumentPass, PassContext, TracedEntry } from './pass.js';

/** What the wrapper does for the marks of its entry point: store its start clock into `start`; `globals` go into its interface. */
export interface MarkHooks {
  readonly start: number;
  readonly globals: readonly number[];
}

/** The instructions that send a ray out of the invocation (and bring it back). */
export const TRACE_OPS: ReadonlySet<number> = new Set([
  Op.TraceRayKHR,
  Op.TraceNV,
  Op.TraceMotionNV,
  Op.TraceRayMotionNV,
  Op.HitObjectTraceRayNV,
  Op.HitObjectTraceRayMotionNV,
  Op.HitObjectTraceRayEXT,
  Op.HitObjectTraceRayMotionEXT,
  Op.HitObjectTraceReorderExecuteEXT,
  Op.HitObjectTraceMotionReorderExecuteEXT,
]);

/** The name of the mark function(s): tests and readers of a module find the calls by it. */
export const MARK_FUNCTION = 'warptrace_mark';

export const marksPass: InstrumentPass = {
  name: 'marks',
  transform(context) {
    if (context.options.marks.length === 0) return;
    instrumentMarks(context);
  },
};

/** How an entry point's marks are written: entries alike share one mark function. */
interface Flavour {
  readonly key: string;
  readonly entry: TracedEntry;
  /** The report's or reorder's start variable; null: the pass's own. */
  readonly start: number | null;
}

function instrumentMarks(context: PassContext): void {
  const { editor, decl, options } = context;
  const section = parseFunctions(editor.section(Section.Function));
  const byId = new Map(section.functions.map((f) => [f.id, f]));
  const ours = (id: number) => editor.nameOf(id)?.startsWith('warptrace_') === true;
  const shared = new Set(context.untracedEntries.flatMap((e) => [...reachableFrom(e.functionId, byId)]));

  // Each function takes the flavour of the entries reaching it; one it cannot share is left without marks.
  const flavours = new Map(context.entries.map((e) => [e.index, flavourOf(context, e)]));
  const functionFlavour = new Map<number, Flavour>();
  const mixed = new Set<number>();
  for (const entry of context.entries) {
    const flavour = flavours.get(entry.index)!;
    for (const id of reachableFrom(entry.functionId, byId)) {
      if (ours(id) || shared.has(id)) continue;
      const known = functionFlavour.get(id);
      if (known !== undefined && known.key !== flavour.key) mixed.add(id);
      else functionFlavour.set(id, flavour);
    }
  }
  for (const id of mixed) functionFlavour.delete(id);
  if (mixed.size > 0) context.notes.push(`marks: ${mixed.size} function${mixed.size === 1 ? '' : 's'} that entry points of different kinds share get no marks`);
  if (context.entries.some((e) => [...reachableFrom(e.functionId, byId)].some((id) => shared.has(id) && !ours(id)))) {
    context.notes.push('marks: functions an untraced entry point also calls get no marks');
  }

  // A mark function per flavour that has calls, its id allocated at the first call.
  const markFunctions = new Map<string, { id: number; flavour: Flavour }>();
  const reorderCalls = reorderFunctionIds(context);
  const nonSemantic = nonSemanticSets(context);
  const want = new Set(options.marks);
  let traces = 0;
  let loops = 0;
  let skippedExits = 0;
  const call = (flavour: Flavour, kind: number, site: number): Instruction => {
    if (site > MARK_SITE_MASK) throw new InstrumentError(`marks: more than ${MARK_SITE_MASK + 1} sites of one kind in the module (the mark id holds 24 bits of site)`);
    let fn = markFunctions.get(flavour.key);
    if (fn === undefined) markFunctions.set(flavour.key, (fn = { id: editor.allocId(), flavour }));
    return instruction(Op.FunctionCall, [decl.void, editor.allocId(), fn.id, decl.u32(((kind << MARK_KIND_SHIFT) | site) >>> 0)]);
  };
  for (const f of section.functions) {
    const flavour = functionFlavour.get(f.id);
    if (flavour === undefined) continue;
    const mark = flavour;
    if (want.has('loops')) {
      const labels = new Map(f.blocks.map((b, i) => [b.label, i]));
      const headers = new Set(f.blocks.filter((b) => b.body.some((i) => i.opcode === Op.LoopMerge)).map((b) => b.label));
      const exits: [Block, number][] = [];
      f.blocks.forEach((block, i) => {
        const merge = block.body.find((inst) => inst.opcode === Op.LoopMerge);
        if (merge === undefined) return;
        const loop = loops++;
        insertAtStart(block, i === 0, nonSemantic, call(mark, MarkKind.LOOP_HEAD, loop));
        const mergeLabel = merge.words[1]!;
        // A merge block that heads another loop runs every iteration of that loop: no exit mark there.
        if (headers.has(mergeLabel)) skippedExits++;
        else exits.push([f.blocks[labels.get(mergeLabel)!]!, loop]);
      });
      for (const [block, loop] of exits) insertAtStart(block, false, nonSemantic, call(mark, MarkKind.LOOP_EXIT, loop));
    }
    if (want.has('trace')) {
      for (const block of f.blocks) {
        if (!block.body.some((i) => TRACE_OPS.has(i.opcode))) continue;
        const out: Instruction[] = [];
        for (let k = 0; k < block.body.length; k++) {
          const inst = block.body[k]!;
          if (!TRACE_OPS.has(inst.opcode)) {
            out.push(inst);
            continue;
          }
          const site = traces++;
          // Outside a reorder point's record and restart (passes/reorders.ts ran first).
          const before = call(mark, MarkKind.BEFORE_TRACE, site);
          const last = out[out.length - 1];
          if (last !== undefined && isCallTo(last, reorderCalls.before)) out.splice(out.length - 1, 0, before);
          else out.push(before);
          out.push(inst);
          const next = block.body[k + 1];
          if (next !== undefined && isCallTo(next, reorderCalls.after)) {
            out.push(next);
            k++;
          }
          out.push(call(mark, MarkKind.AFTER_TRACE, site));
        }
        block.body = out;
      }
    }
  }
  editor.replaceSection(Section.Function, writeFunctions(section));
  if (skippedExits > 0) context.notes.push(`marks: ${skippedExits} loop${skippedExits === 1 ? '' : 's'} whose merge block heads another loop mark no exit`);
  emitMarkFunctions(context, markFunctions, flavours);
  const sites = [want.has('trace') ? `${traces} trace call${traces === 1 ? '' : 's'} (a mark before and after each)` : null, want.has('loops') ? `${loops} loop${loops === 1 ? '' : 's'} (a mark at the header each iteration, and at the exit)` : null];
  context.notes.push(`marks: ${sites.filter((s) => s !== null).join(', ')}; at most 16 per invocation`);
}

/** The flavour of an entry: how it combines lanes, whether it is a fragment shader, its start variable, its own built-ins. */
function flavourOf(context: PassContext, entry: TracedEntry): Flavour {
  const parts = context.recordParts.get(entry.index)!;
  const start = parts.reportRecord?.start ?? parts.reorder?.start ?? null;
  // The mark function reads these built-ins: an entry declaring its own needs a function reading that variable.
  const read = new Set<number>([BuiltIn.SMIDNV, BuiltIn.WarpIDNV, BuiltIn.HelperInvocation, BuiltIn.SubgroupLocalInvocationId]);
  const own = [...context.editor.decorationValues(Decoration.BuiltIn)].filter(([id, value]) => read.has(value) && entry.interfaceIds.includes(id)).map(([id]) => id);
  return { key: `${entry.subgroup}|${entry.stage === 'FS'}|${start ?? 'own'}|${own.sort((a, b) => a - b).join(',')}`, entry, start };
}

/** The reorders pass's record and restart functions (every ray-generation entry's). */
function reorderFunctionIds(context: PassContext): { before: ReadonlySet<number>; after: ReadonlySet<number> } {
  const parts = [...context.recordParts.values()].flatMap((p) => (p.reorder === null ? [] : [p.reorder]));
  return { before: new Set(parts.map((r) => r.before)), after: new Set(parts.map((r) => r.after)) };
}

function isCallTo(inst: Instruction, functions: ReadonlySet<number>): boolean {
  return inst.opcode === Op.FunctionCall && functions.has(inst.words[3]!);
}

function insertAtStart(block: Block, first: boolean, nonSemantic: ReadonlySet<number>, inst: Instruction): void {
  const at = insertionPoint(block, first, nonSemantic);
  block.body = [...block.body.slice(0, at), inst, ...block.body.slice(at)];
}

/** One mark function per flavour used; each entry reaching one stores its start clock for it. */
function emitMarkFunctions(context: PassContext, markFunctions: ReadonlyMap<string, { id: number; flavour: Flavour }>, flavours: ReadonlyMap<number, Flavour>): void {
  const { editor, decl, options } = context;
  if (markFunctions.size === 0) return;
  const counter = privateUint(context, 'warptrace_mark_count', 0);
  let ownStart: number | null = null;
  const startOf = (f: Flavour) => f.start ?? (ownStart ??= privateUint(context, 'warptrace_mark_start', 0));
  const hooks = new Map<string, { start: number; globals: number[] }>();
  for (const { id: functionId, flavour } of markFunctions.values()) {
    const start = startOf(flavour);
    const { code, globals } = emitMarkFunction(decl, {
      functionId,
      subgroup: flavour.entry.subgroup,
      fragment: flavour.entry.stage === 'FS',
      helperViaInstruction: editor.hasCapability(Capability.DemoteToHelperInvocation),
      entryInterface: flavour.entry.interfaceIds,
      start,
      sampledFlag: options.sampling === 'runtime' ? sampledFlagVariable(decl) : null,
      counter,
      smBuiltins: context.smBuiltins,
      subgroupClock: options.subgroupClock,
      deviceClock: options.deviceClock,
      atomicScope: editor.memoryModel()[1] === MemoryModel.Vulkan ? Scope.QueueFamily : Scope.Device,
      set: options.set,
      binding: options.binding,
    });
    editor.append(Section.Function, ...code);
    editor.addName(functionId, MARK_FUNCTION);
    hooks.set(flavour.key, { start, globals });
  }
  for (const entry of context.entries) {
    const hook = hooks.get(flavours.get(entry.index)!.key);
    if (hook !== undefined) context.recordParts.get(entry.index)!.marks = hook;
  }
}
