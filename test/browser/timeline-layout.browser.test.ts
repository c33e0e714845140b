// Timeline layout defects of issue 14: the last axis tick label stays inside the
// timeline, tooltips flip at the right and bottom edges, and a draw-track tooltip
// goes away once the pointer leaves the track.
import { resetMouse, sendMouse, setViewport } from '@web/test-runner-commands';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { axisTicks } from '../../viewer/model/time-axis.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { assert } from './assert.js';
import { fixtureWtrace, mountApp, waitFor, afterTwoFrames } from './viewer-helpers.js';

let app: WarptraceApp;
let tl: WtTimeline;

function surfaceRect(): DOMRect {
  return tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
}

/** Page x of time t. */
function pageX(tNs: number): number {
  const s = tl.screenLayout;
  const v = tl.visibleWindow;
  return Math.round(surfaceRect().left + s.gutter + ((tNs - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s));
}

function tooltip(): HTMLElement | null {
  return tl.shadowRoot!.querySelector('.tooltip');
}

async function open(height = 800): Promise<void> {
  app = await mountApp();
  app.style.height = `${height}px`;
  assert(await app.openFile(await fixtureWtrace(), 'fixture.wtrace'), 'fixture opens');
  tl = app.timeline!;
  await tl.ready();
  await afterTwoFrames();
}

describe('timeline layout', () => {
  before(() => setViewport({ width: 1280, height: 900 }));
  afterEach(async () => {
    await resetMouse();
    app.remove();
  });

  it('the last tick label is drawn whole inside the right edge', async () => {
    await open();
    const s = tl.screenLayout;
    // Put the tick at 5 µs 12 px before the right edge: its label (~50 px) used to be cut there.
    const span = 2000;
    const endNs = 5000 + (span * 12) / timeWidth(s);
    tl.setView({ startNs: endNs - span, endNs });
    tl.renderNow();
    const ticks = axisTicks(tl.visibleWindow, timeWidth(s));
    const lastX = s.gutter + ((ticks.ticksNs[ticks.ticksNs.length - 1]! - tl.visibleWindow.startNs) / span) * timeWidth(s);
    assert(lastX > s.width - 20, `a tick near the edge: ${lastX.toFixed(0)} of ${s.width}`);
    const text = tl.shadowRoot!.querySelector('canvas.text') as HTMLCanvasElement;
    const dpr = text.width / s.width;
    const ctx = text.getContext('2d')!;
    const inked = (x0: number, x1: number) => {
      const data = ctx.getImageData(Math.round(x0 * dpr), Math.round(s.axis.y * dpr), Math.max(1, Math.round((x1 - x0) * dpr)), Math.round(s.axis.height * dpr)).data;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 40) return true;
      return false;
    };
    assert(inked(s.width - 70, s.width - 2), 'the last label is drawn');
    assert(!inked(s.width - 1, s.width), 'no text at the right edge');
  });

  it('tooltips flip left at the right edge and up at the bottom edge', async () => {
    await open(620);
    // A 300 px timeline: the two collapsed lanes grow to fill it (up to 120 px each), so SM 5's reaches the bottom.
    app.style.height = `${620 + 300 - surfaceRect().height}px`;
    await afterTwoFrames();
    await afterTwoFrames();
    tl.toggleLane(5, true);
    tl.setView({ startNs: 1000, endNs: 9000 });
    await afterTwoFrames();
    const rect = surfaceRect();
    // SM 5's CS warp runs 7000-9500: hover it 6 px from the right edge.
    const row = tl.laneLayout.rows.find((r) => r.sm === 5)!;
    const y = Math.round(rect.top + tl.screenLayout.lanes.y + row.y + row.headerHeight + 2 + 4.5 * row.slotRowHeight - tl.verticalScroll);
    const x = Math.round(rect.right - 6);
    await sendMouse({ type: 'move', position: [x, y] });
    const tip = await waitFor(`the warp tooltip at ${x},${y} (${JSON.stringify(row)}, surface ${JSON.stringify(rect)}, scroll ${tl.verticalScroll})`, tooltip);
    const box = tip.getBoundingClientRect();
    assert(tip.textContent!.includes('CS warp'), tip.textContent!);
    assert(box.right <= rect.right + 0.5 && box.right <= x, `flipped left of the pointer: ${box.left.toFixed(0)}…${box.right.toFixed(0)}, pointer ${x}, edge ${rect.right}`);
    // Near the bottom of SM 5's lane, collapsed again (its occupancy tooltip): above the pointer, inside.
    tl.toggleLane(5, false);
    await afterTwoFrames();
    const last = tl.laneLayout.rows[tl.laneLayout.rows.length - 1]!;
    assert(last.sm === 5 && rect.top + tl.screenLayout.lanes.y + last.y + last.height >= rect.bottom - 4, `SM 5's lane reaches the bottom: ${JSON.stringify(last)}`);
    const bottomY = Math.round(rect.bottom - 8);
    await sendMouse({ type: 'move', position: [pageX(4000), bottomY] });
    const low = await waitFor('a tooltip near the bottom', () => {
      const t = tooltip();
      return t !== null && t.getBoundingClientRect().top < bottomY ? t : null;
    });
    const lowBox = low.getBoundingClientRect();
    assert(lowBox.bottom <= rect.bottom + 0.5 && lowBox.bottom <= bottomY, `flipped above: ${lowBox.top.toFixed(0)}…${lowBox.bottom.toFixed(0)}, pointer ${bottomY}`);
  });

  it('a draw-track tooltip goes away when the pointer moves to the axis, the overview or the gutter', async () => {
    await open();
    tl.setView({ startNs: 1000, endNs: 9000 });
    await afterTwoFrames();
    const rect = surfaceRect();
    const s = tl.screenLayout;
    // Draw 0 ("patches") spans 1000-9000 in the top draw row.
    const trackY = Math.round(rect.top + s.draws.y + 3 + s.drawRowHeight / 2);
    for (const [where, y, x] of [
      ['axis', rect.top + s.axis.y + s.axis.height / 2, pageX(3000)],
      ['overview', rect.top + s.overview.y + 10, pageX(3000)],
      ['gutter', trackY, rect.left + 20],
    ] as const) {
      await sendMouse({ type: 'move', position: [pageX(3000), trackY] });
      const tip = await waitFor('the draw tooltip', tooltip);
      assert(tip.textContent!.includes('draw 0'), tip.textContent!);
      await sendMouse({ type: 'move', position: [Math.round(x), Math.round(y)] });
      await waitFor(`no tooltip over the ${where}`, () => tooltip() === null);
    }
  });
});
