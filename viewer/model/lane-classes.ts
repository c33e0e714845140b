/**
 * Color by live lanes (SIMT efficiency): a warp's class from the lanes live
 * in its record's mask (written at the warp's end) over the subgroup size S.
 * Partial warps fall in B = min(8, S) equal classes, class k holding the
 * warps with floor(lanes · B / S) = k; a full warp (lanes ≥ S) is class B;
 * colours run through viridis from class 0 (dark purple) to B (yellow). A
 * warp of a stage the device runs without subgroup operations recorded one
 * invocation, not a warp: class PER_INVOCATION, grey (an empty
 * `subgroupStages`, as in JSON imports that leave it out, counts every
 * stage as measured).
 */
import { STAGES, STAGE_COUNT, type Trace } from '../../shared-schema/index.js';
import { popcount32 } from '../../shared-schema/columns.js';
import { COLORMAP_RGB, colormapIndex } from '../../analysis/screen-colormap.js';
import { THEME, mixRgb, packRgba } from './colors.js';
import type { ClassFill, ClassPalette, LegendEntry } from './color-by.js';

/** Class of warps recorded once per invocation (stages without subgroup operations). */
export const PER_INVOCATION = 15;
export const PER_INVOCATION_RGB = 0x80858f;
/** Dimmed colours: mixed toward the background as the stages' are. */
const DIM = 0.72;

/** Classes of partial warps for subgroups of `size` lanes (full warps are class `partialClasses(size)`). */
export function partialClasses(size: number): number {
  return Math.max(1, Math.min(8, size));
}

/** The class of a warp with `lanes` live lanes of `size`. */
export function laneClass(lanes: number, size: number): number {
  const b = partialClasses(size);
  return lanes >= size ? b : Math.floor((lanes * b) / size);
}

/** Lanes a partial class holds: [lo, hi], lo > hi when none. */
export function classLanes(k: number, size: number): [number, number] {
  const b = partialClasses(size);
  return [Math.max(1, Math.ceil((k * size) / b)), Math.ceil(((k + 1) * size) / b) - 1];
}

export function laneClassRgb(k: number, size: number): number {
  if (k === PER_INVOCATION) return PER_INVOCATION_RGB;
  const i = colormapIndex(k / partialClasses(size)) * 3;
  return (COLORMAP_RGB[i]! << 16) | (COLORMAP_RGB[i + 1]! << 8) | COLORMAP_RGB[i + 2]!;
}

/** Bit s set: stage s records once per invocation on this device. */
export function perInvocationStages(trace: Trace): number {
  const listed = trace.device.subgroupStages;
  if (listed.length === 0) return 0;
  let mask = 0;
  for (const s of STAGES) if (s.code < STAGE_COUNT && !listed.includes(s.name)) mask |= 1 << s.code;
  return mask;
}

/** The live-lane classes of a trace's warps, filled a slice of rows at a time (color-by.ts). */
export function liveLaneFill(trace: Trace): ClassFill {
  const w = trace.warps;
  const size = Math.max(1, trace.device.subgroupSize);
  // Class by lane count, a table lookup per warp instead of a division.
  const ofLanes = new Uint8Array(65);
  for (let n = 0; n <= 64; n++) ofLanes[n] = laneClass(n, size);
  const perInvocation = perInvocationStages(trace);
  const classOf = new Uint8Array(w.count);
  const { activeMask, activeMaskHi, stage } = w;
  let invocations = 0;
  return {
    classOf,
    fill(begin: number, end: number): void {
      for (let i = begin; i < end; i++) {
        if ((perInvocation >>> stage[i]!) & 1) {
          classOf[i] = PER_INVOCATION;
          invocations++;
          continue;
        }
        const lanes = popcount32(activeMask[i]!) + (activeMaskHi === null ? 0 : popcount32(activeMaskHi[i]!));
        classOf[i] = ofLanes[lanes]!;
      }
    },
    palette: () => lanePalette(size, invocations > 0),
  };
}

function lanePalette(size: number, withPerInvocation: boolean): ClassPalette {
  const b = partialClasses(size);
  const rgba = new Uint32Array(PER_INVOCATION + 1);
  const dimRgba = new Uint32Array(PER_INVOCATION + 1);
  const legend: LegendEntry[] = [];
  const put = (k: number, label: string, title: string) => {
    const rgb = laneClassRgb(k, size);
    rgba[k] = packRgba(rgb);
    dimRgba[k] = packRgba(mixRgb(rgb, THEME.background, DIM));
    legend.push({ cls: k, label, title, rgb });
  };
  const pct = (lanes: number) => `${Math.round((lanes / size) * 100)}%`;
  for (let k = 0; k < b; k++) {
    const [lo, hi] = classLanes(k, size);
    if (lo > hi) continue;
    put(k, lo === hi ? `${lo}` : `${lo}–${hi}`, `${lo === hi ? `${lo} live lane` : `${lo} to ${hi} live lanes`} of ${size} (${pct(lo)}${lo === hi ? '' : `–${pct(hi)}`} SIMT efficiency)`);
  }
  put(b, `${size}`, `all ${size} lanes live (100% SIMT efficiency)`);
  if (withPerInvocation) put(PER_INVOCATION, 'per invocation', 'recorded once per invocation (a stage without subgroup operations on this device): no warp lanes to count');
  return { rgba, dimRgba, legend };
}
