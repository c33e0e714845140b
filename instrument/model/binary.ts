/**
 * SPIR-V binary reader and writer: the word stream, instruction framing and
 * literal strings. Generic (no knowledge of what an instruction means), so
 * `writeSpirv(parseSpirv(bytes))` reproduces the input byte for byte,
 * including big-endian modules.
 */
import { HEADER_WORDS, SPIRV_MAGIC } from './spec.js';

/** The input is not a well-formed SPIR-V module. */
export class SpirvFormatError extends Error {
  override readonly name: string = 'SpirvFormatError';
  constructor(
    message: string,
    /** Word offset in the module where the problem is, when known. */
    readonly wordOffset: number | null = null,
  ) {
    super(wordOffset === null ? message : `${message} (at word ${wordOffset})`);
  }
}

export interface SpirvHeader {
  /** Version word: 0x00MMmm00. */
  readonly version: number;
  readonly generator: number;
  /** Every result id is below the bound. */
  readonly bound: number;
  readonly schema: number;
}

/** One instruction: its whole word run, the first word being wordCount << 16 | opcode. */
export interface Instruction {
  readonly opcode: number;
  readonly words: Uint32Array;
}

export interface SpirvModule {
  readonly header: SpirvHeader;
  readonly instructions: readonly Instruction[];
  /** Byte order of the file the module came from; the writer keeps it. */
  readonly littleEndian: boolean;
}

/** Largest module accepted (words): far above any real shader, small enough to never exhaust memory. */
const MAX_MODULE_BYTES = 256 * 1024 * 1024;

/** True when the bytes start with the SPIR-V magic number in either byte order. */
export function isSpirv(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.getUint32(0, true) === SPIRV_MAGIC || view.getUint32(0, false) === SPIRV_MAGIC;
}

export function parseSpirv(bytes: Uint8Array): SpirvModule {
  if (bytes.length > MAX_MODULE_BYTES) throw new SpirvFormatError(`module is ${bytes.length} bytes; more than ${MAX_MODULE_BYTES} is not accepted`);
  if (!isSpirv(bytes)) throw new SpirvFormatError('not a SPIR-V module (the magic number 0x07230203 is missing)');
  if (bytes.length % 4 !== 0) throw new SpirvFormatError(`module is ${bytes.length} bytes, not a whole number of 32-bit words`);
  if (bytes.length < HEADER_WORDS * 4) throw new SpirvFormatError(`module is ${bytes.length} bytes, shorter than the 20-byte header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const littleEndian = view.getUint32(0, true) === SPIRV_MAGIC;
  const words = new Uint32Array(bytes.length / 4);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, littleEndian);

  const header: SpirvHeader = { version: words[1]!, generator: words[2]!, bound: words[3]!, schema: words[4]! };
  if (header.bound === 0) throw new SpirvFormatError('header bound is 0', 3);

  const instructions: Instruction[] = [];
  let at = HEADER_WORDS;
  while (at < words.length) {
    const first = words[at]!;
    const count = first >>> 16;
    const opcode = first & 0xffff;
    if (count === 0) throw new SpirvFormatError(`instruction with opcode ${opcode} has word count 0`, at);
    if (at + count > words.length) throw new SpirvFormatError(`instruction with opcode ${opcode} (${count} words) runs past the end of the module`, at);
    instructions.push({ opcode, words: words.subarray(at, at + count) });
    at += count;
  }
  return { header, instructions, littleEndian };
}

export function writeSpirv(module: SpirvModule): Uint8Array {
  let total = HEADER_WORDS;
  for (const inst of module.instructions) total += inst.words.length;
  const bytes = new Uint8Array(total * 4);
  const view = new DataView(bytes.buffer);
  const le = module.littleEndian;
  const { header } = module;
  view.setUint32(0, SPIRV_MAGIC, le);
  view.setUint32(4, header.version, le);
  view.setUint32(8, header.generator, le);
  view.setUint32(12, header.bound, le);
  view.setUint32(16, header.schema, le);
  let at = 20;
  for (const inst of module.instructions) {
    const expected = (inst.words.length << 16) | inst.opcode;
    if (inst.words[0] !== expected >>> 0) throw new Error(`instruction ${inst.opcode}: first word does not match its length`);
    for (const w of inst.words) {
      view.setUint32(at, w, le);
      at += 4;
    }
  }
  return bytes;
}

/** Builds an instruction from its opcode and operand words. */
export function instruction(opcode: number, operands: readonly number[]): Instruction {
  const words = new Uint32Array(operands.length + 1);
  words[0] = ((words.length << 16) | opcode) >>> 0;
  for (let i = 0; i < operands.length; i++) words[i + 1] = operands[i]! >>> 0;
  return { opcode, words };
}

/** A literal string as SPIR-V words: UTF-8, nul-terminated, zero-padded, low byte first. */
export function encodeString(text: string): number[] {
  const utf8 = new TextEncoder().encode(text);
  const out: number[] = new Array<number>(Math.floor(utf8.length / 4) + 1).fill(0);
  for (let i = 0; i < utf8.length; i++) out[i >> 2] = (out[i >> 2]! | (utf8[i]! << ((i & 3) * 8))) >>> 0;
  return out;
}

/** Reads a literal string starting at `words[start]`; returns it and the index of the first word after it. */
export function decodeString(words: Uint32Array, start: number): { value: string; next: number } {
  const bytes: number[] = [];
  for (let i = start; i < words.length; i++) {
    const w = words[i]!;
    for (let b = 0; b < 4; b++) {
      const byte = (w >>> (b * 8)) & 0xff;
      if (byte === 0) return { value: new TextDecoder().decode(new Uint8Array(bytes)), next: i + 1 };
      bytes.push(byte);
    }
  }
  throw new SpirvFormatError('literal string is not nul-terminated');
}
