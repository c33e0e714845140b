/**
 * Every id a module defines or refers to must be below the header's bound:
 * the instrumenter takes its new ids from the bound, so a dangling id at or
 * past it would silently come to mean the instrumenter's own (a Location
 * decoration landing on the wrapper function). Operands are found with the
 * Khronos grammar (grammar.ts); instructions it does not know are skipped,
 * and so are the operands of extended sets that mix literals with ids.
 */
import { SpirvFormatError, decodeString, type Instruction, type SpirvModule } from './binary.js';
import { ENUM_PARAMETERS, INSTRUCTION_OPERANDS } from './grammar.js';
import { HEADER_WORDS, Op } from './spec.js';

/** An id at or past the bound (or 0, never an id). */
export class SpirvIdError extends SpirvFormatError {
  override readonly name = 'SpirvIdError';
  constructor(
    /** "OpDecorate" */
    readonly instruction: string,
    /** Word of the module (from the magic number) holding the id. */
    readonly word: number,
    readonly id: number,
    readonly bound: number,
    result: boolean,
  ) {
    const what = result ? 'result id' : 'id';
    super(`${instruction}: ${what} %${id} ${id === 0 ? 'is 0, which is never an id' : `is at or past the header's id bound ${bound}`}`, word);
  }
}

interface Token {
  readonly code: string;
  readonly quantifier: '' | '?' | '*';
}

function tokens(codes: string): Token[] {
  const out: Token[] = [];
  for (let k = 0; k < codes.length; k++) {
    const next = codes[k + 1];
    const quantifier = next === '?' || next === '*' ? next : '';
    out.push({ code: codes[k]!, quantifier });
    if (quantifier !== '') k++;
  }
  return out;
}

interface InstructionSpec {
  readonly name: string;
  readonly operands: readonly Token[];
}

const SPECS = new Map<number, InstructionSpec>(
  INSTRUCTION_OPERANDS.trim()
    .split(/\s+/)
    .map((entry) => {
      const [opcode, name, codes] = entry.split(':') as [string, string, string];
      return [Number(opcode), { name: `Op${name}`, operands: codes === '-' ? [] : tokens(codes) }];
    }),
);

const ENUMS = new Map(
  Object.entries(ENUM_PARAMETERS).map(([letter, e]) => {
    const parameters = new Map<number, readonly Token[]>(
      e.parameters
        .trim()
        .split(/\s+/)
        .map((entry) => {
          const [value, codes] = entry.split(':') as [string, string];
          return [Number(value), tokens(codes)];
        }),
    );
    return [letter, { bitEnum: e.bitEnum, parameters }];
  }),
);

/** Extended instruction sets whose operands are all ids (the others, such as OpenCL.DebugInfo.100, mix in literals). */
const allIdOperands = (set: string | undefined) => set !== undefined && (set === 'GLSL.std.450' || set.startsWith('NonSemantic.'));

/** Where a string starting at words[p] ends: after the word holding its nul. */
function stringEnd(words: Uint32Array, p: number): number {
  while (p < words.length) {
    const w = words[p++]!;
    if ((w & 0xff) === 0 || (w & 0xff00) === 0 || (w & 0xff0000) === 0 || w >>> 24 === 0) break;
  }
  return p;
}

/** What operand walking needs to know about the module so far. */
interface ModuleFacts {
  readonly bound: number;
  /** OpExtInstImport result id → set name. */
  readonly extSets: Map<number, string>;
  /** Result id → its result type (for OpSwitch's literal width). */
  readonly typeOf: Map<number, number>;
  /** OpTypeInt result id → width in bits. */
  readonly intWidth: Map<number, number>;
}

/** Walks one instruction's operands, checking each id. */
class OperandWalker {
  private p = 1;
  private stopped = false;

  constructor(
    private readonly inst: Instruction,
    private readonly name: string,
    private readonly offset: number,
    private readonly facts: ModuleFacts,
  ) {}

  private id(result = false): void {
    const { words } = this.inst;
    if (this.p >= words.length) {
      this.stopped = true;
      return;
    }
    const id = words[this.p]!;
    if (id === 0 || id >= this.facts.bound) throw new SpirvIdError(this.name, this.offset + this.p, id, this.facts.bound, result);
    this.p++;
  }

  sequence(list: readonly Token[]): void {
    for (const { code, quantifier } of list) {
      if (quantifier === '*') while (!this.stopped && this.p < this.inst.words.length) this.one(code);
      else if (quantifier === '?') {
        if (this.p < this.inst.words.length) this.one(code);
      } else if (this.p < this.inst.words.length) this.one(code);
      else this.stopped = true; // a required operand missing: nothing more to check
      if (this.stopped) return;
    }
  }

  private one(code: string): void {
    const words = this.inst.words;
    switch (code) {
      case 'R':
        return this.id(true);
      case 'T':
      case 'i':
        return this.id();
      case 'l':
        this.p++;
        return;
      case 's':
        this.p = stringEnd(words, this.p);
        return;
      case 'n':
        this.p = words.length;
        return;
      case 'p':
        this.id();
        this.p++;
        return;
      case 'q':
        this.id();
        return this.id();
      case 'w': {
        // OpSwitch: each target's literal is as wide as the selector (words[1]).
        const width = this.facts.intWidth.get(this.facts.typeOf.get(words[1]!) ?? 0) ?? 32;
        this.p += width > 32 ? 2 : 1;
        return this.id();
      }
      case 'o': {
        // OpSpecConstantOp: the operation's operands, without its result type and id.
        const spec = SPECS.get(words[this.p++]!);
        if (spec === undefined) this.stopped = true;
        else this.sequence(spec.operands.filter((t) => t.code !== 'T' && t.code !== 'R'));
        return;
      }
      case 'x':
        // OpExtInst's instruction number (words[3] is the set): the operands are ids only in some sets.
        this.p++;
        if (!allIdOperands(this.facts.extSets.get(words[3]!))) this.stopped = true;
        return;
      default: {
        const e = ENUMS.get(code);
        if (e === undefined) throw new Error(`grammar operand code ${code} is not known`);
        const value = words[this.p++]!;
        if (!e.bitEnum) {
          const parameters = e.parameters.get(value);
          if (parameters !== undefined) this.sequence(parameters);
          return;
        }
        for (let bit = 1; bit !== 0 && !this.stopped; bit = (bit << 1) >>> 0) {
          if ((value & bit) !== 0) this.sequence(e.parameters.get(bit) ?? []);
        }
      }
    }
  }
}

/** Throws SpirvIdError for the first id (defined or used) that is 0 or at or past the header's bound. */
export function checkIds(module: SpirvModule): void {
  const facts: ModuleFacts = { bound: module.header.bound, extSets: new Map(), typeOf: new Map(), intWidth: new Map() };
  let offset = HEADER_WORDS;
  for (const inst of module.instructions) {
    const spec = SPECS.get(inst.opcode);
    if (spec !== undefined) {
      new OperandWalker(inst, spec.name, offset, facts).sequence(spec.operands);
      const { words } = inst;
      if (inst.opcode === Op.ExtInstImport && words.length > 2) facts.extSets.set(words[1]!, decodeString(words, 2).value);
      else if (inst.opcode === Op.TypeInt && words.length > 2) facts.intWidth.set(words[1]!, words[2]!);
      else if (spec.operands[0]?.code === 'T' && spec.operands[1]?.code === 'R' && words.length > 2) facts.typeOf.set(words[2]!, words[1]!);
    }
    offset += inst.words.length;
  }
}
