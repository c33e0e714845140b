/**
 * How much of their footprints the shown warps' lanes fill, per stage. The
 * screen image paints a warp's whole footprint with its value (the box of its
 * lanes' pixels, rounded up to powers of two and cut at 128 px; the warp that
 * started last on top: screen-raster.ts), with no weighting by area. That
 * reads true where warps fill their boxes (fragment quads, ray-generation
 * tiles): a pixel shows the warp that ran it or a neighbour of it. Intersection,
 * any-hit, closest-hit, miss and callable warps gather lanes from rays whose
 * launch pixels may lie far apart: most of such a box's pixels were run by
 * other warps, and where boxes overlap a pixel shows whichever started last.
 * The notes say so, with the numbers, wherever a stage's boxes are that empty.
 */
import { MAX_POSITION_LOG2, PositionBits } from '../shared-schema/position.js';
import { popcount32 } from '../shared-schema/columns.js';
import { STAGES, STAGE_COUNT } from '../shared-schema/stages.js';
import type { ScreenColumns } from './screen-columns.js';

/** The footprints of one stage's warps: how many, their live lanes, their pixels, and those at the 128 px limit. */
export interface StageSpread {
  readonly stage: number;
  readonly warps: number;
  readonly lanes: number;
  /** Footprint pixels, summed (not clipped to the target). */
  readonly pixels: number;
  /** Footprints 128 px wide or high, the most a position holds: their lanes may reach past them. */
  readonly capped: number;
}

/**
 * Below this share of lanes per footprint pixel (8 px per lane) a stage's image gets a note. A full 8 × 4
 * ray-generation warp fills 1 (the H100 and H200 captures: 0.95 to 1); fragment warps of small triangles fill
 * about a quarter (H100 AQT 0.28, meshlets 0.23), which the image still shows as it is.
 */
export const SPARSE_FILL = 1 / 8;

/** Per stage present among `rows` (positioned warps, e.g. a ScreenOrder's), ascending by stage code. */
export function footprintSpread(cols: ScreenColumns, rows: Uint32Array): StageSpread[] {
  const warps = new Float64Array(STAGE_COUNT);
  const lanes = new Float64Array(STAGE_COUNT);
  const pixels = new Float64Array(STAGE_COUNT);
  const capped = new Float64Array(STAGE_COUNT);
  const { activeMask, activeMaskHi, position, stage } = cols;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    const s = stage[row]!;
    if (s >= STAGE_COUNT) continue;
    const word = position[row]!;
    const lw = (word >>> PositionBits.LOG2_WIDTH_SHIFT) & PositionBits.LOG2_MASK;
    const lh = (word >>> PositionBits.LOG2_HEIGHT_SHIFT) & PositionBits.LOG2_MASK;
    warps[s]!++;
    lanes[s]! += popcount32(activeMask[row]!) + (activeMaskHi === null ? 0 : popcount32(activeMaskHi[row]!));
    pixels[s]! += 2 ** (lw + lh);
    if (lw === MAX_POSITION_LOG2 || lh === MAX_POSITION_LOG2) capped[s]!++;
  }
  const out: StageSpread[] = [];
  for (let s = 0; s < STAGE_COUNT; s++) if (warps[s]! > 0) out.push({ stage: s, warps: warps[s]!, lanes: lanes[s]!, pixels: pixels[s]!, capped: capped[s]! });
  return out;
}

/** Lanes per footprint pixel (0..1; an 8 × 4 warp of 32 lanes: 1). */
export function fill(spread: StageSpread): number {
  return spread.pixels === 0 ? 0 : spread.lanes / spread.pixels;
}

/**
 * What to keep in mind reading the image: one line per stage whose lanes fill less than SPARSE_FILL of
 * their footprints or that has footprints at the 128 px limit; none when every stage fills its boxes.
 */
export function spreadNotes(spreads: readonly StageSpread[]): string[] {
  const notes: string[] = [];
  for (const s of spreads) {
    const name = STAGES[s.stage]?.name ?? `stage ${s.stage}`;
    const parts: string[] = [];
    if (fill(s) < SPARSE_FILL) {
      parts.push(
        `${name} warps' lanes fill ${percent(fill(s))} of their footprints (${(s.pixels / Math.max(1, s.lanes)).toFixed(1)} px per lane): ` +
          'their lanes\' pixels lie far apart, and a pixel shows the last-started warp whose box covers it, which need not have run that pixel',
      );
    }
    if (s.capped > 0) {
      const share = `${s.capped.toLocaleString('en-US')} of ${s.warps.toLocaleString('en-US')} ${parts.length === 0 ? `${name} ` : ''}footprints`;
      parts.push(`${share} are 128 px wide or high, the most a position holds: their lanes may reach past them`);
    }
    if (parts.length > 0) notes.push(`${parts.join('; ')}.`);
  }
  return notes;
}

function percent(share: number): string {
  const p = share * 100;
  return p < 1 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
}
