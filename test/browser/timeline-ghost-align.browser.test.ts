// The ghost track laid per pair: B is the game-like frame under other mesh names
// with its first ten draws half as long and every draw from the 100th on 50 µs
// earlier (the frame got shorter). Each ghost starts with its own draw: an
// unchanged draw late in the frame sits on its grey ghost (aligned at the frames'
// first warps the ghost would be 50 µs to the right, off screen), a shortened one
// is passed by its green ghost, and the tooltip says how far the draw moved.
import { resetMouse, sendMouse, setViewport } from '@web/test-runner-commands';
import { encodeWtrace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { ghostRowOf } from '../../viewer/model/ghost-track.js';
import type { DrawLayout } from '../../viewer/model/draw-layout.js';
import { GAME_DRAWS, gameFrameTrace } from '../node/ab-game-frame.js';
import { editFrame } from '../node/frame-edits.js';
import { assert } from './assert.js';
import { afterTwoFrames, mountApp, rgbText, waitFor, timelineX } from './viewer-helpers.js';

const EARLIER_NS = 50_000;

let app: WarptraceApp;
let tl: WtTimeline;

const xOf = (tNs: number): number => timelineX(tl, tNs);

describe('ghosts laid per pair', () => {
  before(() => setViewport({ width: 1600, height: 1000 }));
  afterEach(async () => {
    await resetMouse();
    app.remove();
  });

  it('a frame that got shorter keeps every ghost under its own draw', async () => {
    const a = gameFrameTrace();
    const all = [...Array(GAME_DRAWS).keys()];
    const b = editFrame(gameFrameTrace({ namesSeed: 2 }), {
      draws: all,
      stretch: new Map(all.slice(0, 10).map((d) => [d, 0.5] as const)),
      moveNs: new Map(all.slice(100).map((d) => [d, -EARLIER_NS] as const)),
    });
    app = await mountApp();
    app.style.width = '1600px';
    app.style.height = '1000px';
    assert(await app.openFile(new Blob([encodeWtrace(b) as Uint8Array<ArrayBuffer>]), 'b.wtrace'), 'B opens');
    tl = app.timeline!;
    await tl.ready();
    tl.baseline = a;
    await tl.updateComplete;
    const s = tl.screenLayout;
    const layout = (tl as unknown as { drawLayout: DrawLayout }).drawLayout;
    const ghostY = (d: number) => Math.round(s.ghost.y + 2 + (ghostRowOf(layout, d) + 0.5) * s.ghostRowHeight);

    // Draw 1000, unchanged, 50 µs earlier than in A: its grey ghost lies under it.
    const same = 1000;
    const [s0, e0] = [layout.spans[2 * same]!, layout.spans[2 * same + 1]!];
    tl.zoomTo(s0, e0, 0.3);
    await afterTwoFrames();
    for (const f of [0.1, 0.5, 0.9]) {
      const p = tl.readPixels(Math.round(xOf(s0 + (e0 - s0) * f)), ghostY(same), 1, 1);
      assert(Math.abs(p[0]! - p[1]!) < 15 && p[0]! > 45, `grey ghost under draw ${same} at ${f} of its span: ${rgbText(p)}`);
    }
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    await sendMouse({ type: 'move', position: [Math.round(rect.left + xOf((s0 + e0) / 2)), Math.round(rect.top + ghostY(same))] });
    const tip = await waitFor('the ghost tooltip', () => tl.shadowRoot!.querySelector('.tooltip')?.textContent ?? null);
    assert(tip.includes(`baseline A draw ${same}`) && tip.includes('starts 50.0 µs earlier than in A') && tip.includes('matched by pass and order, strong'), tip);

    // Draw 5, half as long: its green ghost (A's length) starts with it and sticks out past its end.
    const short = 5;
    const [s5, e5] = [layout.spans[2 * short]!, layout.spans[2 * short + 1]!];
    tl.zoomTo(s5, s5 + 2 * (e5 - s5), 0.2);
    await afterTwoFrames();
    // B's warps end at 0.8 of A's span (the last warp, 0.4 of it, halved), so A's length reaches a quarter of B's span past its end.
    const past = tl.readPixels(Math.round(xOf(e5 + (e5 - s5) * 0.12)), ghostY(short), 1, 1);
    assert(past[1]! > past[0]! + 25 && past[1]! > past[2]! + 10, `green ghost past the shortened draw's end: ${rgbText(past)}`);
  });
});
