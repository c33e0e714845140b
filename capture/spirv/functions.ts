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
  readonly id: number;
  readonly returnType: number;
  /** OpFunction and its OpFunctionParameters. */
  readonly header: Instruction[];
  blocks: Block[];
}

export function parseFunctions(code: readonly Instruction[]): FunctionCode[] {
  const out: FunctionCode[] = [];
  let current: FunctionCode | null = null;
  let block: Block | null = null;
  for (const inst of code) {
    if (inst.opcode === Op.Function) {
      if (current !== null) throw new SpirvFormatError(`function %${current.id} has no OpFunctionEnd`);
      current = { id: inst.words[2]!, returnType: inst.words[1]!, header: [inst], blocks: [] };
      block = null;
    } else if (current === null) {
      throw new SpirvFormatError(`opcode ${inst.opcode} outside any function`);
    } else if (inst.opcode === Op.FunctionEnd) {
      out.push(current);
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
  return out;
}

export function writeFunctions(functions: readonly FunctionCode[]): Instruction[] {
  const out: Instruction[] = [];
  for (const f of functions) {
    out.push(...f.header);
    for (const b of f.blocks) out.push(instruction(Op.Label, [b.label]), ...b.body);
    out.push(instruction(Op.FunctionEnd, []));
  }
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
