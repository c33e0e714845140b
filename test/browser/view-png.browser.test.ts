// PNG export of the current view (issue 14): the file decodes, has the timeline's size,
// and shows its layers: stage-coloured warps, the gutter's lane labels, the axis labels.
import { setViewport } from '@web/test-runner-commands';
import { encodeWtrace } from '../../shared-schema/index.js';
import { viewPngName } from '../../viewer/components/view-png.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { passFrameTrace } from '../node/pass-frame.js';
import { assert, assertEqual } from './assert.js';
import { mountApp, near, stageRgb } from './viewer-helpers.js';

let app: WarptraceApp | null = null;

async function decode(blob: Blob): Promise<ImageData> {
  const bitmap = await createImageBitmap(blob);
  const c = document.createElement('canvas');
  c.width = bitmap.width;
  c.height = bitmap.height;
  const ctx = c.getContext('2d')!;
  ctx.drawImage(bitmap, 0, 0);
  return ctx.getImageData(0, 0, c.width, c.height);
}

/** Pixels of `image` inside CSS rectangle (x0, y0, x1, y1) that pass `test`. */
function countPixels(image: ImageData, dpr: number, rect: [number, number, number, number], test: (p: Uint8ClampedArray) => boolean): number {
  let n = 0;
  const [x0, y0, x1, y1] = rect.map((v) => Math.round(v * dpr)) as [number, number, number, number];
  for (let y = y0; y < Math.min(y1, image.height); y++) {
    for (let x = x0; x < Math.min(x1, image.width); x++) {
      const i = 4 * (y * image.width + x);
      if (test(image.data.subarray(i, i + 4))) n++;
    }
  }
  return n;
}

describe('PNG export of the view', () => {
  before(() => setViewport({ width: 1280, height: 900 }));
  afterEach(() => {
    app?.remove();
    app = null;
  });

  it('names the file after the trace and the window', () => {
    assertEqual(viewPngName('pass frame.wtrace', { startNs: 1_200_000, endNs: 1_260_000 }), 'pass-frame_1.2-1.26ms.png', 'ms window, one unit');
    assertEqual(viewPngName('a/b:c.json', { startNs: 500, endNs: 2500 }), 'a-b-c_0.5-2.5us.png', 'unsafe characters and µs');
    // Issue 24: a zoomed-out view reaching before the capture was named "game4m_-128us-6.72ms.png".
    assertEqual(viewPngName('game4m.wtrace', { startNs: -128_000, endNs: 6_720_000 }), 'game4m_0-6.72ms.png', 'no negative time, one unit');
    assertEqual(viewPngName('x.wtrace', { startNs: 12_345_678, endNs: 12_345_900 }), 'x_12.345678-12.3459ms.png', 'ends told apart');
    assertEqual(viewPngName('x.wtrace', { startNs: 100, endNs: 900 }), 'x_100-900ns.png', 'whole numbers keep their zeros');
  });

  it('decodes to the timeline\'s size and is the view as drawn: warps, lane labels, axis', async () => {
    app = await mountApp();
    assert(await app.openFile(new Blob([encodeWtrace(passFrameTrace()) as BlobPart]), 'pass-frame.wtrace'), 'opens');
    const timeline = app.timeline!;
    timeline.setView({ startNs: 400_000, endNs: 900_000 });
    // As a user's click would: after the layout has settled.
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const png = (await app.viewPng())!;
    assertEqual(png.blob.type, 'image/png', 'a PNG');
    const image = await decode(png.blob);
    const rect = timeline.getBoundingClientRect();
    const dpr = window.devicePixelRatio;
    const { width, height } = timeline.screenLayout;
    assertEqual(image.width, png.width, 'decoded width');
    assert(Math.abs(image.width - Math.round(width * dpr)) <= 1 && Math.abs(image.height - Math.round(height * dpr)) <= 1, `${image.width}×${image.height} for ${width}×${height} CSS px (timeline ${rect.width}×${rect.height})`);
    assert(/^pass-frame_\d[\d.]*-\d[\d.]*(ns|us|ms|s)\.png$/.test(png.fileName), png.fileName);

    const s = timeline.screenLayout;
    const lanes: [number, number, number, number] = [s.gutter, s.lanes.y, s.width, s.height];
    const stageColored = ['VS', 'FS', 'CS'].map((name) => countPixels(image, dpr, lanes, (p) => near(p, stageRgb(name), 12)));
    assert(stageColored.reduce((a, b) => a + b, 0) > 2000, `stage-coloured warps in the lanes: ${stageColored.join(', ')}`);
    const light = (p: Uint8ClampedArray) => p[0]! > 150 && p[1]! > 150 && p[2]! > 150;
    assert(countPixels(image, dpr, [0, s.lanes.y, s.gutter, s.height], light) > 30, 'lane labels in the gutter');
    const dimText = (p: Uint8ClampedArray) => near(p, [0x8b, 0x90, 0x9c], 30);
    assert(countPixels(image, dpr, [s.gutter, s.axis.y, s.width, s.axis.y + s.axis.height], dimText) > 30, 'axis labels (the dim text colour)');
    const background = countPixels(image, dpr, [0, 0, width, height], (p) => p[0] === image.data[0] && p[1] === image.data[1] && p[2] === image.data[2]);
    assert(background < image.width * image.height * 0.95, `not blank: ${background} of ${image.width * image.height} pixels are one colour`);
    assert(image.data[3] === 255, 'opaque');
  });

  it('the PNG button hands the file to a wt-export listener', async () => {
    app = await mountApp();
    assert(await app.openFile(new Blob([encodeWtrace(passFrameTrace()) as BlobPart]), 'pass-frame.wtrace'), 'opens');
    const got = new Promise<{ format: string; fileName: string; blob: Blob }>((resolve) =>
      app!.addEventListener('wt-export', (e) => {
        e.preventDefault();
        resolve((e as CustomEvent<{ format: string; fileName: string; blob: Blob }>).detail);
      }),
    );
    (app.shadowRoot!.querySelector('button.save-png') as HTMLButtonElement).click();
    const detail = await got;
    assertEqual(detail.format, 'png', 'format');
    assert(detail.fileName.startsWith('pass-frame_') && detail.blob.size > 1000, `${detail.fileName}, ${detail.blob.size} bytes`);
  });
});
