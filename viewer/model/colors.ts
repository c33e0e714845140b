/** Colors of the timeline as packed RGBA8 (byte order r, g, b, a: little-endian u32). */
import { STAGES, STAGE_COUNT } from '../../shared-schema/index.js';

export function packRgba(rgb: number, alpha = 255): number {
  return (((alpha & 255) << 24) | ((rgb & 255) << 16) | (rgb & 0xff00) | ((rgb >>> 16) & 255)) >>> 0;
}

/** rgb mixed toward `toward` by `amount` (0..1). */
export function mixRgb(rgb: number, toward: number, amount: number): number {
  const ch = (c: number, t: number) => Math.round(c + (t - c) * amount);
  return (
    (ch((rgb >>> 16) & 255, (toward >>> 16) & 255) << 16) |
    (ch((rgb >>> 8) & 255, (toward >>> 8) & 255) << 8) |
    ch(rgb & 255, toward & 255)
  );
}

export const THEME = {
  background: 0x15171c,
  laneAlt: 0x1a1d23,
  laneLine: 0x2a2e37,
  headerBackground: 0x1f232b,
  text: 0xd8dbe2,
  textDim: 0x8b909c,
  selection: 0x7fb2ff,
  cursor: 0xffe066,
  hover: 0xffffff,
  dimOthers: 0x454a55,
} as const;

/** Stage code → packed color, and the dimmed variant used for other draws. */
export const STAGE_RGBA = new Uint32Array(STAGE_COUNT);
export const STAGE_DIM_RGBA = new Uint32Array(STAGE_COUNT);
for (const s of STAGES) {
  STAGE_RGBA[s.code] = packRgba(s.color);
  STAGE_DIM_RGBA[s.code] = packRgba(mixRgb(s.color, THEME.background, 0.72));
}

export function cssColor(rgb: number): string {
  return `#${rgb.toString(16).padStart(6, '0')}`;
}
