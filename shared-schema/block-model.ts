/**
 * Block profiles in the trace model (issue 23, `warptrace instrument
 * --blocks`): per basic block of each instrumented module, per draw, the
 * warp executions, live lanes and clock ticks the GPU summed. The counts are
 * columns (one Float64Array per counter, indexed by the module's block
 * number); blocks and modules are few, so they are objects.
 */
import type { StageName } from './stages.js';

/** How a module counts: once per warp, or once per invocation (stages without subgroup operations). */
export type BlockCounting = 'warp' | 'invocation';
/** The clock of a module's ticks: SM cycles, or device-clock ticks. */
export type BlockClock = 'sm' | 'device';

export const BLOCK_COUNTINGS: readonly BlockCounting[] = ['warp', 'invocation'];
export const BLOCK_CLOCKS: readonly BlockClock[] = ['sm', 'device'];

/** Where a block is in the source, as the module's debug information says. */
export interface BlockSite {
  /** The function the block is in: its OpName, or "%id" without one. */
  readonly function: string;
  /** Source file of the block's first line information; null when the block has none. */
  readonly file: string | null;
  /** 1-based line and column of that information (column null when not given). */
  readonly line: number | null;
  readonly column: number | null;
  /** A short disassembly, for blocks without a line (null when the block has one). */
  readonly text: string | null;
}

/** A source file's text, as the module embeds it (OpSource, DebugSource). */
export interface SourceText {
  readonly file: string;
  readonly text: string;
}

/** An instrumented module: its blocks are numbered 0..blocks.length-1. */
export interface BlockModule {
  /** What the capture called it (a file name, a pipeline stage's module). */
  readonly name: string;
  /** The stages of its entry points. */
  readonly stages: readonly StageName[];
  readonly per: BlockCounting;
  readonly clock: BlockClock;
  readonly blocks: readonly BlockSite[];
  /** Source text the module carries (empty when none: compiled without -gVS / -g with source). */
  readonly sources: readonly SourceText[];
}

/** A module's counts in one draw: one value per block of the module, 64-bit counters as exact doubles (below 2^53). */
export interface BlockCounts {
  /** Index into BlockProfile.modules. */
  readonly module: number;
  /** Warp executions (invocations for per=invocation modules). */
  readonly executions: Float64Array;
  /** Live lanes summed over the executions. */
  readonly lanes: Float64Array;
  /** Clock ticks from each entry to the next block entry (or the end), summed, in the module's clock. */
  readonly ticks: Float64Array;
}

/** A profiled draw: the counts of each module of its pipeline. */
export interface BlockRow {
  /** Index into Trace.draws. */
  readonly draw: number;
  /** At most one entry per module. */
  readonly modules: readonly BlockCounts[];
}

export interface BlockProfile {
  /** Lanes per warp the counts were taken with (the device's subgroup size). */
  readonly subgroupSize: number;
  /** Block executions the GPU could not count: their cell lay past the table (a host that sized rows wrong). */
  readonly dropped: number;
  /** Traced draws that got no row (the table was full). */
  readonly unprofiledDraws: number;
  readonly modules: readonly BlockModule[];
  /** One per profiled draw, in ascending draw order. */
  readonly rows: readonly BlockRow[];
}

/** What a module's SPIR-V says about its blocks (instrument/block-map.ts reads it; the capture names the module). */
export type ModuleDescription = Omit<BlockModule, 'name'>;

/**
 * Describes an instrumented module from its bytes. shared-schema does not
 * parse SPIR-V beyond the block mark: whoever composes the decoder (the CLI,
 * the viewer) passes instrument/block-map.ts's describer.
 */
export type DescribeModule = (spirv: Uint8Array) => ModuleDescription;
