/**
 * Shared by the passes that record in the middle of an entry point (intersection reports,
 * reorder points): find the one traced entry whose code reaches such an instruction, declare
 * the private variables its records share with the wrapper, and put calls right before and
 * after every one of them in the functions it reaches.
 */
import { instruction } from '../model/binary.js';
import { parseFunctions, reachableFrom, writeFunctions, type FunctionCode, type FunctionSection } from '../model/functions.js';
import { Section } from '../model/module.js';
import { Op, StorageClass } from '../model/spec.js';
import type { InstrumentedStage } from '../options.js';
import type { PassContext, TracedEntry } from './pass.js';

export interface EntrySites {
  readonly entry: TracedEntry;
  readonly section: FunctionSection;
  readonly byId: ReadonlyMap<number, FunctionCode>;
}

/**
 * The traced entry of `stage` whose functions hold one of `opcodes`; null when none does, and null
 * with `severalNote` when several do (their sites may share functions, and one call cannot serve two wrappers).
 */
export function soleEntryReaching(context: PassContext, stage: InstrumentedStage, opcodes: ReadonlySet<number>, severalNote: string): EntrySites | null {
  const entries = context.entries.filter((e) => e.stage === stage);
  if (entries.length === 0) return null;
  const section = parseFunctions(context.editor.section(Section.Function));
  const byId = new Map(section.functions.map((f) => [f.id, f]));
  const holds = (id: number) => byId.get(id)?.blocks.some((b) => b.body.some((i) => opcodes.has(i.opcode))) === true;
  const reaching = entries.filter((e) => [...reachableFrom(e.functionId, byId)].some(holds));
  if (reaching.length === 0) return null;
  if (reaching.length > 1) {
    context.notes.push(severalNote);
    return null;
  }
  return { entry: reaching[0]!, section, byId };
}

/** Calls `before` (and `after`, when given) around every instruction of `opcodes` the entry reaches; the sites' count. */
export function bracketSites(context: PassContext, sites: EntrySites, opcodes: ReadonlySet<number>, before: number, after: number | null): number {
  const { editor, decl } = context;
  const call = (fn: number) => instruction(Op.FunctionCall, [decl.void, editor.allocId(), fn]);
  let count = 0;
  for (const id of reachableFrom(sites.entry.functionId, sites.byId)) {
    for (const block of sites.byId.get(id)!.blocks) {
      if (!block.body.some((i) => opcodes.has(i.opcode))) continue;
      block.body = block.body.flatMap((i) => {
        if (!opcodes.has(i.opcode)) return [i];
        count++;
        return after === null ? [call(before), i] : [call(before), i, call(after)];
      });
    }
  }
  editor.replaceSection(Section.Function, writeFunctions(sites.section));
  return count;
}

/** The private variables a record point shares with the wrapper: a flag (false at first, named `flagName`) and the start clock. */
export function recordPointVariables(context: PassContext, flagName: string): { flag: number; start: number } {
  const { editor, decl } = context;
  const flag = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.bool), id, StorageClass.Private, decl.constantFalse]);
  const start = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.uint), id, StorageClass.Private, decl.u32(0)]);
  editor.addName(flag, flagName);
  editor.addName(start, 'warptrace_start');
  return { flag, start };
}
