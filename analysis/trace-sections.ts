/**
 * The summary's sections for a trace's optional data (issue 23): block
 * profiles (the hottest source lines per draw and over every draw, from
 * blocks.ts), phases between marks (marks.ts's table) and ray events (per
 * trace-rays call: launches, size, totals per event). Each is absent when the
 * trace has no such data, so a summary of any older trace is what it was.
 * Bounded where a section could grow with the warps: block lines are the top
 * BLOCK_TOP_PER_DRAW of each profiled draw and BLOCK_TOP_OVERALL over all.
 */
import type { BlockClock, Trace } from '../shared-schema/model.js';
import { RAY_EVENTS, type RayEvent } from '../shared-schema/ray-event-model.js';
import { blockTable, type BlockStat } from './blocks.js';
import { skippedProfiles, type SkippedProfile } from './block-skips.js';
import { phaseTable, type PhaseTable } from './marks.js';

/** Lines listed per profiled draw, and over every profiled draw. */
export const BLOCK_TOP_PER_DRAW = 10;
export const BLOCK_TOP_OVERALL = 20;

/** The hottest lines of one draw, or of every profiled draw. */
export interface BlockScope {
  /** The draw; null: every profiled draw. */
  readonly draw: number | null;
  /** Lines (and blocks without a line) that ran in the scope: `top` lists the hottest of them. */
  readonly entries: number;
  /** The scope's clock ticks, per clock (tickShare's denominators). */
  readonly totalTicks: Readonly<Record<BlockClock, number>>;
  /** blocks.ts's entries grouped by line, hottest first (ticks, then executions). */
  readonly top: BlockStat[];
}

export interface BlockSection {
  /** Always 'line': a source line's blocks summed, blocks without a line alone (`warptrace blocks`' default). */
  readonly by: 'line';
  readonly subgroupSize: number;
  readonly topPerDraw: number;
  readonly topOverall: number;
  /** Block executions the GPU could not count; traced draws that got no row. */
  readonly dropped: number;
  readonly unprofiledDraws: number;
  /** Traced draws the capture layer gave no profile, with why (block-skips.ts); absent when none, so other summaries are unchanged. */
  readonly skipped?: readonly Pick<SkippedProfile, 'draw' | 'why'>[];
  readonly overall: BlockScope;
  /** One per profiled draw, ascending. */
  readonly draws: BlockScope[];
}

/** One profiled trace-rays call: ray-event-model.ts's row without its cells. */
export interface RayRowTotals {
  readonly draw: number;
  readonly launches: number;
  readonly launchWidth: number;
  readonly launchHeight: number;
  readonly launchDepth: number;
  readonly mixedSizes: boolean;
  /** Per event (RAY_EVENTS order), over the row's launches. */
  readonly totals: Readonly<Record<RayEvent, number>>;
}

/** The events' names in CSV columns and Perfetto arguments: "trace_calls", "any_hits_ignored", … */
export const RAY_EVENT_KEYS = Object.fromEntries(RAY_EVENTS.map((e) => [e, e.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)])) as Readonly<Record<RayEvent, string>>;

export interface RaySection {
  readonly cellsPerRow: number;
  readonly dropped: number;
  readonly uncountedTraversals: number;
  readonly unprofiledLaunches: number;
  /** Ascending by draw. */
  readonly rows: RayRowTotals[];
}

/** The sections a summary may carry (each absent without its data). */
export interface TraceSections {
  readonly blocks?: BlockSection;
  readonly phases?: PhaseTable;
  readonly rays?: RaySection;
}

export function blockSection(trace: Trace): BlockSection | undefined {
  const profile = trace.blocks ?? null;
  if (profile === null) return undefined;
  const clocks = trace.device.clocks;
  const skipped = skippedProfiles(trace.draws).map(({ draw, why }) => ({ draw, why }));
  const scope = (draw: number | null, top: number): BlockScope => {
    const t = blockTable(profile, clocks, { draws: draw === null ? null : new Set([draw]), by: 'line' });
    return { draw, entries: t.stats.length, totalTicks: { ...t.totalTicks }, top: t.stats.slice(0, top) };
  };
  return {
    by: 'line',
    subgroupSize: profile.subgroupSize,
    topPerDraw: BLOCK_TOP_PER_DRAW,
    topOverall: BLOCK_TOP_OVERALL,
    dropped: profile.dropped,
    unprofiledDraws: profile.unprofiledDraws,
    ...(skipped.length > 0 && { skipped }),
    overall: scope(null, BLOCK_TOP_OVERALL),
    draws: profile.rows.map((row) => scope(row.draw, BLOCK_TOP_PER_DRAW)),
  };
}

export function raySection(trace: Trace): RaySection | undefined {
  const profile = trace.rayEvents ?? null;
  if (profile === null) return undefined;
  return {
    cellsPerRow: profile.cellsPerRow,
    dropped: profile.dropped,
    uncountedTraversals: profile.uncountedTraversals,
    unprofiledLaunches: profile.unprofiledLaunches,
    rows: profile.rows.map((r) => ({
      draw: r.draw,
      launches: r.launches,
      launchWidth: r.launchWidth,
      launchHeight: r.launchHeight,
      launchDepth: r.launchDepth,
      mixedSizes: r.mixedSizes,
      totals: Object.fromEntries(RAY_EVENTS.map((e) => [e, r.totals[e]])) as Record<RayEvent, number>,
    })),
  };
}

export interface SectionOptions {
  /** The trace's phase table of every draw and stage, when already made (the viewer's worker makes it for its panel). */
  readonly phases?: PhaseTable | null;
}

/**
 * `summary` with the sections it lacks and the trace has data for, after its
 * other fields in the order blocks, phases, rays (so every path writes the
 * same JSON). A summary with every section it can have is returned as is.
 */
export function withTraceSections<S extends TraceSections>(summary: S, trace: Trace, options: SectionOptions = {}): S {
  const blocks = summary.blocks ?? blockSection(trace);
  const phases = summary.phases ?? (trace.marks == null ? undefined : (options.phases ?? phaseTable(trace, { draws: null, stage: null })));
  const rays = summary.rays ?? raySection(trace);
  if (blocks === summary.blocks && phases === summary.phases && rays === summary.rays) return summary;
  const { blocks: _blocks, phases: _phases, rays: _rays, ...rest } = summary;
  return { ...rest, ...(blocks && { blocks }), ...(phases && { phases }), ...(rays && { rays }) } as S;
}

/** The block section cut to one draw: its scope, and its skipped entry only (none: no key). */
function blockSectionOfDraw(blocks: BlockSection, draw: number): BlockSection {
  const { skipped, overall, draws, ...head } = blocks;
  const own = (skipped ?? []).filter((s) => s.draw === draw);
  // The keys in blockSection's order.
  return { ...head, ...(own.length > 0 && { skipped: own }), overall, draws: draws.filter((d) => d.draw === draw) };
}

/**
 * The sections as a report on draw `draw` has them: the per-draw lists cut to
 * that draw (blocks keep `overall`, the whole trace's, for context), the
 * phases' mark and warp counts those of the draw.
 */
export function sectionsOfDraw(sections: TraceSections, draw: number): TraceSections {
  const { blocks, phases, rays } = sections;
  let drawPhases: PhaseTable | undefined;
  if (phases !== undefined) {
    const own = phases.phases.filter((p) => p.draw === draw);
    // Each marked warp has one phase from its start, and a phase more than it has marks.
    const warpsWithMarks = own.reduce((n, p) => n + (p.from === null ? p.warps : 0), 0);
    const marks = own.reduce((n, p) => n + p.occurrences, 0) - warpsWithMarks;
    drawPhases = { phases: own, marks, warpsWithMarks, orphans: phases.orphans };
  }
  return {
    ...(blocks && { blocks: blockSectionOfDraw(blocks, draw) }),
    ...(drawPhases && { phases: drawPhases }),
    ...(rays && { rays: { ...rays, rows: rays.rows.filter((r) => r.draw === draw) } }),
  };
}
