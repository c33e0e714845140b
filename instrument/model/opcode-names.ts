/** Instruction names ("OpLoad") by opcode, from the generated grammar (for short disassemblies). */
import { INSTRUCTION_OPERANDS } from './grammar.js';

const NAMES = new Map<number, string>(
  INSTRUCTION_OPERANDS.trim()
    .split(/\s+/)
    .map((entry) => {
      const [opcode, name] = entry.split(':') as [string, string];
      return [Number(opcode), `Op${name}`];
    }),
);

/** "OpName" for a known opcode, "Op#1234" for one the grammar lacks (a newer extension). */
export function opcodeName(opcode: number): string {
  return NAMES.get(opcode) ?? `Op#${opcode}`;
}
