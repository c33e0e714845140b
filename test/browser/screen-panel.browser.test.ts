// The screen panel in a real browser, on generated positioned warps: its canvas shows the
// analysis' image pixel for pixel, the time slider shows only warps started by then, a
// timeline range only the warps in it, and a brushed rectangle reports the rows under it;
// closest-hit warps whose lanes lie far apart get their stage in the filter and a note.
import { drawSet, stageSet } from '../../analysis/screen-columns.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { rowsInRect } from '../../analysis/screen-query.js';
import { NO_ENTRY, screenImage } from '../../analysis/screen-raster.js';
import type { ScreenMetric } from '../../analysis/screen-metric.js';
import { NO_POSITION, packPosition, unpackPosition } from '../../shared-schema/position.js';
import { Stage } from '../../shared-schema/stages.js';
import '../../viewer/screen/wt-screen-panel.js';
import { MAX_DRAW_OPTIONS, type ScreenPanelTrace, type WtScreenPanel } from '../../viewer/screen/wt-screen-panel.js';
import { ScreenClient } from '../../viewer/screen/screen-client.js';
import { randomScreenColumns } from '../node/screen-fixtures.js';
import { assert, assertEqual } from './assert.js';
import { waitFor } from './viewer-helpers.js';

const W = 64;
const H = 48;
const cols = randomScreenColumns({ warps: 4000, sms: 8, draws: 3, width: W, height: H, seed: 11, unpositioned: 0.05, startStepNs: 3 });
const trace: ScreenPanelTrace = {
  warps: cols,
  device: { subgroupSize: 32 },
  draws: [
    { label: 'opaque', target: { width: W, height: H } },
    { label: 'shadow', target: { width: 32, height: 32 } },
    { label: 'blend', target: { width: W, height: H } },
  ],
};

async function mountPanel(props: Partial<WtScreenPanel> = {}): Promise<WtScreenPanel> {
  const panel = document.createElement('wt-screen-panel');
  panel.style.cssText = 'position:fixed;left:0;top:0;width:340px;height:600px;';
  Object.assign(panel, { trace, ...props });
  document.body.append(panel);
  await panel.updateComplete;
  return panel;
}

/** The panel's image once it shows `untilNs` and `metric`. */
async function shown(panel: WtScreenPanel, untilNs: number, metric: ScreenMetric): Promise<NonNullable<WtScreenPanel['image']>> {
  const image = await waitFor(`the image until ${untilNs} by ${metric}`, () => (panel.image?.view.untilNs === untilNs && panel.image.metric === metric ? panel.image : null));
  await panel.updateComplete;
  return image;
}

function canvasPixels(panel: WtScreenPanel): Uint8ClampedArray {
  const canvas = panel.canvas!;
  return canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
}

function expected(panel: WtScreenPanel, metric: ScreenMetric) {
  const view = panel.view;
  const order = screenOrder(cols, view.draws);
  return { order, image: screenImage(cols, order, { metric, size: { width: W, height: H }, subgroupSize: 32, untilNs: view.untilNs, window: view.window }) };
}

function assertSamePixels(got: Uint8ClampedArray, want: Uint8ClampedArray, what: string): void {
  assertEqual(got.length, want.length, `${what}: bytes`);
  for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) throw new Error(`${what}: pixel ${i >> 2} channel ${i & 3}: canvas ${got[i]}, analysis ${want[i]}`);
}

describe('screen panel', () => {
  afterEach(() => document.querySelectorAll('wt-screen-panel').forEach((p) => p.remove()));

  it('shows the busiest target at the target size, its canvas pixels equal to the analysis image', async () => {
    // Columns go to the worker in many slices here (4 KiB each), as a large trace's do.
    const sliceBytes = ScreenClient.sliceBytes;
    ScreenClient.sliceBytes = 4096;
    const panel = await mountPanel();
    await shown(panel, Infinity, 'start').finally(() => (ScreenClient.sliceBytes = sliceBytes));
    assertEqual(panel.canvas!.width, W, 'canvas width');
    assertEqual(panel.canvas!.height, H, 'canvas height');
    // Draws 0 and 2 share the 64 × 48 target and hold most warps.
    assertEqual([...panel.view.draws!].join(''), '101', 'draw set');
    assertSamePixels(canvasPixels(panel), expected(panel, 'start').image.rgba, 'start');
    const select = panel.shadowRoot!.querySelector<HTMLSelectElement>('select.metric')!;
    select.value = 'sm';
    select.dispatchEvent(new Event('change'));
    await shown(panel, Infinity, 'sm');
    assertSamePixels(canvasPixels(panel), expected(panel, 'sm').image.rgba, 'sm');
    const box = panel.canvas!.getBoundingClientRect();
    assert(Math.abs(box.width / box.height - W / H) < 0.02, `the image keeps the target's aspect (${box.width} x ${box.height})`);
    // Taken out of the page and put back, it makes its images again (its worker was stopped).
    panel.remove();
    const before = panel.image;
    document.body.append(panel);
    await waitFor('a new image after re-connecting', () => panel.image !== before);
    assertSamePixels(canvasPixels(panel), expected(panel, 'sm').image.rgba, 'sm again');
  });

  it('follows the selected draw; the time slider at t shows only warps started by t', async () => {
    const panel = await mountPanel({ selectedDraw: 2 });
    await shown(panel, Infinity, 'start');
    assertEqual([...panel.view.draws!].join(''), '001', 'draw set of the selected draw');
    const span = panel.image!.reply.span!;
    const t = span.startNs + (span.endNs - span.startNs) * 0.4;
    const slider = panel.shadowRoot!.querySelector<HTMLInputElement>('input.until')!;
    slider.value = String(t);
    slider.dispatchEvent(new Event('input'));
    const image = await shown(panel, Number(slider.value), 'start');
    const { order, image: want } = expected(panel, 'start');
    assertSamePixels(canvasPixels(panel), want.rgba, 'at t');
    let grey = 0;
    for (const k of want.pixels) {
      if (k === NO_ENTRY) grey++;
      else assert(cols.startNs[order.rows[k]!]! <= image.view.untilNs, `a shown warp started after t`);
    }
    assert(grey > 0 && image.reply.shown < order.rows.length, `part of the frame has not started at t (${grey} grey pixels)`);

    // 'all draws with this target' adds draw 0 (same size); the selector asks the app for another draw.
    const all = panel.shadowRoot!.querySelector<HTMLInputElement>('input.all-target')!;
    all.click();
    await panel.updateComplete;
    assertEqual([...panel.view.draws!].join(''), '101', 'draw set with the target');
    const asked = new Promise<number>((resolve) => panel.addEventListener('wt-draw-select', (e) => resolve((e as CustomEvent<{ draw: number }>).detail.draw), { once: true }));
    const draws = panel.shadowRoot!.querySelector<HTMLSelectElement>('select.draw')!;
    draws.value = '1';
    draws.dispatchEvent(new Event('change'));
    assertEqual(await asked, 1, 'draw asked for');
  });

  it('a timeline range shows only the warps in flight in it', async () => {
    const panel = await mountPanel({ range: { startNs: 1200, endNs: 1500 } });
    await shown(panel, Infinity, 'start');
    const { order, image } = expected(panel, 'start');
    assertSamePixels(canvasPixels(panel), image.rgba, 'range');
    for (const k of image.pixels) if (k !== NO_ENTRY) assert(order.startNs[k]! <= 1500 && order.endNs[k]! >= 1200, 'a shown warp outside the range');
  });

  it('brushing a rectangle reports the rows under it', async () => {
    const panel = await mountPanel();
    await shown(panel, Infinity, 'start');
    const got = new Promise<Uint32Array | null>((resolve) => panel.addEventListener('wt-rows-highlight', (e) => resolve((e as CustomEvent<{ rows: Uint32Array | null }>).detail.rows), { once: true }));
    const box = panel.canvas!.getBoundingClientRect();
    const at = (x: number, y: number) => ({ clientX: box.left + ((x + 0.5) * box.width) / W, clientY: box.top + ((y + 0.5) * box.height) / H, pointerId: 1, bubbles: true, button: 0 });
    panel.canvas!.dispatchEvent(new PointerEvent('pointerdown', at(20, 10)));
    panel.canvas!.dispatchEvent(new PointerEvent('pointermove', at(28, 15)));
    panel.canvas!.dispatchEvent(new PointerEvent('pointerup', at(28, 15)));
    const rows = (await got)!;
    const rect = { x: 20, y: 10, width: 9, height: 6 };
    assertEqual(JSON.stringify(panel.brush), JSON.stringify(rect), 'brushed rectangle');
    const want = rowsInRect(cols, screenOrder(cols, drawSet(trace.draws, 0, true)), rect);
    assert(want.length > 0, 'the rectangle holds warps');
    assertEqual([...rows].join(','), [...want].join(','), 'rows');
    // A click (one pixel) also selects the warp that pixel shows.
    const picked = new Promise<number>((resolve) => panel.addEventListener('wt-warp-select', (e) => resolve((e as CustomEvent<{ row: number }>).detail.row), { once: true }));
    panel.canvas!.dispatchEvent(new PointerEvent('pointerdown', at(30, 20)));
    panel.canvas!.dispatchEvent(new PointerEvent('pointerup', at(30, 20)));
    const { order, image } = expected(panel, 'start');
    const k = image.pixels[20 * W + 30]!;
    assert(k !== NO_ENTRY, 'a warp covers the clicked pixel');
    assertEqual(await picked, order.rows[k]!, 'the clicked pixel selects the warp it shows');
    for (const row of rows) {
      const f = unpackPosition(cols.position[row]!)!;
      assert(f.x < 29 && f.x + f.width > 20 && f.y < 16 && f.y + f.height > 10 && cols.draw[row] !== 1, `row ${row} lies outside the brush`);
    }
  });

  it('closest-hit warps whose lanes lie far apart: their stage in the filter, its SIMT efficiency image, and a note while they are shown', async () => {
    // Every seventh positioned warp a closest hit whose lanes' launch pixels span the target: a 64 × 64 footprint.
    const stage = cols.stage.map((s, i) => (i % 7 === 3 && cols.position[i] !== NO_POSITION ? Stage.CLOSEST_HIT : s));
    const position = cols.position.map((p, i) => (stage[i] === Stage.CLOSEST_HIT ? packPosition(i % 8, i % 5, W - 1, H - 1) : p));
    const hits = { ...cols, stage, position };
    const panel = await mountPanel({ trace: { ...trace, warps: hits } });
    const notes = () => [...panel.shadowRoot!.querySelectorAll('.note')].map((n) => n.textContent!.trim());
    const metric = panel.shadowRoot!.querySelector<HTMLSelectElement>('select.metric')!;
    metric.value = 'lanes';
    metric.dispatchEvent(new Event('change'));
    await shown(panel, Infinity, 'lanes');
    await waitFor('the stage filter', () => panel.shadowRoot!.querySelector('select.stage'));
    assert(notes().some((n) => /^CLOSEST_HIT warps' lanes fill [\d.]+% of their footprints/.test(n)), notes().join(' | '));
    const select = panel.shadowRoot!.querySelector<HTMLSelectElement>('select.stage')!;
    const labels = [...select.options].map((o) => o.textContent!);
    const count = [...hits.stage].filter((s, i) => s === Stage.CLOSEST_HIT && position[i] !== NO_POSITION).length;
    assert(labels.includes(`CHit (closest-hit): ${count.toLocaleString('en-US')} warps`), labels.join(' | '));
    select.value = String(Stage.CLOSEST_HIT);
    select.dispatchEvent(new Event('change'));
    const image = await waitFor('the closest-hit image', () => (panel.image?.view.stages?.[Stage.CLOSEST_HIT] === 1 ? panel.image : null));
    await panel.updateComplete;
    const order = screenOrder(hits, panel.view.draws, stageSet([Stage.CLOSEST_HIT]));
    assert(order.rows.length > 0 && [...order.rows].every((r) => stage[r] === Stage.CLOSEST_HIT), 'only closest-hit warps');
    assertEqual(image.reply.shown, order.rows.length, 'warps shown');
    assertSamePixels(canvasPixels(panel), screenImage(hits, order, { metric: 'lanes', size: { width: W, height: H }, subgroupSize: 32 }).rgba, 'lanes of CLOSEST_HIT');
    assert(notes().some((n) => n.startsWith("CLOSEST_HIT warps' lanes fill")), notes().join(' | '));
    // Fragment warps alone: no closest-hit note.
    select.value = String(Stage.FS);
    select.dispatchEvent(new Event('change'));
    await waitFor('the fragment image', () => (panel.image?.view.stages?.[Stage.FS] === 1 ? panel.image : null));
    await panel.updateComplete;
    assert(!notes().some((n) => n.startsWith('CLOSEST_HIT')), notes().join(' | '));
  });

  it('on a frame of many draws the draw selector lists the busiest ones and the selected draw, not every draw', async () => {
    const drawCount = 300;
    const many = randomScreenColumns({ warps: 30_000, sms: 8, draws: drawCount, width: W, height: H, seed: 12 });
    // Later draws get more warps (draw of row i ~ sqrt(i)): the busiest are near the end.
    for (let i = 0; i < many.count; i++) many.draw[i] = Math.floor(drawCount * Math.sqrt(i / many.count));
    const manyTrace: ScreenPanelTrace = { warps: many, device: { subgroupSize: 32 }, draws: Array.from({ length: drawCount }, (_, d) => ({ label: `draw ${d}`, target: { width: W, height: H } })) };
    const panel = await mountPanel({ trace: manyTrace, selectedDraw: 3 });
    await waitFor('the first image', () => panel.image);
    await panel.updateComplete;
    const options = [...panel.shadowRoot!.querySelectorAll<HTMLOptionElement>('select.draw option')].map((o) => Number(o.value));
    assertEqual(options.length, 1 + MAX_DRAW_OPTIONS + 1, 'the main target, the busiest draws and the selected one');
    assertEqual(options[0], -1, 'the main target first');
    assert(options.includes(3), 'the selected draw is listed though it is not among the busiest');
    // The busiest by a count of their own: positioned warps per draw, most first (ties: the earlier draw).
    const counts = new Array<number>(drawCount).fill(0);
    for (let i = 0; i < many.count; i++) if (many.position[i] !== NO_POSITION) counts[many.draw[i]!]!++;
    const want = counts.map((n, d) => [n, d] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, MAX_DRAW_OPTIONS).map(([, d]) => d).sort((a, b) => a - b);
    assert(!want.includes(3), 'draw 3 is not among the busiest (the test needs it so)');
    assertEqual(options.filter((d) => d >= 0 && d !== 3).join(','), want.join(','), 'the busiest draws, in draw order');
    panel.remove();
  });
});
