/**
 * Warp sampling decided in the prologue (issue 25): where a draw's sampling
 * rates live in the draw-id block, and the hash every producer (the GLSL
 * library, the SPIR-V instrumenter) uses to pick a warp, so that the host, the
 * shaders and the tests agree on which warps record.
 *
 * The host writes one 4-bit log2 rate per stage code into the draw-id block
 * (binding + 1) words DRAW_SAMPLE_WORD and DRAW_SAMPLE_WORD + 1: stage code c
 * in word DRAW_SAMPLE_WORD + (c >> 3), bits 4 * (c & 7) .. + 3. Rate k means
 * one warp in 2^k of that stage records; 0 (the words' initial value) means
 * every warp. The rate is read at run time, so a host can change it between
 * frames without compiling anything (`warptrace capture --budget`).
 *
 * A warp's decision is made before its first clock read, on one value every
 * lane agrees on (the warp key: the first active lane's pixel, vertex, patch,
 * launch cell, or the workgroup and subgroup), mixed with the draw id and the
 * stage: deterministic (the same frame samples the same warps) and spread over
 * the screen and the frame by a full 32-bit finalizer, so no tile, SM or draw
 * pattern aliases with it.
 */
import { BLOCK_STAGES, DRAW_BLOCK_STAGE_WORD } from './block-layout.js';

/** First draw-id block word of the sampling rates (after the block-profile stage words). */
export const DRAW_SAMPLE_WORD = DRAW_BLOCK_STAGE_WORD + BLOCK_STAGES.length;
/** Words of sampling rates: 8 stage codes per word. */
export const SAMPLE_WORDS = 2;
/** Bits of one stage's log2 rate. */
export const SAMPLE_LOG2_BITS = 4;
/** Largest log2 rate: one warp in 32,768. */
export const MAX_SAMPLE_LOG2 = 15;
/** The draw-id block's words when a module reads its sampling rate. */
export const DRAW_ID_WORDS_WITH_SAMPLING = DRAW_SAMPLE_WORD + SAMPLE_WORDS;

/** The draw-id block word holding stage `code`'s rate. */
export function sampleWordOf(code: number): number {
  return DRAW_SAMPLE_WORD + (code >>> 3);
}

/** The bit shift of stage `code`'s rate within its word. */
export function sampleShiftOf(code: number): number {
  return SAMPLE_LOG2_BITS * (code & 7);
}

/** The two sampling words for log2 rates by stage code (absent: 0, every warp). */
export function packSampleWords(log2ByStage: ReadonlyMap<number, number>): [number, number] {
  const words: [number, number] = [0, 0];
  for (const [code, log2] of log2ByStage) {
    if (!Number.isInteger(log2) || log2 < 0 || log2 > MAX_SAMPLE_LOG2) throw new RangeError(`sampling log2 ${log2} of stage ${code} is outside 0..${MAX_SAMPLE_LOG2}`);
    const w = (code >>> 3) as 0 | 1;
    words[w] = (words[w] | (log2 << sampleShiftOf(code))) >>> 0;
  }
  return words;
}

/** lowbias32 (Chris Wellons): a full-avalanche 32-bit finalizer; the shaders run the same five steps. */
export function lowbias32(value: number): number {
  let h = value >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return h;
}

/** The per-draw, per-stage seed: lowbias32(drawId * 16 + stage). Uniform over a draw's warps of one stage. */
export function sampleSeed(drawId: number, stageCode: number): number {
  return lowbias32((Math.imul(drawId, 16) + stageCode) >>> 0);
}

/** Whether the warp with this key records at log2 rate `log2`: lowbias32(key ^ seed) <= 0xffffffff >> log2. */
export function warpSampled(key: number, drawId: number, stageCode: number, log2: number): boolean {
  if (log2 === 0) return true;
  const h = lowbias32((key ^ sampleSeed(drawId, stageCode)) >>> 0);
  return h <= 0xffffffff >>> log2;
}

/** 2^32 / golden ratio: spreads a second key component over all bits before it is xored in. */
export const SAMPLE_KEY_GOLDEN = 0x9e3779b1;

/** The warp key of a pixel (fragment, and every ray-tracing stage's launch cell x, y; z times SAMPLE_KEY_GOLDEN). */
export function pixelKey(x: number, y: number, z = 0): number {
  return ((x | (y << 16)) ^ Math.imul(z, SAMPLE_KEY_GOLDEN)) >>> 0;
}

/** The warp key of a compute, task or mesh warp: its workgroup's flat index times 64 plus its subgroup id. */
export function workgroupKey(flatWorkgroup: number, subgroupId: number): number {
  return (Math.imul(flatWorkgroup, 64) + subgroupId) >>> 0;
}
