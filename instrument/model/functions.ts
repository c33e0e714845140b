/**
 * Functions as blocks, for passes that rewrite control flow, and the static
 * call graph.
 */
import { SpirvFormatError, instruction, type Instruction } from './binary.js';
import { Op } from './spec.js';

export interface Block {
  readonly label: number;
  /** Instructions after OpLabel, the terminator last. */
  body: Instruction[];
}

export interface FunctionCode {
  /** Instructions between the previous function and this one (OpLine, OpNoLine, non-semantic OpExtInst). */
  readonly prefix: Instruction[];
  readonly id: number;
  readonly returnType: number;
  /** OpFunction and its OpFunctionParameters. */
  readonly header: Instruction[];
  blocks: Block[];
}

export interface FunctionSection {
  readonly functions: FunctionCode[];
  /** Instructions after the last function. */
  readonly trailer: Instruction[];
}

/** Debug instructions that may sit between functions. */
const BETWEEN_FUNCTIONS = new Set<number>([Op.Line, Op.NoLine, Op.Nop, Op.ExtInst]);

export function parseFunctions(code: readonly Instruction[]): FunctionSection {
  const functions: FunctionCode[] = [];
  let current: FunctionCode | null = null;
  let block: Block | null = null;
  let pending: Instruction[] = [];
  for (const inst of code) {
    if (inst.opcode === Op.Function) {
      if (current !== null) throw new SpirvFormatError(`function %${current.id} has no OpFunctionEnd`);
      current = { prefix: pending, id: inst.words[2]!, returnType: inst.words[1]!, header: [inst], blocks: [] };
      pending = [];
      block = null;
    } else if (current === null) {
      if (!BETWEEN_FUNCTIONS.has(inst.opcode)) throw new SpirvFormatError(`opcode ${inst.opcode} outside any function`);
      pending.push(inst);
    } else if (inst.opcode === Op.FunctionEnd) {
      functions.push(current);
      current = null;
    } else if (inst.opcode === Op.Label) {
      block = { label: inst.words[1]!, body: [] };
      current.blocks.push(block);
    } else if (block === null) {
      current.header.push(inst);
    } else {
      block.body.push(inst);
    }
  }
  if (current !== null) throw new SpirvFormatError(`function %${current.id} has no OpFunctionEnd`);
  return { functions, trailer: pending };
}

export function writeFunctions(section: FunctionSection): Instruction[] {
  // Appended one by one, never push(...list): a block can hold more instructions than a call takes arguments.
  const out: Instruction[] = [];
  const append = (list: readonly Instruction[]) => {
    for (const inst of list) out.push(inst);
  };
  for (const f of section.functions) {
    append(f.prefix);
    append(f.header);
    for (const b of f.blocks) {
      out.push(instruction(Op.Label, [b.label]));
      append(b.body);
    }
    out.push(instruction(Op.FunctionEnd, []));
  }
  append(section.trailer);
  return out;
}

/** Functions called directly by `f`. */
export function calleesOf(f: FunctionCode): Set<number> {
  const out = new Set<number>();
  for (const b of f.blocks) for (const inst of b.body) if (inst.opcode === Op.FunctionCall) out.add(inst.words[3]!);
  return out;
}

/** `root` and every function it reaches through calls. */
export function reachableFrom(root: number, byId: ReadonlyMap<number, FunctionCode>): Set<number> {
  const seen = new Set<number>();
  const stack = [root];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const f = byId.get(id);
    if (f) for (const c of calleesOf(f)) stack.push(c);
  }
  return seen;
}
