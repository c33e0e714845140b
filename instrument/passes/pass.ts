/**
 * What an instrumenter pass sees and does. The driver (instrument.ts) checks
 * the module, picks the entry points to trace and how each combines its lanes,
 * then runs every pass of PASSES (passes/index.ts) through three phases, each
 * phase for all passes before the next:
 *
 *   declare    capabilities, extensions and notes (they come first in a module)
 *   transform  rewrites of the app's own functions (deferred endings, reports,
 *              reorder points, basic-block counters, marks, ray
 *              events)
 *   record     code of the record itself (the entry-point wrappers)
 *
 * A pass that adds something to each warp's record says so in the entry's
 * RecordParts during `declare` or `transform`; the records pass writes them.
 * The phases fix the order in which ids are allocated, so the output of a
 * given input and options is the same bytes on every run.
 */
import type { CommonDeclarations } from '../model/declarations.js';
import type { EntryPoint, ModuleEditor } from '../model/module.js';
import type { CustomIdSource, InstrumentedStage, InstrumentOptions, PositionStage } from '../options.js';
import type { DeferredEndings } from './ending-deferral.js';
import type { ReorderRecord, ReportRecord } from './record-wrapper.js';
import type { BlockHooks } from './blocks.js';
import type { MarkHooks } from './marks.js';
import type { RayEventHooks } from './ray-events.js';

/** How the warp's lanes are combined into one record. */
export type SubgroupMode = 'core' | 'khr-ballot' | 'none';

/** An entry point the options select for tracing. */
export interface TracedEntry extends EntryPoint {
  readonly stage: InstrumentedStage;
  readonly subgroup: SubgroupMode;
}

/** What a traced entry's record carries beyond clocks, ids and lanes; filled in by passes before `record`. */
export interface RecordParts {
  /** Deferred endings (discard, any-hit ignore/terminate, task emit): performed after the record. */
  ending: DeferredEndings | null;
  /** Record the warp's screen position (word 3 and RecordFlag.POSITION) from this stage's pixel; null: none. */
  position: PositionStage | null;
  /** Intersection shaders that report: their lanes record at the first report (intersection-reports.ts); else null. */
  reportRecord: ReportRecord | null;
  /** Ray generation that reorders: records end at each reorder point (reorders.ts); else null. */
  reorder: ReorderRecord | null;
  /** Block profiles: the calls around the entry point (blocks.ts); else null. */
  blocks: BlockHooks | null;
  /** Marks: the private variable the wrapper stores its start clock into for the mark function (marks.ts); else null. */
  marks: MarkHooks | null;
  /** Ray events: the globals the entry's ray-event code reaches, for its interface (ray-events.ts); else null. */
  rayEvents: RayEventHooks | null;
}

export interface EntryPointReport {
  readonly name: string;
  readonly stage: InstrumentedStage;
  /** core / khr-ballot: one record per warp; none: one per invocation. */
  readonly subgroup: SubgroupMode;
  readonly smBuiltins: boolean;
  readonly customId: CustomIdSource;
  /** RecordFlag bits the records carry. */
  readonly flags: number;
  /** The warp decides at run time whether it records (sampling 'runtime': the host's rate for its stage). */
  readonly sampled: boolean;
  /** Records carry the screen position (word 3, RecordFlag.POSITION) from this stage's pixel. */
  readonly position: boolean;
}

export interface PassContext {
  readonly editor: ModuleEditor;
  readonly decl: CommonDeclarations;
  readonly options: InstrumentOptions;
  /** The entry points traced, in module order. */
  readonly entries: readonly TracedEntry[];
  /** Entry points left as they are (their code must keep its meaning). */
  readonly untracedEntries: readonly EntryPoint[];
  /** SM id and warp slot from VK_NV_shader_sm_builtins (false before SPIR-V 1.3). */
  readonly smBuiltins: boolean;
  /** By entry-point index. */
  readonly recordParts: ReadonlyMap<number, RecordParts>;
  /** Things the user should know, in the order passes found them. */
  readonly notes: string[];
  /** Filled by the records pass, in entry order. */
  readonly reports: EntryPointReport[];
  /** Original entry function id -> the wrappers now calling it (execution modes follow them). */
  readonly wrappersOf: Map<number, number[]>;
}

export interface InstrumentPass {
  readonly name: string;
  declare?(context: PassContext): void;
  transform?(context: PassContext): void;
  record?(context: PassContext): void;
}

const PHASES = ['declare', 'transform', 'record'] as const;

/** Runs each phase of every pass, in order. */
export function runPasses(passes: readonly InstrumentPass[], context: PassContext): void {
  for (const phase of PHASES) for (const pass of passes) pass[phase]?.(context);
}
