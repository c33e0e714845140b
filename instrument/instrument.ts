/**
 * The instrumenter: wraps each entry point of a SPIR-V module (1.0-1.6) in a
 * function that records one warp-trace record, and adds what that needs
 * (capabilities, extensions, built-ins, the trace buffer and draw-id block,
 * interface variables). It checks everything before it builds, and builds a
 * new module: on any error the input is left as it was.
 */
import { encodeString, instruction, parseSpirv, writeSpirv, type SpirvModule } from './model/binary.js';
import { CommonDeclarations } from './model/declarations.js';
import { InstrumentError } from './errors.js';
import { checkIds } from './model/ids.js';
import { ModuleEditor, Section, type EntryPoint } from './model/module.js';
import { checkOptions, DEFAULT_OPTIONS, isRayTracingStage, type InstrumentedStage, type InstrumentOptions } from './options.js';
import { Capability, Decoration, Extension, Op, SPIRV_1_3, StorageClass, executionModelName, formatSpirvVersion, spirvVersion } from './model/spec.js';
import { TOOL_VERSION } from '../cli/version.js';
import { BLOCK_BINDING_OFFSET } from '../shared-schema/block-layout.js';
import { DRAW_RAY_ROW_WORD, RAY_EVENT_BINDING_OFFSET } from '../shared-schema/ray-event-layout.js';
import { DRAW_ID_WORDS_WITH_SAMPLING } from '../shared-schema/sample-layout.js';
import { PASSES } from './passes/index.js';
import { blockDrawIdWords } from './passes/blocks.js';
import { STAGE_OF_EXECUTION_MODEL } from './model/execution-models.js';
import { runPasses, type EntryPointReport, type PassContext, type RecordParts, type SubgroupMode, type TracedEntry } from './passes/pass.js';

export type { EntryPointReport } from './passes/pass.js';

/** OpModuleProcessed text that marks an instrumented module (SPIR-V 1.1+). */
export const PROCESSED_MARK = 'warptrace-instrument';
const TRACE_VARIABLE_NAME = 'warptrace_buffer';

export interface InstrumentResult {
  readonly bytes: Uint8Array;
  readonly module: SpirvModule;
  readonly inputVersion: string;
  readonly outputVersion: string;
  readonly entryPoints: readonly EntryPointReport[];
  /** Things the user should know (version raised, SM builtins unavailable...). */
  readonly notes: readonly string[];
}

export function instrumentSpirv(bytes: Uint8Array, options: InstrumentOptions = DEFAULT_OPTIONS): InstrumentResult {
  return instrumentModule(parseSpirv(bytes), options);
}

export function instrumentModule(input: SpirvModule, options: InstrumentOptions = DEFAULT_OPTIONS): InstrumentResult {
  const problem = checkOptions(options);
  if (problem !== null) throw new InstrumentError(problem);
  // Before any id is allocated: a dangling id at or past the bound would come to mean a new one.
  checkIds(input);
  const editor = new ModuleEditor(input);
  const inputVersion = editor.version;
  checkModule(editor, options);
  const selected = selectEntryPoints(editor, options);
  // Ray events touch only modules with a traced ray-tracing entry point: the others stay as they were.
  const rayEvents = options.rayEvents && selected.some((e) => isRayTracingStage(e.stage));
  if (rayEvents) checkRayEventBinding(editor, options);
  const notes: string[] = [];

  // Subgroup operations and SM built-ins are core/usable from SPIR-V 1.3.
  const wantsSubgroup = selected.some((e) => options.subgroupStages.includes(e.stage));
  if (editor.version < SPIRV_1_3 && options.legacySubgroup === 'upgrade' && (wantsSubgroup || options.smBuiltins)) {
    editor.version = SPIRV_1_3;
    notes.push(`SPIR-V ${formatSpirvVersion(inputVersion)} raised to 1.3 for subgroup operations${options.smBuiltins ? ' and SM built-ins' : ''} (needs a Vulkan 1.1 application; --legacy-subgroup khr-ballot or per-invocation keep the version)`);
  }
  const legacy = editor.version < SPIRV_1_3;
  const smBuiltins = options.smBuiltins && !legacy;
  if (options.smBuiltins && legacy) notes.push(`SM built-ins need SPIR-V 1.3: this ${formatSpirvVersion(editor.version)} module records SM and warp slot as unknown`);
  const subgroupOf = (stage: InstrumentedStage): SubgroupMode =>
    !options.subgroupStages.includes(stage) ? 'none' : !legacy ? 'core' : options.legacySubgroup === 'khr-ballot' ? 'khr-ballot' : 'none';
  const entries: TracedEntry[] = selected.map((e) => ({ ...e, subgroup: subgroupOf(e.stage) }));

  const storageBuffer = editor.version >= SPIRV_1_3 || editor.extensions().includes(Extension.storageBuffer);
  const context: PassContext = {
    editor,
    decl: new CommonDeclarations(editor, storageBuffer ? StorageClass.StorageBuffer : StorageClass.Uniform, drawIdWords(entries, options, rayEvents)),
    options,
    entries,
    untracedEntries: editor.entryPoints().filter((e) => !entries.some((s) => s.index === e.index)),
    smBuiltins,
    recordParts: new Map(entries.map((e): [number, RecordParts] => [e.index, { ending: null, position: null, reportRecord: null, reorder: null, blocks: null, marks: null, rayEvents: null }])),
    notes,
    reports: [],
    wrappersOf: new Map(),
  };
  runPasses(PASSES, context);

  retargetExecutionModes(editor, context.wrappersOf);
  if (editor.version >= spirvVersion(1, 1)) {
    // A module that may sample says so (a reader of the module alone must not take its counts as complete).
    const sampled = ` sampling=${options.sampling}`;
    const marks = options.marks.length > 0 ? ` marks=${options.marks.join(',')}` : '';
    const text = `${PROCESSED_MARK} ${TOOL_VERSION} set=${options.set} binding=${options.binding}${sampled}${marks}`;
    editor.append(Section.DebugProcessed, instruction(Op.ModuleProcessed, encodeString(text)));
  }

  const module = editor.build();
  return {
    bytes: writeSpirv(module),
    module,
    inputVersion: formatSpirvVersion(inputVersion),
    outputVersion: formatSpirvVersion(editor.version),
    entryPoints: context.reports,
    notes,
  };
}

/** u32 words of the draw-id block the module declares: as many as its passes read (1 without blocks, ray events and sampling). */
function drawIdWords(entries: readonly TracedEntry[], options: InstrumentOptions, rayEvents: boolean): number {
  const rayWords = rayEvents ? DRAW_RAY_ROW_WORD + 1 : 1;
  const blockWords = options.blocks ? blockDrawIdWords(entries.map((e) => e.stage)) : 1;
  // Every traced entry reads its stage's rate (the host binds 64 bytes: the 12 words fit).
  const sampleWords = options.sampling === 'runtime' && entries.length > 0 ? DRAW_ID_WORDS_WITH_SAMPLING : 1;
  return Math.max(rayWords, blockWords, sampleWords);
}

interface SelectedEntry extends EntryPoint {
  readonly stage: InstrumentedStage;
}

function checkModule(editor: ModuleEditor, options: InstrumentOptions): void {
  const major = (editor.version >>> 16) & 0xff;
  const minor = (editor.version >>> 8) & 0xff;
  if (major !== 1 || minor > 6 || (editor.version & 0xff0000ff) !== 0) {
    throw new InstrumentError(`SPIR-V version ${major}.${minor} is not supported (1.0 to 1.6 are)`);
  }
  if (editor.hasCapability(Capability.Kernel)) throw new InstrumentError('an OpenCL kernel module (Kernel capability): only Vulkan shaders can be instrumented');
  const [addressing] = editor.memoryModel();
  if (addressing !== 0 && addressing !== 5348) throw new InstrumentError(`addressing model ${addressing} is not supported (Logical or PhysicalStorageBuffer64 are)`);

  const variables = editor.globalVariables();
  const traced = variables.some((v) => editor.nameOf(v.id) === TRACE_VARIABLE_NAME) || editor.moduleProcessed().some((t) => t.startsWith(PROCESSED_MARK));
  if (traced) throw new InstrumentError('module is already instrumented by warptrace');

  const sets = editor.decorationValues(Decoration.DescriptorSet);
  const bindings = editor.decorationValues(Decoration.Binding);
  for (const v of variables) {
    const binding = bindings.get(v.id);
    if (binding === undefined) continue;
    const set = sets.get(v.id) ?? 0;
    const blockTable = options.blocks && binding === options.binding + BLOCK_BINDING_OFFSET;
    if (set !== options.set || (binding !== options.binding && binding !== options.binding + 1 && !blockTable)) continue;
    const name = editor.nameOf(v.id);
    const what = binding === options.binding ? 'the trace buffer' : blockTable ? 'the block table' : 'the draw-id block';
    throw new InstrumentError(
      `descriptor set ${set}, binding ${binding} (wanted for ${what}) is already used by ${name ? `"${name}"` : `variable %${v.id}`}; choose free bindings with --set N --binding M (the trace buffer takes M, the draw-id block M+1${options.blocks ? ', the block table M+2' : ''})`,
    );
  }
}

/** The ray-event table's binding (trace binding + 3) must be free. */
function checkRayEventBinding(editor: ModuleEditor, options: InstrumentOptions): void {
  const sets = editor.decorationValues(Decoration.DescriptorSet);
  const binding = options.binding + RAY_EVENT_BINDING_OFFSET;
  for (const [id, b] of editor.decorationValues(Decoration.Binding)) {
    if (b !== binding || (sets.get(id) ?? 0) !== options.set || editor.globalDef(id)?.opcode !== Op.Variable) continue;
    const name = editor.nameOf(id);
    throw new InstrumentError(
      `descriptor set ${options.set}, binding ${binding} (wanted for the ray-event table) is already used by ${name ? `"${name}"` : `variable %${id}`}; choose free bindings with --set N --binding M (the ray-event table takes M+3)`,
    );
  }
}

function selectEntryPoints(editor: ModuleEditor, options: InstrumentOptions): SelectedEntry[] {
  const all = editor.entryPoints();
  if (all.length === 0) throw new InstrumentError('module has no entry point');
  if (options.entryPoints !== null) {
    for (const name of options.entryPoints) if (!all.some((e) => e.name === name)) throw new InstrumentError(`no entry point named "${name}" (the module has ${all.map((e) => `"${e.name}"`).join(', ')})`);
  }
  const chosen = options.entryPoints === null ? all : all.filter((e) => options.entryPoints!.includes(e.name));
  const selected = chosen.map((e) => {
    const stage = STAGE_OF_EXECUTION_MODEL.get(e.executionModel);
    if (stage === undefined) {
      // Pointing at --entry only helps when it was not used and the module has entry points it can instrument
      // whose names select them alone.
      const others = options.entryPoints === null ? all.filter((o) => STAGE_OF_EXECUTION_MODEL.has(o.executionModel) && !all.some((u) => u.name === o.name && !STAGE_OF_EXECUTION_MODEL.has(u.executionModel))) : [];
      const hint = others.length === 0 ? '' : ` (instrument the others with ${others.map((o) => `--entry ${JSON.stringify(o.name)}`).join(' ')})`;
      throw new InstrumentError(`entry point "${e.name}" is ${withArticle(executionModelName(e.executionModel))} shader; warptrace instruments vertex, tessellation, geometry, fragment, compute, task, mesh and ray-tracing shaders${hint}`);
    }
    if (editor.functionRange(e.functionId) === null) throw new InstrumentError(`entry point "${e.name}" names function %${e.functionId}, which the module does not define`);
    return { ...e, stage };
  });
  for (const other of all) {
    if (chosen.includes(other)) continue;
    const shared = selected.find((s) => s.functionId === other.functionId);
    if (shared) throw new InstrumentError(`entry points "${shared.name}" and "${other.name}" share one function: instrument both or neither`);
  }
  return selected;
}

/** "an AnyHitKHR", "a MissKHR". */
function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/** Execution modes follow the entry point to its wrapper (one copy per wrapper of a shared function). */
function retargetExecutionModes(editor: ModuleEditor, wrappersOf: ReadonlyMap<number, readonly number[]>): void {
  const out = editor.section(Section.ExecutionMode).flatMap((inst) => {
    const wrappers = wrappersOf.get(inst.words[1]!);
    if (wrappers === undefined) return [inst];
    return wrappers.map((w) => {
      const operands = Array.from(inst.words.subarray(1));
      operands[0] = w;
      return instruction(inst.opcode, operands);
    });
  });
  editor.replaceSection(Section.ExecutionMode, out);
}
