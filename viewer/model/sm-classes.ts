/**
 * Color by SM: which SM ran a warp. Each lane is one SM, so this mode speaks
 * where lanes are summed: the overview stacks the GPU's occupancy by SM, and
 * the range and in-flight views read against it. With up to 16 SMs that ran
 * warps each gets a colour of its own (class-palette.ts); with more, the SMs
 * (ascending) are split into 16 runs of about equal count, labelled by their
 * first and last id ("SM 0–8"). Warps without an SM id (lavapipe) are grey,
 * taking the last class.
 */
import { UNKNOWN_SM, type Trace } from '../../shared-schema/index.js';
import { CATEGORICAL_RGB, OUTSIDE_RGB, classColors } from './class-palette.js';
import type { ClassFill, LegendEntry } from './color-by.js';

const UNKNOWN_CLASS = 15;

/** Per SM group (trace.warps.smGroups order), its class; and the legend's runs. */
export function smClassesOf(trace: Trace): { classOfGroup: Uint8Array; runs: { cls: number; first: number; last: number }[]; unknown: boolean } {
  const groups = trace.warps.smGroups.sm;
  const known = [...new Set(Array.from(groups).filter((s) => s !== UNKNOWN_SM))].sort((a, b) => a - b);
  const unknown = known.length < new Set(groups).size;
  const colors = unknown ? 15 : 16;
  const classOfSm = new Map<number, number>();
  known.forEach((sm, k) => classOfSm.set(sm, known.length <= colors ? k : Math.floor((k * colors) / known.length)));
  const runs: { cls: number; first: number; last: number }[] = [];
  for (const sm of known) {
    const cls = classOfSm.get(sm)!;
    const run = runs[runs.length - 1];
    if (run !== undefined && run.cls === cls) run.last = sm;
    else runs.push({ cls, first: sm, last: sm });
  }
  const classOfGroup = Uint8Array.from(groups, (s) => (s === UNKNOWN_SM ? UNKNOWN_CLASS : classOfSm.get(s)!));
  return { classOfGroup, runs, unknown };
}

export function smFill(trace: Trace): ClassFill {
  const w = trace.warps;
  const classOf = new Uint8Array(w.count);
  const { offsets } = w.smGroups;
  const { classOfGroup, runs, unknown } = smClassesOf(trace);
  return {
    classOf,
    fill(begin: number, end: number): void {
      // Rows are grouped by SM: fill each group's share of the slice at once.
      for (let g = 0; g < classOfGroup.length; g++) {
        const lo = Math.max(begin, offsets[g]!);
        const hi = Math.min(end, offsets[g + 1]!);
        if (lo < hi) classOf.fill(classOfGroup[g]!, lo, hi);
      }
    },
    palette() {
      const rgbs = [...CATEGORICAL_RGB.slice(0, 15), unknown ? OUTSIDE_RGB : CATEGORICAL_RGB[15]!];
      const legend: LegendEntry[] = runs.map((r) => {
        const label = r.first === r.last ? `SM ${r.first}` : `SM ${r.first}–${r.last}`;
        return { cls: r.cls, label, title: `warps that ran on ${r.first === r.last ? label : `SMs ${r.first} to ${r.last} (those of them that ran warps)`}`, rgb: rgbs[r.cls]! };
      });
      if (unknown) legend.push({ cls: UNKNOWN_CLASS, label: 'SM unknown', title: 'warps recorded without an SM id', rgb: OUTSIDE_RGB });
      return { ...classColors(rgbs), legend };
    },
  };
}
