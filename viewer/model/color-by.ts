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
 */
import { STAGES, type Trace } from '../../shared-schema/index.js';
import { markLabel } from '../../analysis/marks.js';
import { branchFill, markIdsOf, type MarkIdCount } from './branch-classes.js';
import { STAGE_DIM_RGBA, STAGE_RGBA } from './colors.js';
import { liveLaneFill } from './lane-classes.js';

export type ColorBy = { readonly kind: 'stage' } | { readonly kind: 'lanes' } | { readonly kind: 'branch'; readonly mark: number };

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
}

/** A mode's palette: per class its colour, dimmed colour and legend entry. */
export interface ClassPalette {
  readonly rgba: Uint32Array;
  readonly dimRgba: Uint32Array;
  /** In the legend's order; classes no warp can take are left out. */
  readonly legend: readonly LegendEntry[];
}

/** A mode's classifier: fills the class column a slice of rows at a time, any order of slices. */
export interface ClassFill {
  readonly classOf: Uint8Array;
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
  const classes = by.kind === 'lanes' ? liveLaneFill(trace) : branchFill(trace, by.mark);
  for (let begin = 0; begin < n; begin += slice) {
    const end = Math.min(n, begin + slice);
    classes.fill(begin, end);
    countInto(counts, classes.classOf, begin, end);
    if (end < n) yield;
  }
  const caption = by.kind === 'lanes' ? `live lanes of ${trace.device.subgroupSize}` : `branch at ${markLabel(by.mark)}`;
  return { by, classOf: classes.classOf, counts, ...classes.palette(), caption };
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
  if (token === 'lanes') return { kind: 'lanes' };
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

/** The modes a trace offers: stage, live lanes, and a branch per mark id its warps reached (ids from markIdsOf). */
export function colorByOptions(markIds: readonly MarkIdCount[]): ColorByOption[] {
  const out: ColorByOption[] = [
    { by: COLOR_BY_STAGE, key: 'stage', label: 'stage' },
    { by: { kind: 'lanes' }, key: 'lanes', label: 'live lanes (SIMT efficiency)' },
  ];
  for (const m of markIds) {
    const by: ColorBy = { kind: 'branch', mark: m.id };
    out.push({ by, key: colorByKey(by), label: `branch: ${markLabel(m.id)} (${m.warps.toLocaleString('en-US')} warps)` });
  }
  return out;
}

export { markIdsOf, type MarkIdCount };
