/**
 * Warp columns with screen positions for the screen-view tests and bench,
 * built column by column (rows grouped by SM, by start within an SM, as in
 * the model): random footprints anywhere, or fragment-like 8×4 tiles that
 * cover a target draw after draw.
 */
import { packPosition, NO_POSITION } from '../../shared-schema/position.js';
import { makeRandom } from '../../shared-schema/synthetic.js';
import type { ScreenColumns } from '../../analysis/screen-columns.js';
import { Stage } from '../../shared-schema/stages.js';

export interface RandomScreenSpec {
  readonly warps: number;
  readonly sms: number;
  readonly draws: number;
  readonly width: number;
  readonly height: number;
  readonly seed: number;
  /** Share of warps without a position (NO_POSITION). */
  readonly unpositioned?: number;
  /** Start times are multiples of this (ns), so some warps tie. */
  readonly startStepNs?: number;
}

/**
 * Random warps: footprints up to 16 × 16 px placed anywhere (some reaching past the target's edge), a few without SM id;
 * every fifth row a ray-generation warp, the others fragment warps.
 */
export function randomScreenColumns(spec: RandomScreenSpec): ScreenColumns {
  const rnd = makeRandom(spec.seed);
  const n = spec.warps;
  const step = spec.startStepNs ?? 1;
  const sms = Array.from({ length: spec.sms }, (_, i) => i);
  const perSm = new Uint32Array(spec.sms);
  for (let i = 0; i < n; i++) perSm[Math.floor(rnd() * spec.sms)]!++;
  const offsets = new Uint32Array(spec.sms + 1);
  for (let g = 0; g < spec.sms; g++) offsets[g + 1] = offsets[g]! + perSm[g]!;
  const startNs = new Float64Array(n);
  const durationNs = new Float32Array(n);
  const draw = new Uint16Array(n);
  const activeMask = new Uint32Array(n);
  const position = new Uint32Array(n);
  const stage = new Uint8Array(n).map((_, i) => (i % 5 === 0 ? Stage.RAYGEN : Stage.FS));
  for (let g = 0; g < spec.sms; g++) {
    const starts: number[] = [];
    for (let i = offsets[g]!; i < offsets[g + 1]!; i++) starts.push(Math.floor(rnd() * 1000) * step);
    starts.sort((a, b) => a - b);
    for (let j = 0, i = offsets[g]!; i < offsets[g + 1]!; i++, j++) {
      startNs[i] = starts[j]!;
      durationNs[i] = 10 + Math.floor(rnd() * 200);
      draw[i] = Math.floor(rnd() * spec.draws);
      activeMask[i] = rnd() < 0.3 ? 0xffffffff : (Math.floor(rnd() * 0x100000000) >>> 0);
      if (rnd() < (spec.unpositioned ?? 0)) position[i] = NO_POSITION;
      else {
        const x = Math.floor(rnd() * spec.width);
        const y = Math.floor(rnd() * spec.height);
        position[i] = packPosition(x, y, x + Math.floor(rnd() * 16), y + Math.floor(rnd() * 16));
      }
    }
  }
  return { count: n, startNs, durationNs, smGroups: { sm: Uint16Array.from(sms), offsets }, draw, activeMask, activeMaskHi: null, stage, position };
}

/**
 * A fragment-like frame: `draws` draws one after another, each covering the
 * whole width × height target in 8 × 4 tiles (one warp each), tiles dealt
 * round-robin to `sms` SMs; about 3% of lanes idle.
 */
export function tiledFrameColumns(width: number, height: number, draws: number, sms: number): ScreenColumns {
  const tilesX = Math.ceil(width / 8);
  const tilesY = Math.ceil(height / 4);
  const perDraw = tilesX * tilesY;
  const n = perDraw * draws;
  const perSm = new Uint32Array(sms);
  for (let t = 0; t < n; t++) perSm[t % sms]!++;
  const offsets = new Uint32Array(sms + 1);
  for (let g = 0; g < sms; g++) offsets[g + 1] = offsets[g]! + perSm[g]!;
  const fill = offsets.slice(0, sms);
  const startNs = new Float64Array(n);
  const durationNs = new Float32Array(n);
  const draw = new Uint16Array(n);
  const activeMask = new Uint32Array(n);
  const position = new Uint32Array(n);
  for (let t = 0; t < n; t++) {
    const row = fill[t % sms]!++;
    const tile = t % perDraw;
    const x = (tile % tilesX) * 8;
    const y = Math.floor(tile / tilesX) * 4;
    startNs[row] = t * 2;
    durationNs[row] = 400 + (tile % 97);
    draw[row] = Math.floor(t / perDraw);
    activeMask[row] = tile % 31 === 0 ? 0x0000ffff : 0xffffffff;
    position[row] = packPosition(x, y, Math.min(x + 7, width - 1), Math.min(y + 3, height - 1));
  }
  const stage = new Uint8Array(n).fill(Stage.FS);
  return { count: n, startNs, durationNs, smGroups: { sm: Uint16Array.from({ length: sms }, (_, i) => i), offsets }, draw, activeMask, activeMaskHi: null, stage, position };
}
