/**
 * Colours of the categorical color-by modes (draw, pass, SM): sixteen hues
 * in an order where neighbours differ (Tableau 10 first, then lighter and
 * darker companions), so draws or passes next to each other in time never
 * share a colour; and a grey for warps outside every class (no pass, SM
 * unknown). Dimmed colours mix toward the background as the stages' do.
 */
import { THEME, mixRgb, packRgba } from './colors.js';

export const CATEGORICAL_RGB: readonly number[] = [
  0x4e79a7, 0xf28e2c, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc949, 0xaf7aa1, 0xff9da7,
  0x9c755f, 0xa0cbe8, 0xffbe7d, 0x8cd17d, 0xd4a6c8, 0xb6992d, 0x499894, 0xd37295,
];

/** Warps that belong to no class of the mode (no pass, SM unknown). */
export const OUTSIDE_RGB = 0x80858f;

/** How far dimmed colours are mixed toward the background (as the stages' dimmed colours). */
export const DIM_AMOUNT = 0.72;

/** Packed colours and their dimmed variants for classes 0..rgbs.length-1. */
export function classColors(rgbs: readonly number[]): { rgba: Uint32Array; dimRgba: Uint32Array } {
  return {
    rgba: Uint32Array.from(rgbs, (c) => packRgba(c)),
    dimRgba: Uint32Array.from(rgbs, (c) => packRgba(mixRgb(c, THEME.background, DIM_AMOUNT))),
  };
}
