// A/B on the timeline: with a baseline, its draws show as a ghost track under the
// draw track, each under the draw it was matched with; a draw that got longer
// has a red ghost, an unchanged one a grey ghost; hovering a ghost compares the
// pair's times; its gutter label hides and shows it. On the 2,000-draw pass
// frame against a second capture with a draw inserted, one removed, one 3× longer.
import { resetMouse, sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import { encodeWtrace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { GHOST_HIDDEN_PX } from '../../viewer/model/screen-layout.js';
import { ghostRowOf } from '../../viewer/model/ghost-track.js';
import { editFrame } from '../node/frame-edits.js';
import { passFrameTrace } from '../node/pass-frame.js';
import { assert, assertEqual } from './assert.js';
import { mountApp, rgbText, waitFor, afterTwoFrames, timelineX } from './viewer-helpers.js';
import '../../viewer/panels/index.js';

let app: WarptraceApp;
let tl: WtTimeline;

const xOf = (tNs: number): number => timelineX(tl, tNs);

describe('timeline ghost track', () => {
  before(() => setViewport({ width: 1280, height: 900 }));
  afterEach(async () => {
    await resetMouse();
    app.remove();
  });

  it('shows the baseline under the draws, colored by change, with a comparing tooltip and a toggle', async () => {
    const a = passFrameTrace();
    const order: (number | { label: string; like: number })[] = [...Array(a.draws.length).keys()].filter((d) => d !== 1500);
    order.splice(3, 0, { label: 'Shadows/CSM0 inserted_probe', like: 3 });
    const b = editFrame(a, { draws: order, stretch: new Map([[300, 3]]) });
    app = await mountApp();
    assert(await app.openFile(new Blob([encodeWtrace(b) as Uint8Array<ArrayBuffer>]), 'b.wtrace'), 'B opens');
    tl = app.timeline!;
    await tl.ready();
    const lanesBefore = tl.screenLayout.lanes.y;
    tl.baseline = a;
    await tl.updateComplete;
    const s = tl.screenLayout;
    assert(s.ghost.height > GHOST_HIDDEN_PX && s.lanes.y > lanesBefore, `a ghost band: ${JSON.stringify(s.ghost)}`);
    // Draw 300 of A is draw 301 of B, now 3× as long; draw 500 of A is draw 500 of B, unchanged.
    const stretched = 301;
    const layout = (tl as unknown as { drawLayout: { spans: Float64Array; row: Uint16Array; regionRows: number } }).drawLayout;
    const s0 = layout.spans[2 * stretched]!;
    const e0 = layout.spans[2 * stretched + 1]!;
    tl.zoomTo(s0, e0, 0.3);
    await afterTwoFrames();
    const ghostY = (d: number) => Math.round(s.ghost.y + 2 + (ghostRowOf(layout as never, d) + 0.5) * s.ghostRowHeight);
    // The ghost of the stretched draw covers its first third (A's length) in red.
    const red = tl.readPixels(Math.round(xOf(s0 + (e0 - s0) / 6)), ghostY(stretched), 1, 1);
    assert(red[0]! > red[1]! + 25 && red[0]! > red[2]! + 25, `red ghost for a longer draw: ${rgbText(red)}`);
    // Past A's end there is no ghost on that row.
    const past = tl.readPixels(Math.round(xOf(s0 + (e0 - s0) * 0.8)), ghostY(stretched), 1, 1);
    assert(Math.abs(past[0]! - past[1]!) < 12 && past[0]! < 40, `background past the ghost: ${rgbText(past)}`);
    // Hover the ghost: baseline vs current time of the pair.
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    await sendMouse({ type: 'move', position: [Math.round(rect.left + xOf(s0 + (e0 - s0) / 6)), Math.round(rect.top + ghostY(stretched))] });
    const tip = await waitFor('the ghost tooltip', () => tl.shadowRoot!.querySelector('.tooltip')?.textContent ?? null);
    assert(tip.includes('baseline A draw 300') && tip.includes('matched by label and pass') && /\(\+\d+(\.\d)?%\)/.test(tip), tip);
    // An unchanged draw: a grey ghost.
    const same = 500;
    tl.zoomTo(layout.spans[2 * same]!, layout.spans[2 * same + 1]!, 0.3);
    await afterTwoFrames();
    const grey = tl.readPixels(Math.round(xOf((layout.spans[2 * same]! + layout.spans[2 * same + 1]!) / 2)), ghostY(same), 1, 1);
    assert(Math.abs(grey[0]! - grey[1]!) < 15 && grey[0]! > 45, `grey ghost for an unchanged draw: ${rgbText(grey)}`);
    // The gutter label hides the ghosts (a strip stays) and shows them again.
    await sendMouse({ type: 'click', position: [Math.round(rect.left + 20), Math.round(rect.top + s.ghost.y + 6)] });
    await tl.updateComplete;
    assertEqual(tl.showGhost, false, 'hidden');
    assertEqual(tl.screenLayout.ghost.height, GHOST_HIDDEN_PX, 'a strip');
    await sendMouse({ type: 'click', position: [Math.round(rect.left + 20), Math.round(rect.top + tl.screenLayout.ghost.y + 6)] });
    await tl.updateComplete;
    assertEqual(tl.showGhost, true, 'shown again');
    // G does the same from the keyboard.
    tl.shadowRoot!.querySelector<HTMLElement>('.surface')!.focus();
    await sendKeys({ press: 'g' });
    await tl.updateComplete;
    assertEqual(tl.showGhost, false, 'G hides');
    await sendKeys({ press: 'g' });
    await tl.updateComplete;
    assertEqual(tl.showGhost, true, 'G shows');
    tl.baseline = null;
    await tl.updateComplete;
    assertEqual(tl.screenLayout.ghost.height, 0, 'no baseline, no band');
  });

  it('the analysis panels\' baseline reaches the timeline: "Use as baseline", open B, the ghost band appears; cleared, it goes', async () => {
    const a = passFrameTrace();
    const b = editFrame(a, { draws: [...Array(a.draws.length).keys()].filter((d) => d !== 7) });
    app = await mountApp();
    const panels = document.createElement('wt-analysis-panels');
    panels.slot = 'panels';
    app.append(panels);
    assert(await app.openFile(new Blob([encodeWtrace(a) as Uint8Array<ArrayBuffer>]), 'a.wtrace'), 'A opens');
    tl = app.timeline!;
    await tl.ready();
    const button = (label: RegExp) => waitFor(`a button ${label}`, () => [...panels.shadowRoot!.querySelectorAll('button')].find((x) => label.test(x.textContent ?? '')) ?? null);
    (await button(/Use as baseline/)).click();
    assert(await app.openFile(new Blob([encodeWtrace(b) as Uint8Array<ArrayBuffer>]), 'b.wtrace'), 'B opens');
    await waitFor('the ghost band', () => tl.baseline !== null && tl.screenLayout.ghost.height > 0);
    assertEqual(tl.baseline!.draws.length, a.draws.length, "A's trace is the baseline");
    (await button(/Clear baseline/)).click();
    await waitFor('no ghost band', () => tl.baseline === null && tl.screenLayout.ghost.height === 0);
  });
});
