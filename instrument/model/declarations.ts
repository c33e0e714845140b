/**
 * The module-level declarations the wrapper needs, created on first use so
 * the output carries nothing unused: reused types and constants, the trace
 * buffer and draw-id block, and built-in input variables (an existing
 * built-in variable is reused: a second one would declare it twice).
 */
import { BUFFER_HEADER_BYTES, BufferWord, RECORD_BYTES } from '../../shared-schema/raw-layout.js';
import { BLOCK_HEADER_BYTES, BLOCK_STAGES, BlockHeaderWord, DRAW_BLOCK_STAGE_WORD } from '../../shared-schema/block-layout.js';
import { RAY_EVENT_HEADER_WORDS, RayEventHeaderWord } from '../../shared-schema/ray-event-layout.js';
import { DRAW_SAMPLE_WORD, SAMPLE_WORDS } from '../../shared-schema/sample-layout.js';
import { Op, BuiltIn, Decoration, StorageClass } from './spec.js';
import type { ModuleEditor } from './module.js';
import { InstrumentError } from '../errors.js';

/** Components of the uvec4 the records array is made of. */
export const RECORD_VECTOR_WORDS = 4;
/** uvec4 elements per record. */
export const VECTORS_PER_RECORD = RECORD_BYTES / (RECORD_VECTOR_WORDS * 4);
/** Member index of the records array in the trace-buffer block (after the header words). */
export const RECORDS_MEMBER = BUFFER_HEADER_BYTES / 4;

/** How a built-in's value is typed, which decides how it becomes a uint. */
export type BuiltinShape = 'uint' | 'int' | 'uvec3' | 'bool' | 'vec4' | 'vec3' | 'float';

export interface BuiltinVariable {
  readonly id: number;
  readonly shape: BuiltinShape;
  /** The pointee type id, for OpLoad. */
  readonly typeId: number;
}

export class CommonDeclarations {
  constructor(
    readonly editor: ModuleEditor,
    /** Storage class of the trace buffer: StorageBuffer (Block) or Uniform (BufferBlock, SPIR-V < 1.3). */
    readonly traceStorageClass: number,
    /**
     * u32 words of the draw-id block: 1 (the draw id); 2 with block profiles (word 1: the draw's block row);
     * 3 with ray events (word 2: the trace-rays call's row; word 1 is then declared whether or not blocks are on);
     * with block profiles in a graphics stage, up to its stage word (block-layout.ts DRAW_BLOCK_STAGE_WORD).
     */
    private readonly drawIdWords: number = 1,
  ) {}

  private cache = new Map<string, number>();
  private once(key: string, make: () => number): number {
    let id = this.cache.get(key);
    if (id === undefined) {
      id = make();
      this.cache.set(key, id);
    }
    return id;
  }

  get void(): number {
    return this.once('void', () => this.editor.type(Op.TypeVoid, []));
  }
  get bool(): number {
    return this.once('bool', () => this.editor.type(Op.TypeBool, []));
  }
  get uint(): number {
    return this.once('uint', () => this.editor.type(Op.TypeInt, [32, 0]));
  }
  get int(): number {
    return this.once('int', () => this.editor.type(Op.TypeInt, [32, 1]));
  }
  get float(): number {
    return this.once('float', () => this.editor.type(Op.TypeFloat, [32]));
  }
  get ulong(): number {
    return this.once('ulong', () => this.editor.type(Op.TypeInt, [64, 0]));
  }
  get uvec2(): number {
    return this.once('uvec2', () => this.editor.type(Op.TypeVector, [this.uint, 2]));
  }
  get uvec3(): number {
    return this.once('uvec3', () => this.editor.type(Op.TypeVector, [this.uint, 3]));
  }
  get uvec4(): number {
    return this.once('uvec4', () => this.editor.type(Op.TypeVector, [this.uint, 4]));
  }
  get vec3(): number {
    return this.once('vec3', () => this.editor.type(Op.TypeVector, [this.float, 3]));
  }
  get vec4(): number {
    return this.once('vec4', () => this.editor.type(Op.TypeVector, [this.float, 4]));
  }
  get voidFunction(): number {
    return this.once('fn', () => this.editor.type(Op.TypeFunction, [this.void]));
  }
  pointer(storageClass: number, typeId: number): number {
    return this.once(`ptr:${storageClass}:${typeId}`, () => this.editor.type(Op.TypePointer, [storageClass, typeId]));
  }
  u32(value: number): number {
    return this.once(`u32:${value >>> 0}`, () => this.editor.constant(Op.Constant, this.uint, [value >>> 0]));
  }
  get true(): number {
    return this.once('true', () => this.editor.constant(Op.ConstantTrue, this.bool));
  }
  get constantFalse(): number {
    return this.once('false', () => this.editor.constant(Op.ConstantFalse, this.bool));
  }
  undef(typeId: number): number {
    return this.once(`undef:${typeId}`, () => this.editor.constant(Op.Undef, typeId));
  }

  /** `{ uint count, capacity, flags, reserved; uvec4 records[]; }` at (set, binding). */
  traceBuffer(set: number, binding: number): number {
    return this.once('trace', () =>
      this.headerAndArray(set, binding, {
        headerWords: BUFFER_HEADER_BYTES / 4,
        element: () => this.uvec4,
        stride: RECORD_VECTOR_WORDS * 4,
        blockName: 'WarptraceBuffer',
        memberNames: { [BufferWord.COUNT]: 'count', [BufferWord.CAPACITY]: 'capacity', [BufferWord.FLAGS]: 'flags', [BufferWord.RESERVED]: 'reserved', [RECORDS_MEMBER]: 'records' },
        variableName: 'warptrace_buffer',
      }),
    );
  }

  /**
   * `uniform { uint drawId; }` at (set, binding): the host binds it with a per-draw dynamic offset.
   * With block profiles `{ uint drawId; uint blockRow; }` (shared-schema/block-layout.ts), with ray
   * events `{ uint drawId; uint blockRow; uint rayRow; }` (shared-schema/ray-event-layout.ts); a
   * graphics stage with block profiles declares the words up to its own stage word (`blockOffsetFS`...);
   * a module that samples at run time all 12, the last two the stages' log2 rates (`sampleLog2A`, `sampleLog2B`:
   * shared-schema/sample-layout.ts).
   */
  drawIdBlock(set: number, binding: number): number {
    return this.once('draw', () => {
      const { editor } = this;
      const members = Array<number>(this.drawIdWords).fill(this.uint);
      const block = editor.declare(Op.TypeStruct, (id) => [id, ...members]);
      editor.decorate(block, Decoration.Block);
      for (let m = 0; m < members.length; m++) editor.memberDecorate(block, m, Decoration.Offset, m * 4);
      if (members.length > 1) editor.addMemberName(block, 1, 'blockRow');
      if (members.length > 2) editor.addMemberName(block, 2, 'rayRow');
      for (let k = 0; k < BLOCK_STAGES.length && DRAW_BLOCK_STAGE_WORD + k < members.length; k++) editor.addMemberName(block, DRAW_BLOCK_STAGE_WORD + k, `blockOffset${BLOCK_STAGES[k]}`);
      for (let k = 0; k < SAMPLE_WORDS && DRAW_SAMPLE_WORD + k < members.length; k++) editor.addMemberName(block, DRAW_SAMPLE_WORD + k, `sampleLog2${'AB'[k]}`);
      const variable = editor.declare(Op.Variable, (id) => [this.pointer(StorageClass.Uniform, block), id, StorageClass.Uniform]);
      editor.decorate(variable, Decoration.DescriptorSet, set);
      editor.decorate(variable, Decoration.Binding, binding);
      editor.addName(block, 'WarptraceDraw');
      editor.addMemberName(block, 0, 'drawId');
      editor.addName(variable, 'warptrace_draw');
      return variable;
    });
  }

  /**
   * `{ uint dropped, cells, copyMask, reserved; uint64_t counters[]; }` at (set, binding): the block table
   * (block-layout.ts), its cells four 64-bit counters each (the (low, high) word pairs of the layout).
   */
  blockTable(set: number, binding: number): number {
    const headerWords = BLOCK_HEADER_BYTES / 4;
    return this.once('blocks', () =>
      this.headerAndArray(set, binding, {
        headerWords,
        element: () => this.ulong,
        stride: 8,
        blockName: 'WarptraceBlocks',
        memberNames: { [BlockHeaderWord.DROPPED]: 'dropped', [headerWords]: 'counters' },
        variableName: 'warptrace_blocks',
      }),
    );
  }

  /**
   * `{ uint dropped, cells, rows, scratchPixels, uncountedTraversals, ...; uint words[]; }` at (set, binding):
   * the ray-event table (ray-event-layout.ts), its 16 header words, then the row headers, cells and scratch
   * entries as one array of u32 words (word RAY_EVENT_HEADER_WORDS + i of the table is words[i]).
   */
  rayEventTable(set: number, binding: number): number {
    return this.once('rays', () =>
      this.headerAndArray(set, binding, {
        headerWords: RAY_EVENT_HEADER_WORDS,
        element: () => this.uint,
        stride: 4,
        blockName: 'WarptraceRayEvents',
        memberNames: {
          [RayEventHeaderWord.DROPPED]: 'dropped',
          [RayEventHeaderWord.CELLS]: 'cells',
          [RayEventHeaderWord.ROWS]: 'rows',
          [RayEventHeaderWord.SCRATCH_PIXELS]: 'scratchPixels',
          [RayEventHeaderWord.UNCOUNTED_TRAVERSALS]: 'uncountedTraversals',
          [RAY_EVENT_HEADER_WORDS]: 'words',
        },
        variableName: 'warptrace_ray_events',
      }),
    );
  }

  /** A storage buffer `{ uint header[headerWords]; element array[]; }` at (set, binding), named; its variable. */
  private headerAndArray(
    set: number,
    binding: number,
    b: { headerWords: number; element: () => number; stride: number; blockName: string; memberNames: Record<number, string>; variableName: string },
  ): number {
    const { editor } = this;
    // The element type is looked up (declared, if new) after the array's id: the ids stay those of earlier versions.
    const array = editor.declare(Op.TypeRuntimeArray, (id) => [id, b.element()]);
    editor.decorate(array, Decoration.ArrayStride, b.stride);
    const members = [...Array<number>(b.headerWords).fill(this.uint), array];
    const block = editor.declare(Op.TypeStruct, (id) => [id, ...members]);
    const storageBuffer = this.traceStorageClass === StorageClass.StorageBuffer;
    editor.decorate(block, storageBuffer ? Decoration.Block : Decoration.BufferBlock);
    for (let m = 0; m < members.length; m++) editor.memberDecorate(block, m, Decoration.Offset, m * 4);
    const variable = editor.declare(Op.Variable, (id) => [this.pointer(this.traceStorageClass, block), id, this.traceStorageClass]);
    editor.decorate(variable, Decoration.DescriptorSet, set);
    editor.decorate(variable, Decoration.Binding, binding);
    editor.addName(block, b.blockName);
    for (const [m, name] of Object.entries(b.memberNames)) editor.addMemberName(block, Number(m), name);
    editor.addName(variable, b.variableName);
    return variable;
  }

  /**
   * An Input variable decorated BuiltIn `builtIn` for one entry point: the
   * module's own when that entry point already uses one (a second would
   * declare the built-in twice), else ours (Flat in fragment shaders when
   * integer), shared by the entry points of one kind.
   */
  builtin(builtIn: number, shape: BuiltinShape, fragment: boolean, entryInterface: readonly number[]): BuiltinVariable {
    const existing = this.existingBuiltin(builtIn, entryInterface);
    if (existing !== null) {
      const integer = (s: BuiltinShape) => s === 'int' || s === 'uint';
      if (existing.shape === shape || (integer(existing.shape) && integer(shape))) return existing;
      throw new InstrumentError(`the module's BuiltIn ${builtinName(builtIn)} variable %${existing.id} is ${existing.shape}, expected ${shape}`);
    }
    const key = `builtin:${builtIn}:${fragment}`;
    const typeId = this.shapeType(shape);
    const id = this.once(key, () => {
      const { editor } = this;
      const variable = editor.declare(Op.Variable, (v) => [this.pointer(StorageClass.Input, typeId), v, StorageClass.Input]);
      editor.decorate(variable, Decoration.BuiltIn, builtIn);
      if (fragment && (shape === 'uint' || shape === 'int' || shape === 'uvec3')) editor.decorate(variable, Decoration.Flat);
      // No Volatile on HelperInvocation (glslang adds it for 1.6): nothing requires it without demote
      // (those modules use OpIsHelperInvocationEXT), and Mesa 22's lavapipe cannot compile the volatile load.
      editor.addName(variable, `warptrace_${builtinName(builtIn)}${fragment ? '_fs' : ''}`);
      return variable;
    });
    return { id, shape, typeId };
  }

  private shapeType(shape: BuiltinShape): number {
    switch (shape) {
      case 'uint':
        return this.uint;
      case 'int':
        return this.int;
      case 'uvec3':
        return this.uvec3;
      case 'bool':
        return this.bool;
      case 'vec4':
        return this.vec4;
      case 'vec3':
        return this.vec3;
      case 'float':
        return this.float;
    }
  }

  /** The entry point's own Input variable for a built-in, typed from its declaration. */
  private existingBuiltin(builtIn: number, entryInterface: readonly number[]): BuiltinVariable | null {
    const { editor } = this;
    for (const [id, value] of editor.decorationValues(Decoration.BuiltIn)) {
      if (value !== builtIn || !entryInterface.includes(id)) continue;
      const variable = editor.globalDef(id);
      if (variable?.opcode !== Op.Variable || variable.words[3] !== StorageClass.Input) continue;
      const pointer = editor.globalDef(variable.words[1]!);
      const typeId = pointer?.words[3];
      const type = typeId === undefined ? undefined : editor.globalDef(typeId);
      const shape = type === undefined ? null : shapeOf(editor, type.opcode, type.words);
      if (shape === null || typeId === undefined) {
        throw new InstrumentError(`the module's BuiltIn ${builtinName(builtIn)} variable %${id} has a type the instrumenter does not handle`);
      }
      return { id, shape, typeId };
    }
    return null;
  }
}

function shapeOf(editor: ModuleEditor, opcode: number, words: Uint32Array): BuiltinShape | null {
  if (opcode === Op.TypeBool) return 'bool';
  if (opcode === Op.TypeFloat && words[2] === 32) return 'float';
  if (opcode === Op.TypeInt && words[2] === 32) return words[3] === 1 ? 'int' : 'uint';
  if (opcode === Op.TypeVector) {
    const component = editor.globalDef(words[2]!);
    if (component?.opcode === Op.TypeInt && component.words[2] === 32 && component.words[3] === 0 && words[3] === 3) return 'uvec3';
    if (component?.opcode === Op.TypeFloat && component.words[2] === 32 && words[3] === 4) return 'vec4';
    if (component?.opcode === Op.TypeFloat && component.words[2] === 32 && words[3] === 3) return 'vec3';
  }
  return null;
}

export function builtinName(builtIn: number): string {
  for (const [name, value] of Object.entries(BuiltIn)) if (value === builtIn) return name;
  return `BuiltIn${builtIn}`;
}
