// Color by draw, pass, duration percentile and SM on a game-like frame of 2,025 draws in 23
// passes with long labels (test/node/game-frame.ts): bars take the colors this file works
// out from the frame itself (a draw's index, its pass's order, its stage's percentiles by
// sorting, its SM among the SMs that ran); the legends name the draws and passes with most
// warp-time; and the find box's matches keep their colors in every mode while every other
// warp dims toward the background. The mode travels in the view link.
import { setViewport } from '@web/test-runner-commands';
import { interpolatePlasma } from 'd3-scale-chromatic';
import { Stage, smOfWarp, type Trace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { CATEGORICAL_RGB } from '../../viewer/model/class-palette.js';
import { GAME_PASSES } from '../node/game-frame.js';
import { assert, assertEqual } from './assert.js';
import { openGameFrame, warpBarPixel } from './game-frame-app.js';
import { near, rgbText, waitFor } from './viewer-helpers.js';

const rgbOf = (c: number): number[] => [(c >>> 16) & 255, (c >>> 8) & 255, c & 255];
const BACKGROUND = [0x15, 0x17, 0x1c];
/** Dimmed colors are mixed 72% toward the background. */
const dimmed = (rgb: number[]) => rgb.map((c, k) => Math.round(c + (BACKGROUND[k]! - c) * 0.72));
let app: WarptraceApp | null = null;

function passOf(t: Trace, row: number): string {
  let r = t.draws[t.warps.draw[row]!]!.region!;
  while (t.regions[r]!.parent !== null) r = t.regions[r]!.parent!;
  return t.regions[r]!.label;
}

/** The first warp passing `test`. */
function firstRow(t: Trace, test: (row: number) => boolean): number {
  for (let i = 0; i < t.warps.count; i++) if (test(i)) return i;
  throw new Error('no such warp');
}

function plasma(t: number): number[] {
  const m = /^#(..)(..)(..)$/.exec(interpolatePlasma(t))!;
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}

async function setMode(a: WarptraceApp, key: string): Promise<void> {
  const select = a.shadowRoot!.querySelector<HTMLSelectElement>('select[aria-label="Color warps by"]')!;
  assert([...select.options].some((o) => o.value === key), `the selector offers ${key}`);
  select.value = key;
  select.dispatchEvent(new Event('change'));
  await a.updateComplete;
  if (key !== 'stage') await waitFor(`the ${key} coloring`, () => a.coloring?.colors.by.kind === key);
}

describe('color by draw, pass, duration percentile and SM on a game-like frame', () => {
  before(() => setViewport({ width: 1600, height: 1000 }));
  afterEach(() => {
    app?.remove();
    app = null;
  });

  it('pass: the k-th pass’s color k mod 15, past the 15th too; the legend names the passes with most warp-time', async () => {
    app = await openGameFrame();
    const t = app.opened!.trace;
    await setMode(app, 'pass');
    for (const pass of ['GBuffer', 'Motion Blur']) {
      const row = firstRow(t, (i) => passOf(t, i) === pass && t.warps.stage[i] === Stage.FS);
      const want = rgbOf(CATEGORICAL_RGB[GAME_PASSES.indexOf(pass as (typeof GAME_PASSES)[number]) % 15]!);
      const px = await warpBarPixel(app, row);
      assert(near(px, want), `${pass}: ${rgbText(px)}, want ${rgbText(want)}`);
    }
    const legend = app.shadowRoot!.querySelector('.sm-summary .legend')!;
    assert(legend.querySelector('.legend-note')!.textContent!.includes('23 passes in 15 colors'), 'the note says how colors cycle');
    const time = new Map<string, number>();
    for (let i = 0; i < t.warps.count; i++) time.set(passOf(t, i), (time.get(passOf(t, i)) ?? 0) + t.warps.durationNs[i]!);
    const top = [...time].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([p]) => p);
    const named = [...legend.querySelectorAll('.legend-entry')].map((e) => e.textContent!.trim());
    assertEqual(named.join(' | '), top.join(' | '), 'the legend names the 8 passes with most warp-time');
    const link = app.viewLink()!;
    assert(link.includes('color=pass'), `the link holds the mode: ${link}`);
  });

  it('draw, duration percentile and SM: each bar in the color its draw, its stage’s percentiles, its SM give it', async () => {
    app = await openGameFrame();
    const t = app.opened!.trace;
    const w = t.warps;
    await setMode(app, 'draw');
    for (const d of [5, 1222]) {
      const row = firstRow(t, (i) => w.draw[i] === d);
      const px = await warpBarPixel(app, row);
      assert(near(px, rgbOf(CATEGORICAL_RGB[d % 16]!)), `draw ${d}: ${rgbText(px)}`);
    }
    // The fragment stage's exact nearest-rank percentiles, by sorting: the longest warp is ≥ p99, one under p25 is the first class.
    const fs: number[] = [];
    for (let i = 0; i < w.count; i++) if (w.stage[i] === Stage.FS) fs.push(w.durationNs[i]!);
    const sorted = Float32Array.from(fs).sort();
    const p = (q: number) => sorted[Math.ceil(q * sorted.length) - 1]!;
    await setMode(app, 'duration');
    const longest = firstRow(t, (i) => w.stage[i] === Stage.FS && w.durationNs[i] === sorted[sorted.length - 1]);
    const short = firstRow(t, (i) => w.stage[i] === Stage.FS && w.durationNs[i]! < p(0.25));
    const middle = firstRow(t, (i) => w.stage[i] === Stage.FS && w.durationNs[i]! >= p(0.9) && w.durationNs[i]! < p(0.95));
    for (const [row, want] of [[longest, plasma(0.95)], [short, plasma(0.2)], [middle, plasma(0.2 + (0.75 * 4) / 6)]] as const) {
      const px = await warpBarPixel(app, row);
      assert(near(px, want), `FS warp ${row} of ${w.durationNs[row]} ns: ${rgbText(px)}, want ${rgbText(want)}`);
    }
    await setMode(app, 'sm');
    const sms = [...new Set(w.smGroups.sm)].sort((a, b) => a - b);
    for (const sm of [1, 24, 120]) {
      const row = firstRow(t, (i) => smOfWarp(w.smGroups, i) === sm);
      const px = await warpBarPixel(app, row);
      const want = rgbOf(CATEGORICAL_RGB[Math.floor((sms.indexOf(sm) * 16) / sms.length)]!);
      assert(near(px, want), `SM ${sm}: ${rgbText(px)}, want ${rgbText(want)}`);
    }
  });

  it('the find box: its matches keep their colors, every other warp dims, in every mode', async () => {
    app = await openGameFrame();
    const t = app.opened!.trace;
    const w = t.warps;
    const inGBuffer = firstRow(t, (i) => passOf(t, i) === 'GBuffer' && w.stage[i] === Stage.FS);
    const inLighting = firstRow(t, (i) => passOf(t, i) === 'Lighting' && w.stage[i] === Stage.FS);
    const modes = ['stage', 'lanes', 'draw', 'pass', 'duration', 'sm'];
    const own = new Map<string, [Uint8ClampedArray, Uint8ClampedArray]>();
    for (const mode of modes) {
      await setMode(app, mode);
      own.set(mode, [await warpBarPixel(app, inGBuffer), await warpBarPixel(app, inLighting)]);
    }
    app.drawList!.setQuery('pass:GBuffer');
    await app.updateComplete;
    await waitFor('the find highlight', () => app!.filters.highlight?.filters.find?.text === 'pass:GBuffer');
    await app.updateComplete;
    const bar = app.shadowRoot!.querySelector('.filter-bar')!;
    let gbuffer = 0;
    for (let i = 0; i < w.count; i++) if (passOf(t, i) === 'GBuffer') gbuffer++;
    assert(bar.textContent!.includes(`${gbuffer.toLocaleString('en-US')} of ${w.count.toLocaleString('en-US')} warps highlighted`), `the filter bar counts them: ${bar.textContent}`);
    for (const mode of modes) {
      await setMode(app, mode);
      const [kept, dim] = own.get(mode)!;
      const gb = await warpBarPixel(app, inGBuffer);
      assert(near(gb, [kept[0]!, kept[1]!, kept[2]!], 3), `${mode}: a GBuffer warp keeps its color (${rgbText(gb)} vs ${rgbText(kept)})`);
      const li = await warpBarPixel(app, inLighting);
      const want = dimmed([dim[0]!, dim[1]!, dim[2]!]);
      assert(near(li, want, 6), `${mode}: a Lighting warp dims: ${rgbText(li)}, want ${rgbText(want)} from ${rgbText(dim)}`);
    }
  });
});
