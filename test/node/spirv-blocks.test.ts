// Block profiles (`--blocks`, instrument/passes/blocks.ts) on the whole corpus:
// every output passes spirv-val, every basic block of the traced functions calls
// the block function exactly once with its own index, the module's mark counts
// them, a graphics stage's row adds its draw-id stage word (the begin function run
// by spirv-interpreter.ts), and without the option nothing changes.
import { DRAW_ID_WORDS_WITH_SAMPLING } from '../../shared-schema/sample-layout.js';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeString, parseSpirv } from '../../instrument/model/binary.js';
import { parseFunctions, reachableFrom } from '../../instrument/model/functions.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { Decoration, Op } from '../../instrument/model/spec.js';
import {
  BLOCK_BASE_SPEC_ID,
  BLOCK_ENTER_FUNCTION,
  BLOCK_HEADER_BYTES,
  BLOCK_MARK_PREFIX,
  BLOCK_STAGES,
  DRAW_BLOCK_ROW_WORD,
  DRAW_BLOCK_STAGE_WORD,
  DRAW_ID_BLOCK_BYTES,
  DRAW_ID_WORDS,
  NO_BLOCK_ROW,
} from '../../shared-schema/block-layout.js';
import { DRAW_RAY_ROW_WORD } from '../../shared-schema/ray-event-layout.js';
import { compileCorpus, compileGlsl, legacy, pool, spirvVal, validationEnv, type CorpusModule } from './spirv-tools.js';
import { SpirvInterpreter } from './spirv-interpreter.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

const withBlocks = (options: InstrumentOptions): InstrumentOptions => ({ ...options, blocks: true });

test('every corpus module with --blocks passes spirv-val (nvidia, lavapipe, legacy khr-ballot and per-invocation)', async () => {
  const configs: [string, InstrumentOptions, (m: CorpusModule) => boolean][] = [
    ['nvidia', withBlocks(targetOptions('nvidia')), () => true],
    ['lavapipe', withBlocks(targetOptions('lavapipe')), () => true],
    ['khr-ballot', withBlocks({ ...targetOptions('nvidia'), legacySubgroup: 'khr-ballot' }), legacy],
    ['per-invocation', withBlocks({ ...targetOptions('nvidia'), legacySubgroup: 'per-invocation' }), legacy],
  ];
  const bad: string[] = [];
  let checked = 0;
  for (const [name, options, picks] of configs) {
    const modules = corpus.filter(picks);
    const errors = await pool(modules, 2, async (m) => {
      const out = instrumentSpirv(m.bytes, options);
      return [m.id, await spirvVal(out.bytes, validationEnv(out.outputVersion))] as const;
    });
    checked += modules.length;
    for (const [id, error] of errors) if (error !== null) bad.push(`${id} [${name}]: ${error}`);
  }
  assert.ok(checked > 300, `${checked} module x config pairs`);
  assert.deepEqual(bad, []);
});

test('each block of the traced functions calls the block function once, first, with its own index; the mark counts them', () => {
  for (const m of corpus) {
    const out = instrumentSpirv(m.bytes, withBlocks(targetOptions('nvidia')));
    const editor = new ModuleEditor(parseSpirv(out.bytes));
    const enter = [...nameIds(editor, BLOCK_ENTER_FUNCTION)];
    assert.equal(enter.length, 1, `${m.id}: one ${BLOCK_ENTER_FUNCTION}`);
    const section = parseFunctions(editor.section(Section.Function));
    const byId = new Map(section.functions.map((f) => [f.id, f]));
    const original = new ModuleEditor(parseSpirv(m.bytes));
    const entryFunctions = original.entryPoints().map((e) => e.functionId);
    const appFunctions = new Set(entryFunctions.flatMap((id) => [...reachableFrom(id, byId)]));
    // Ours: the block functions and the record points (reorders, reports) the app's code calls.
    for (const f of section.functions) if (editor.nameOf(f.id)?.startsWith('warptrace_')) appFunctions.delete(f.id);
    const indices: number[] = [];
    let blocks = 0;
    for (const f of section.functions) {
      if (!appFunctions.has(f.id)) continue;
      for (const b of f.blocks) {
        blocks++;
        const calls = b.body.filter((i) => i.opcode === Op.FunctionCall && i.words[3] === enter[0]);
        assert.equal(calls.length, 1, `${m.id}: block %${b.label} has ${calls.length} calls`);
        const first = b.body.findIndex((i) => i.opcode !== Op.Phi && i.opcode !== Op.Variable && i.opcode !== Op.Line && i.opcode !== Op.NoLine && i.opcode !== Op.ExtInst);
        assert.equal(b.body[first], calls[0], `${m.id}: block %${b.label}: the call comes before the block's own code`);
        indices.push(constantValue(editor, calls[0]!.words[4]!));
      }
    }
    assert.deepEqual(
      [...indices].sort((a, b) => a - b),
      Array.from({ length: blocks }, (_, i) => i),
      `${m.id}: indices 0..${blocks - 1}, each once`,
    );
    const mark = markOf(editor);
    assert.equal(mark, `${BLOCK_MARK_PREFIX}${blocks} per=warp clock=sm`, m.id);
    assert.deepEqual([...editor.decorationValues(Decoration.SpecId).values()].filter((v) => v === BLOCK_BASE_SPEC_ID).length, 1, `${m.id}: one base constant`);
  }
});

test('per-invocation modules say so in their mark; lavapipe stages without subgroups count per invocation', () => {
  const vertex = corpus.find((m) => m.stage === 'VS' && !legacy(m))!;
  const fragment = corpus.find((m) => m.stage === 'FS' && !legacy(m))!;
  const lavapipe = withBlocks(targetOptions('lavapipe'));
  assert.match(markOf(new ModuleEditor(parseSpirv(instrumentSpirv(vertex.bytes, lavapipe).bytes))) ?? '', / per=invocation clock=sm$/);
  assert.match(markOf(new ModuleEditor(parseSpirv(instrumentSpirv(fragment.bytes, lavapipe).bytes))) ?? '', / per=warp clock=sm$/);
  const deviceOnly = withBlocks({ ...targetOptions('nvidia'), subgroupClock: false });
  assert.match(markOf(new ModuleEditor(parseSpirv(instrumentSpirv(fragment.bytes, deviceOnly).bytes))) ?? '', / clock=device$/);
});

test('without --blocks the output is the same bytes as before the option existed (no mark, no block table)', () => {
  for (const m of corpus) {
    const plain = instrumentSpirv(m.bytes, targetOptions('nvidia'));
    const off = instrumentSpirv(m.bytes, { ...targetOptions('nvidia'), blocks: false });
    assert.deepEqual(off.bytes, plain.bytes, m.id);
    const editor = new ModuleEditor(parseSpirv(plain.bytes));
    assert.equal(markOf(editor), null, m.id);
    assert.equal(nameIds(editor, BLOCK_ENTER_FUNCTION).size, 0, m.id);
  }
});

test('the row of a graphics stage adds its own draw-id stage word, of compute none; the draw-id block declares the words read', () => {
  assert.ok(DRAW_ID_WORDS * 4 <= DRAW_ID_BLOCK_BYTES && DRAW_ID_WORDS_WITH_SAMPLING * 4 <= DRAW_ID_BLOCK_BYTES, 'the host binds every word');
  assert.ok(DRAW_BLOCK_STAGE_WORD > DRAW_RAY_ROW_WORD && DRAW_BLOCK_ROW_WORD < DRAW_RAY_ROW_WORD, 'the stage words follow the rows');
  const ROW = 1000;
  // Each stage's word a different value: a module that read another stage's word would land elsewhere.
  const stageValue = (k: number) => 100 * (k + 1);
  const tested: string[] = [];
  for (const stage of [...BLOCK_STAGES, 'CS']) {
    const m = corpus.find((c) => c.stage === stage && !legacy(c) && new ModuleEditor(parseSpirv(c.bytes)).entryPoints().length === 1);
    if (m === undefined) continue;
    tested.push(stage);
    const k = (BLOCK_STAGES as readonly string[]).indexOf(stage);
    // Sampling 'none': the words blocks read alone; 'runtime' (the default) reads the sampling words after them too.
    const out = instrumentSpirv(m.bytes, { ...withBlocks(targetOptions('nvidia')), sampling: 'none' });
    assert.equal(drawIdMembers(new ModuleEditor(parseSpirv(out.bytes))), k < 0 ? DRAW_BLOCK_ROW_WORD + 1 : DRAW_BLOCK_STAGE_WORD + k + 1, `${m.id}: the words it reads`);
    const sampled = instrumentSpirv(m.bytes, withBlocks(targetOptions('nvidia')));
    assert.equal(drawIdMembers(new ModuleEditor(parseSpirv(sampled.bytes))), DRAW_ID_WORDS_WITH_SAMPLING, `${m.id}: and the sampling words`);
    const run = new SpirvInterpreter(out.bytes, 'warptrace_blocks', 'warptrace_draw', BLOCK_HEADER_BYTES / 4);
    const rowOf = (drawId: number, row: number) => {
      const uniform = new Uint32Array(DRAW_ID_WORDS);
      uniform[0] = drawId;
      uniform[DRAW_BLOCK_ROW_WORD] = row;
      uniform[DRAW_RAY_ROW_WORD] = 0xffffffff;
      BLOCK_STAGES.forEach((_, j) => (uniform[DRAW_BLOCK_STAGE_WORD + j] = stageValue(j)));
      const privates = run.invocation();
      run.call({ buffer: new Uint32Array(BLOCK_HEADER_BYTES / 4 + 8), uniform }, privates, 'warptrace_blocks_begin');
      return privates.get(run.idOf('warptrace_block_row'));
    };
    assert.equal(rowOf(3, ROW), ROW + (k < 0 ? 0 : stageValue(k)), `${m.id}: row + base (0) + its stage word`);
    assert.equal(rowOf(3, NO_BLOCK_ROW), NO_BLOCK_ROW, `${m.id}: a draw without a row counts nothing`);
    assert.equal(rowOf(0xffffffff, ROW), NO_BLOCK_ROW, `${m.id}: nor an untraced draw`);
  }
  assert.deepEqual(tested, [...BLOCK_STAGES, 'CS'], 'a corpus module of every stage');
});

test('a module already using the block base SpecId, or the block table binding, is refused by name', async () => {
  // glslang caps constant_id far below 0x57540001 (HLSL and hand-written SPIR-V do not): set it in the binary.
  const specs = withSpecId(
    await compileGlsl(`#version 450\nlayout(local_size_x = 1) in;\nlayout(constant_id = 7) const uint k = 1u;\nlayout(set = 0, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = k; }\n`, 'comp', 'vulkan1.1'),
    7,
    BLOCK_BASE_SPEC_ID,
  );
  assert.throws(() => instrumentSpirv(specs, withBlocks(targetOptions('nvidia'))), /already uses SpecId 1465122817/);
  assert.doesNotThrow(() => instrumentSpirv(specs, targetOptions('nvidia')));
  const binding2 = await compileGlsl(`#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 7, binding = 2) buffer Mine { uint v[]; };\nvoid main() { v[0] = 1u; }\n`, 'comp', 'vulkan1.1');
  assert.throws(() => instrumentSpirv(binding2, withBlocks(targetOptions('nvidia'))), /binding 2 \(wanted for the block table\) is already used by variable %\d+;.*the block table M\+2/);
  assert.doesNotThrow(() => instrumentSpirv(binding2, targetOptions('nvidia')));
});

/** The module with its `OpDecorate %x SpecId from` made `SpecId to`. */
function withSpecId(bytes: Uint8Array, from: number, to: number): Uint8Array {
  const words = new Uint32Array(bytes.slice().buffer);
  for (let at = 5; at < words.length; at += words[at]! >>> 16) {
    const opcode = words[at]! & 0xffff;
    if (opcode === Op.Decorate && words[at + 2] === Decoration.SpecId && words[at + 3] === from) words[at + 3] = to;
  }
  return new Uint8Array(words.buffer);
}

/** Members of the draw-id block's struct (OpName WarptraceDraw). */
function drawIdMembers(editor: ModuleEditor): number {
  const [struct] = [...nameIds(editor, 'WarptraceDraw')];
  const declaration = editor.section(Section.Global).find((i) => i.opcode === Op.TypeStruct && i.words[1] === struct);
  assert.ok(declaration, 'the draw-id block is declared');
  return declaration.words.length - 2;
}

function nameIds(editor: ModuleEditor, name: string): Set<number> {
  const ids = new Set<number>();
  for (const inst of editor.section(Section.DebugName)) if (inst.opcode === Op.Name && decodeString(inst.words, 2).value === name) ids.add(inst.words[1]!);
  return ids;
}

function markOf(editor: ModuleEditor): string | null {
  for (const inst of editor.section(Section.DebugSource)) {
    if (inst.opcode !== Op.String) continue;
    const text = decodeString(inst.words, 2).value;
    if (text.startsWith(BLOCK_MARK_PREFIX)) return text;
  }
  return null;
}

function constantValue(editor: ModuleEditor, id: number): number {
  const def = editor.globalDef(id);
  assert.equal(def?.opcode, Op.Constant, `%${id} is an OpConstant`);
  return def!.words[3]!;
}
