// The screen panel's ray metrics in a real browser, on a trace carrying ray events laid out from
// a described scene (a disc of pixels that hit, a band of ignored any-hits): the canvas shows the
// analysis' heat map at the launch's size pixel for pixel, a row's counts go to the worker once,
// and what a picture cannot say (no row, mixed sizes, a lower bound) is said. Also the stage
// filter: the lanes metric of ray-generation warps alone.
import { drawSet, stageSet } from '../../analysis/screen-columns.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { rowsInRect } from '../../analysis/screen-query.js';
import { screenImage } from '../../analysis/screen-raster.js';
import { rayHeatGrid, type RayScreenMetric } from '../../analysis/ray-events.js';
import { rayHeatImage } from '../../analysis/ray-screen.js';
import { COLORMAP_RGB, COLORMAP_SIZE } from '../../analysis/screen-colormap.js';
import { Stage } from '../../shared-schema/stages.js';
import '../../viewer/screen/wt-screen-panel.js';
import type { ScreenPanelTrace, WtScreenPanel } from '../../viewer/screen/wt-screen-panel.js';
import { randomScreenColumns } from '../node/screen-fixtures.js';
import { discPixel, inDisc, mixedSizeRow, rayProfile, sceneRow, type DiscScene } from '../node/ray-fixtures.js';
import { assert, assertEqual } from './assert.js';
import { waitFor } from './viewer-helpers.js';

const W = 64;
const H = 48;
const scene: DiscScene = { cx: 30, cy: 22, r: 12, bandY0: 20, bandY1: 26 };
const cols = randomScreenColumns({ warps: 4000, sms: 8, draws: 3, width: W, height: H, seed: 11, unpositioned: 0.05, startStepNs: 3 });
// Draw 2's launch binned 2 × 2 (768 cells of 1024), summed over 2 launches; draw 1's launches differed in size.
const discRow = sceneRow({ draw: 2, width: W, height: H, launches: 2, cellsPerRow: 1024, pixel: discPixel(scene) });
const mixedRow = mixedSizeRow(1, { width: 32, height: 32 }, 3, { traceCalls: 3072, misses: 1000, anyHits: 40 });
const rayEvents = rayProfile([mixedRow, discRow], 1024, { uncountedTraversals: 5 });
const draws = [
  { label: 'opaque', target: { width: W, height: H } },
  { label: 'shadow rays', target: { width: 32, height: 32 } },
  { label: 'primary rays', target: { width: W, height: H } },
];
const trace: ScreenPanelTrace = { warps: cols, device: { subgroupSize: 32 }, draws, rayEvents };

async function mountPanel(props: Partial<WtScreenPanel> = {}): Promise<WtScreenPanel> {
  const panel = document.createElement('wt-screen-panel');
  panel.style.cssText = 'position:fixed;left:0;top:0;width:340px;height:600px;';
  Object.assign(panel, { trace, ...props });
  document.body.append(panel);
  await panel.updateComplete;
  await waitFor('the draws counted', () => panel.counted);
  return panel;
}

function pickMetric(panel: WtScreenPanel, metric: string): void {
  const select = panel.shadowRoot!.querySelector<HTMLSelectElement>('select.metric')!;
  select.value = metric;
  select.dispatchEvent(new Event('change'));
}

async function rayShown(panel: WtScreenPanel, metric: RayScreenMetric): Promise<void> {
  await waitFor(`the ${metric} heat map`, () => panel.rayImage?.metric === metric);
  await panel.updateComplete;
}

function canvasPixels(panel: WtScreenPanel): Uint8ClampedArray {
  const canvas = panel.canvas!;
  return canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
}

function assertSamePixels(got: Uint8ClampedArray, want: Uint8ClampedArray, what: string): void {
  assertEqual(got.length, want.length, `${what}: bytes`);
  for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) throw new Error(`${what}: pixel ${i >> 2} channel ${i & 3}: canvas ${got[i]}, analysis ${want[i]}`);
}

const notes = (panel: WtScreenPanel) => [...panel.shadowRoot!.querySelectorAll('.note')].map((n) => n.textContent!.trim());

describe('screen panel: ray events', () => {
  const postMessage = Worker.prototype.postMessage;
  const posted: string[] = [];
  before(() => {
    Worker.prototype.postMessage = function (this: Worker, message: unknown, transfer: Transferable[] = []) {
      const kind = (message as { kind?: string }).kind;
      if (kind === 'ray-counts' || kind === 'ray-slice') posted.push(`${kind} ${(message as { key: string }).key}`);
      (postMessage as (this: Worker, message: unknown, transfer: Transferable[]) => void).call(this, message, transfer);
    } as Worker['postMessage'];
  });
  after(() => (Worker.prototype.postMessage = postMessage));
  afterEach(() => document.querySelectorAll('wt-screen-panel').forEach((p) => p.remove()));

  it('draws the selected trace-rays draw\'s heat map at the launch size, the analysis\' pixels; counts go over once', async () => {
    posted.length = 0;
    const panel = await mountPanel({ selectedDraw: 2 });
    const options = [...panel.shadowRoot!.querySelectorAll<HTMLOptionElement>('select.metric option')];
    const intersections = options.find((o) => o.value === 'intersections')!;
    assert(!intersections.disabled, 'the ray metrics are offered for a draw with a row');
    pickMetric(panel, 'intersections');
    await rayShown(panel, 'intersections');
    assertEqual(panel.canvas!.width, W, 'canvas width: the launch');
    assertEqual(panel.canvas!.height, H, 'canvas height: the launch');
    const want = rayHeatImage('intersections', rayHeatGrid(discRow, discRow.counts.intersections)!);
    assertSamePixels(canvasPixels(panel), want.rgba, 'intersections');
    // The disc's centre is 2 intersections per pixel, the most: yellow; a corner none: dark purple.
    const at = (x: number, y: number) => [...canvasPixels(panel).subarray((y * W + x) * 4, (y * W + x) * 4 + 3)].join(',');
    assert(inDisc(scene, scene.cx, scene.cy), 'the centre is in the disc');
    assertEqual(at(scene.cx, scene.cy), [...COLORMAP_RGB.subarray((COLORMAP_SIZE - 1) * 3, COLORMAP_SIZE * 3)].join(','), 'disc centre');
    assertEqual(at(0, 0), [...COLORMAP_RGB.subarray(0, 3)].join(','), 'corner');
    const legend = panel.shadowRoot!.querySelector('.legend.ray')!;
    assertEqual(legend.querySelector('.min')!.textContent, '0 per pixel', 'legend min');
    assertEqual(legend.querySelector('.max')!.textContent, '2 per pixel', 'legend max');
    assert(/cells of 2 × 2 px · mean of 2 launches/.test(legend.textContent!), legend.textContent!);
    assert(panel.shadowRoot!.querySelector<HTMLInputElement>('input.until')!.disabled, 'no time slider for counts over the whole launch');

    pickMetric(panel, 'rays');
    await rayShown(panel, 'rays');
    pickMetric(panel, 'intersections');
    await rayShown(panel, 'intersections');
    assertSamePixels(canvasPixels(panel), want.rgba, 'intersections again');
    const counts = posted.filter((p) => p.startsWith('ray-counts'));
    assertEqual(counts.join(';'), 'ray-counts 1:intersections;ray-counts 1:traceCalls', 'each row and event sent once');
    assert(posted.filter((p) => p === 'ray-slice 1:intersections').length >= 1, 'its slices were sent');

    // Back to a warp metric: the warp image at the draw's target, the slider back.
    pickMetric(panel, 'lanes');
    await waitFor('the lanes image', () => (panel.image?.metric === 'lanes' ? panel.image : null));
    await panel.updateComplete;
    const order = screenOrder(cols, panel.view.draws, panel.view.stages);
    assertSamePixels(canvasPixels(panel), screenImage(cols, order, { metric: 'lanes', size: { width: W, height: H }, subgroupSize: 32 }).rgba, 'lanes');
    assert(!panel.shadowRoot!.querySelector<HTMLInputElement>('input.until')!.disabled, 'the slider is back');
  });

  it('says what a picture cannot: a lower bound, a draw without a row, mixed launch sizes', async () => {
    const panel = await mountPanel({ selectedDraw: 2 });
    pickMetric(panel, 'useless-any-hits');
    await rayShown(panel, 'useless-any-hits');
    assert(notes(panel).some((n) => /^Useless any-hits are a lower bound: 5 traversals were not counted/.test(n)), notes(panel).join(' | '));

    panel.selectedDraw = 0;
    await waitFor('the note for a draw without a row', () => notes(panel).find((n) => n.startsWith('Draw 0 has no ray events')));
    assert(notes(panel).some((n) => n.endsWith('draws with ray events: 1, 2.')), notes(panel).join(' | '));
    assert(panel.canvas!.hidden, 'no picture');
    assert(panel.shadowRoot!.querySelector<HTMLOptionElement>('select.metric option[value="rays"]')!.disabled, 'the ray metrics are not offered for it');

    panel.selectedDraw = 1;
    await waitFor('the mixed-size note', () => notes(panel).find((n) => n.startsWith('Launches of different sizes (up to 32 × 32) shared draw 1')));
    assert(panel.canvas!.hidden, 'no picture with mixed sizes');
    const totals = [...panel.shadowRoot!.querySelectorAll('table.ray-totals tr')].map((tr) => [...tr.children].map((c) => c.textContent!.trim()).join(' '));
    assert(totals.includes('trace calls 3,072') && totals.includes('misses 1,000') && totals.includes('any-hit invocations 40'), totals.join(' | '));
  });

  it('a brush on the heat map reports the trace-rays draw\'s warps under it', async () => {
    const panel = await mountPanel({ selectedDraw: 2 });
    pickMetric(panel, 'misses');
    await rayShown(panel, 'misses');
    const rect = { x: 10, y: 8, width: 12, height: 9 };
    const rows = await panel.highlight(rect);
    const want = rowsInRect(cols, screenOrder(cols, drawSet(draws, 2, false)), rect);
    assert(want.length > 0, 'warps of draw 2 lie under the rectangle');
    assertEqual([...rows].join(','), [...want].join(','), 'rows');
  });

  it('a trace with ray events but no positions shows its first row\'s rays per pixel', async () => {
    const panel = await mountPanel({ trace: { ...trace, warps: { ...cols, position: null } } });
    assert(!panel.hidden, 'the panel is shown for the ray events');
    assertEqual(panel.metric, 'rays', 'a ray metric by default');
    // The first row (draw 1) makes no picture; selecting draw 2 shows its rays.
    assert(notes(panel).some((n) => n.startsWith('Launches of different sizes')), notes(panel).join(' | '));
    panel.selectedDraw = 2;
    await rayShown(panel, 'rays');
    assertSamePixels(canvasPixels(panel), rayHeatImage('rays', rayHeatGrid(discRow, discRow.counts.traceCalls)!).rgba, 'rays');
  });

  it('the stage filter shows one stage\'s warps: the SIMT efficiency of ray generation per pixel', async () => {
    const panel = await mountPanel({ selectedDraw: 2 });
    pickMetric(panel, 'lanes');
    await waitFor('the lanes image', () => panel.image?.metric === 'lanes');
    const select = panel.shadowRoot!.querySelector<HTMLSelectElement>('select.stage')!;
    const labels = [...select.options].map((o) => o.textContent!);
    assert(labels.length === 3 && labels[1]!.startsWith('FS (fragment)') && labels[2]!.startsWith('RGen (ray generation)'), labels.join(' | '));
    select.value = String(Stage.RAYGEN);
    select.dispatchEvent(new Event('change'));
    const image = await waitFor('the ray-generation image', () => (panel.image?.view.stages?.[Stage.RAYGEN] === 1 ? panel.image : null));
    await panel.updateComplete;
    const order = screenOrder(cols, drawSet(draws, 2, false), stageSet([Stage.RAYGEN]));
    assert(order.rows.length > 0 && [...order.rows].every((r) => cols.stage[r] === Stage.RAYGEN), 'only ray-generation warps');
    assertEqual(image.reply.shown, order.rows.length, 'warps shown');
    assertSamePixels(canvasPixels(panel), screenImage(cols, order, { metric: 'lanes', size: { width: W, height: H }, subgroupSize: 32 }).rgba, 'lanes of RAYGEN');
  });
});
