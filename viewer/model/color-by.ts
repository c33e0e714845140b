/**
 * "Color by": what the colour of a warp bar stands for. A mode turns the
 * warp columns into a class per warp (one byte per warp, computed once per
 * mode change) and a palette of at most MAX_COLOR_CLASSES colours with a
 * legend. The level of detail reads the class column where it read the stage
 * column (lane-lod.ts), and collapsed lanes stack their occupancy by class
 * (class-occupancy.ts). A new mode is a case of ColorBy, a classifier module
 * and a case in colorClasses().
 *
 * - stage: the stage's colour (the default; the stage chips are its legend).
 * - lanes: SIMT efficiency, the warp's live lanes (its record's mask, taken at
 *   its end) over the subgroup size, in classes through viridis (lane-classes.ts).
 * - branch: the 2016 Warp Trace's red / yellow / grey for the mark chosen: all
 *   of the warp's lanes reached it, some did, none did (branch-classes.ts).
 * - draw, pass: categorical colours that tell neighbouring draws or passes
 *   apart, cycling past 16 (draw-classes.ts).
 * - duration: the warp's duration percentile within its stage (duration-classes.ts).
 * - sm: the SM that ran it, or a run of SMs past 16 (sm-classes.ts).
 */
import { STAGES, type Trace } from '../../shared-schema/index.js';
import { markLabel } from '../../analysis/marks.js';
import { branchFill, markIdsOf, type MarkIdCount } from './branch-classes.js';
import { STAGE_DIM_RGBA, STAGE_RGBA } from './colors.js';
import { drawFill, passFill } from './draw-classes.js';
import { durationFill } from './duration-classes.js';
import { liveLaneFill } from './lane-classes.js';
import { smFill } from './sm-classes.js';

/** Modes without a parameter, as their link tokens. */
const PLAIN_MODES = ['stage', 'lanes', 'draw', 'pass', 'duration', 'sm'] as const;
type PlainMode = (typeof PLAIN_MODES)[number];

export type ColorBy = { readonly kind: PlainMode } | { readonly kind: 'branch'; readonly mark: number };

export const COLOR_BY_STAGE: ColorBy = { kind: 'stage' };

/** Classes a mode may use: the level of detail keeps one occupancy accumulator per class. */
export const MAX_COLOR_CLASSES = 16;

export interface LegendEntry {
  readonly cls: number;
  /** Short text beside the swatch ("28–31", "some lanes"). */
  readonly label: string;
  /** What the class means, for its tooltip. */
  readonly title: string;
  /** 0xRRGGBB. */
  readonly rgb: number;
  /** Warps the entry stands for when that is not its whole class (a draw among the draws sharing its colour). */
  readonly warps?: number;
}

/** A mode's palette: per class its colour, dimmed colour and legend entry. */
export interface ClassPalette {
  readonly rgba: Uint32Array;
  readonly dimRgba: Uint32Array;
  /** In the legend's order; classes no warp can take are left out. */
  readonly legend: readonly LegendEntry[];
  /** A line before the entries, when they do not name every class ("2,025 draws in 16 colors …"). */
  readonly note?: string;
  /** What a warp's class is, for its tooltip, when the legend's label cannot say it (the warp's draw, its percentile). */
  readonly warpLabel?: (row: number) => string;
}

/** A pass over every row a classifier makes before `fill` (slices in row order), then `done`. */
export interface ClassPrepass {
  scan(begin: number, end: number): void;
  done(): void;
}

/** A mode's classifier: fills the class column a slice of rows at a time, any order of slices. */
export interface ClassFill {
  readonly classOf: Uint8Array;
  /** Passes over all rows before the fill (the duration percentiles' histogram and gather). */
  readonly passes?: readonly ClassPrepass[];
  /** Classifies rows [begin, end). */
  fill(begin: number, end: number): void;
  /** The palette, once every row is classified (it may leave out classes no warp took). */
  palette(): ClassPalette;
}

export interface ColorClasses extends ClassPalette {
  readonly by: ColorBy;
  /** Per warp row, its class (< MAX_COLOR_CLASSES). For `stage` it is the trace's own stage column: never write to it. */
  readonly classOf: Uint8Array;
  /** Warps per class. */
  readonly counts: Uint32Array;
  /** One line naming the mode ("live lanes of 32", "branch at before trace #1"). */
  readonly caption: string;
}

/** The classes of every warp under `by` (a branch on a mark the trace lacks leaves every warp grey). */
export function colorClasses(trace: Trace, by: ColorBy): ColorClasses {
  return runSteps(colorClassSteps(trace, by, Infinity));
}

/** colorClasses `slice` rows at a time, yielding between slices (class-occupancy.ts drives it on the page). */
export function* colorClassSteps(trace: Trace, by: ColorBy, slice: number): Generator<void, ColorClasses> {
  const n = trace.warps.count;
  const counts = new Uint32Array(MAX_COLOR_CLASSES);
  if (by.kind === 'stage') {
    const classOf = trace.warps.stage;
    const legend = STAGES.map((s) => ({ cls: s.code, label: s.label, title: `${s.title} warps`, rgb: s.color }));
    return { by, classOf, counts: countClasses(classOf, n), rgba: STAGE_RGBA, dimRgba: STAGE_DIM_RGBA, legend, caption: 'stage' };
  }
  const classes = classFill(trace, by);
  for (const pass of classes.passes ?? []) {
    for (let begin = 0; begin < n; begin += slice) {
      pass.scan(begin, Math.min(n, begin + slice));
      yield;
    }
    pass.done();
  }
  for (let begin = 0; begin < n; begin += slice) {
    const end = Math.min(n, begin + slice);
    classes.fill(begin, end);
    countInto(counts, classes.classOf, begin, end);
    if (end < n) yield;
  }
  return { by, classOf: classes.classOf, counts, ...classes.palette(), caption: captionOf(trace, by) };
}

/** The classifier of a mode other than stage (whose classes are the stage column itself). */
function classFill(trace: Trace, by: ColorBy): ClassFill {
  switch (by.kind) {
    case 'lanes':
      return liveLaneFill(trace);
    case 'branch':
      return branchFill(trace, by.mark);
    case 'draw':
      return drawFill(trace);
    case 'pass':
      return passFill(trace);
    case 'duration':
      return durationFill(trace);
    case 'sm':
      return smFill(trace);
    case 'stage':
      throw new Error('stage mode reads the stage column: it has no classifier');
  }
}

function captionOf(trace: Trace, by: ColorBy): string {
  switch (by.kind) {
    case 'lanes':
      return `live lanes of ${trace.device.subgroupSize}`;
    case 'branch':
      return `branch at ${markLabel(by.mark)}`;
    case 'duration':
      return 'duration percentile in its stage';
    default:
      return by.kind === 'sm' ? 'SM' : by.kind;
  }
}

/** Runs a step generator to its end at once. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

function countInto(counts: Uint32Array, classOf: Uint8Array, begin: number, end: number): void {
  for (let i = begin; i < end; i++) counts[classOf[i]! & (MAX_COLOR_CLASSES - 1)]!++;
}

export function countClasses(classOf: Uint8Array, count: number): Uint32Array {
  const counts = new Uint32Array(MAX_COLOR_CLASSES);
  countInto(counts, classOf, 0, count);
  return counts;
}

/** The mode as one token: the view link's `color` field and the selector's value ('stage', 'lanes', 'branch:16777216'). */
export function colorByKey(by: ColorBy): string {
  return by.kind === 'branch' ? `branch:${by.mark}` : by.kind;
}

/** Reads colorByKey's token; null when it is none. */
export function parseColorBy(token: string): ColorBy | null {
  if (token === 'stage') return COLOR_BY_STAGE;
  const plain = PLAIN_MODES.find((m) => m === token);
  if (plain !== undefined) return { kind: plain };
  const m = /^branch:(\d{1,10})$/.exec(token);
  if (m === null) return null;
  const mark = Number(m[1]);
  return mark <= 0xffffffff ? { kind: 'branch', mark } : null;
}

export function sameColorBy(a: ColorBy, b: ColorBy): boolean {
  return colorByKey(a) === colorByKey(b);
}

export interface ColorByOption {
  readonly by: ColorBy;
  readonly key: string;
  readonly label: string;
}

/**
 * The modes a trace offers: stage, live lanes, draw (with two draws or more), pass (with
 * regions), duration percentile, SM, and a branch per mark id its warps reached (markIdsOf).
 */
export function colorByOptions(markIds: readonly MarkIdCount[], trace: { readonly draws: readonly unknown[]; readonly regions: readonly unknown[] } | null = null): ColorByOption[] {
  const out: ColorByOption[] = [
    { by: COLOR_BY_STAGE, key: 'stage', label: 'stage' },
    { by: { kind: 'lanes' }, key: 'lanes', label: 'live lanes (SIMT efficiency)' },
  ];
  if (trace === null || trace.draws.length > 1) out.push({ by: { kind: 'draw' }, key: 'draw', label: 'draw' });
  if (trace === null || trace.regions.length > 0) out.push({ by: { kind: 'pass' }, key: 'pass', label: 'pass' });
  out.push({ by: { kind: 'duration' }, key: 'duration', label: 'duration percentile' }, { by: { kind: 'sm' }, key: 'sm', label: 'SM' });
  for (const m of markIds) {
    const by: ColorBy = { kind: 'branch', mark: m.id };
    out.push({ by, key: colorByKey(by), label: `branch: ${markLabel(m.id)} (${m.warps.toLocaleString('en-US')} warps)` });
  }
  return out;
}

export { markIdsOf, type MarkIdCount };
