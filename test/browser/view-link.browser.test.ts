// Deep links (issue 14): the page URL follows the view, and a link restores it.
import { setViewport } from '@web/test-runner-commands';
import { encodeWtrace, synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import { encodeViewLink, parseViewLink, traceFingerprint } from '../../viewer/loading/view-link.js';
import { RecentsStore, idbBackend } from '../../viewer/loading/recents-store.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { passFrameTrace } from '../node/pass-frame.js';
import { assert, assertEqual } from './assert.js';
import { FIXTURE_BASE, fixtureTrace, waitFor } from './viewer-helpers.js';

const frame: Trace = passFrameTrace();
const frameFile = () => new Blob([encodeWtrace(frame) as BlobPart]);
const pageHref = location.href;
let app: WarptraceApp | null = null;

/** An app that owns the page URL (as index.html's does); autoOpen, but with no sample to open. */
async function mountPageApp(): Promise<WarptraceApp> {
  const el = document.createElement('warptrace-app');
  el.pageLink = true;
  el.sampleBase = `${FIXTURE_BASE}missing/`;
  el.store = new RecentsStore(idbBackend(`warptrace-link-${Math.random().toString(36).slice(2)}`));
  el.style.cssText = 'display:flex;position:fixed;left:0;top:0;width:1200px;height:800px;';
  document.body.append(el);
  await el.updateComplete;
  return el;
}

function setPageUrl(href: string): void {
  history.replaceState(history.state, '', href);
}

describe('view links', () => {
  before(() => setViewport({ width: 1280, height: 900 }));
  afterEach(() => {
    app?.remove();
    app = null;
    setPageUrl(pageHref);
  });

  it('parses what it writes and names the fields it cannot read', () => {
    const state = { fingerprint: traceFingerprint(frame), name: 'a b&c.wtrace', view: { startNs: 1500.25, endNs: 90210.5 }, expandedSms: [5, 1], selectedDraw: 12, selectedWarp: 3456, find: 'pass:Bloom #1-9', colorBy: { kind: 'branch', mark: 16777216 } as const };
    const back = parseViewLink(`#${encodeViewLink(state)}`);
    assertEqual(JSON.stringify(back.state), JSON.stringify({ ...state, expandedSms: [1, 5] }), 'round trip');
    assertEqual(back.problems.length, 0, 'no problems');
    assert(encodeViewLink(state).includes('color=branch:16777216'), `the color mode is in the link: ${encodeViewLink(state)}`);
    assert(!encodeViewLink({ ...state, colorBy: { kind: 'stage' } }).includes('color='), 'stage, the default, is left out');
    const bad = parseViewLink('#t=10,5&sm=1,x&draw=-3&warp=1e9&find=%E0%A4%A&color=rainbow&other=1');
    assertEqual(bad.problems.length, 6, `every bad field named: ${bad.problems.join('; ')}`);
    assertEqual(bad.state!.colorBy.kind, 'stage', 'a bad color mode falls back to stage');
    assertEqual(bad.state!.view, null, 'bad window dropped');
    assertEqual(bad.state!.selectedDraw, -1, 'bad draw dropped');
    assertEqual(parseViewLink('#foo=bar').state, null, 'a hash without link fields is no link');
    assert(traceFingerprint(synthesizeTrace({ warps: 5000, seed: 1 })) !== traceFingerprint(synthesizeTrace({ warps: 5000, seed: 2 })), 'fingerprints tell seeds apart');
    assertEqual(traceFingerprint(passFrameTrace()), traceFingerprint(frame), 'and agree on the same trace');
  });

  it('a file trace: the URL follows the view without history entries, and the link restores it when that file is opened', async () => {
    app = await mountPageApp();
    const historyLength = history.length;
    assert(await app.openFile(frameFile(), 'pass frame.wtrace'), 'opens');
    const timeline = app.timeline!;
    const sms = app.opened!.index.lanes.map((l) => l.sm);
    app.selectDraw(1234);
    app.selectWarp(777);
    timeline.toggleLane(sms[1]!, true);
    timeline.toggleLane(sms[3]!, true);
    app.drawList!.setQuery('pass:Bloom');
    timeline.setView({ startNs: 1_200_000, endNs: 1_260_000 });
    await waitFor('the URL to follow the view', () => location.hash.includes('t=1200000,1260000') && location.hash.includes('find='));
    const link = location.href;
    assertEqual(history.length, historyLength, 'replaceState: no history entries');
    assert(!new URL(link).searchParams.has('trace'), 'a file has no trace URL');
    for (const part of ['draw=1234', 'warp=777', `sm=${Math.min(sms[1]!, sms[3]!)},${Math.max(sms[1]!, sms[3]!)}`, 'find=pass%3ABloom', 'name=pass%20frame.wtrace', `fp=${traceFingerprint(frame)}`]) {
      assert(link.includes(part), `link has ${part}: ${link}`);
    }
    assertEqual(app.viewLink(), link, 'viewLink() is the page URL');
    app.remove();

    // Reopen the page at that link: the default sample is missing, so the link waits for its file.
    setPageUrl(link);
    app = await mountPageApp();
    await waitFor('the sample index to fail', () => app!.sampleProblem !== null);
    assert(await app.openFile(frameFile(), 'pass frame.wtrace'), 'opens again');
    await waitFor('the view restored', () => app!.selectedDraw === 1234);
    assertEqual(app.selectedWarp, 777, 'warp');
    assertEqual([...app.timeline!.expandedSms].sort((a, b) => a - b).join(), [sms[1], sms[3]].join(), 'expanded lanes');
    const view = app.timeline!.visibleWindow;
    assert(Math.abs(view.startNs - 1_200_000) < 1 && Math.abs(view.endNs - 1_260_000) < 1, `window ${view.startNs}-${view.endNs}`);
    assertEqual(app.drawList!.query, 'pass:Bloom', 'find text');
    assertEqual(app.notice, null, 'nothing ignored');
    assertEqual(app.error, null, 'no error');
  });

  it('a link of another trace, or with state the trace does not have, is ignored with a notice', async () => {
    const fp = traceFingerprint(frame);
    setPageUrl(`${pageHref.split('#')[0]}#fp=${fp}&t=5,2&sm=0,9999&draw=99999&warp=5&name=frame.wtrace`);
    app = await mountPageApp();
    assert(await app.openFile(frameFile(), 'frame.wtrace'), 'opens');
    await waitFor('a notice', () => app!.notice);
    assert(/ignored/.test(app.notice!) && /\bt\b/.test(app.notice!) && app.notice!.includes('9999') && app.notice!.includes('draw 99999'), app.notice!);
    assertEqual(app.selectedDraw, -1, 'no such draw');
    assertEqual(app.selectedWarp, 5, 'the valid part applies');
    assertEqual(app.error, null, 'never an error');
    app.remove();

    setPageUrl(`${pageHref.split('#')[0]}#fp=${fp}&draw=3&name=frame.wtrace`);
    app = await mountPageApp();
    const tiny = await fixtureTrace();
    assert(await app.openFile(new Blob([encodeWtrace(tiny) as BlobPart]), 'tiny.wtrace'), 'opens another trace');
    await waitFor('a notice', () => app!.notice);
    assert(app.notice!.includes('tiny.wtrace') && app.notice!.includes('frame.wtrace'), app.notice!);
    assertEqual(app.selectedDraw, -1, 'not applied');
  });

  it('a file\'s link waits through the default sample, with a notice that goes once its file is open', async () => {
    setPageUrl(`${pageHref.split('#')[0]}#fp=${traceFingerprint(frame)}&draw=42&name=frame.wtrace`);
    // An app with the fixture samples: their default opens first.
    app = document.createElement('warptrace-app');
    app.pageLink = true;
    app.sampleBase = FIXTURE_BASE;
    app.store = new RecentsStore(idbBackend(`warptrace-link-${Math.random().toString(36).slice(2)}`));
    app.style.cssText = 'display:flex;position:fixed;left:0;top:0;width:1200px;height:800px;';
    document.body.append(app);
    await waitFor('the default sample', () => app!.opened?.name === 'tiny-trace.json');
    await waitFor('the waiting notice', () => app!.notice);
    assert(app.notice!.includes('frame.wtrace') && app.notice!.includes('open that file'), app.notice!);
    assertEqual(app.selectedDraw, -1, 'not applied to the sample');
    assert(await app.openFile(frameFile(), 'frame.wtrace'), 'opens the file');
    await waitFor('the view restored', () => app!.selectedDraw === 42);
    await new Promise((r) => setTimeout(r, 300));
    assertEqual(app.notice, null, 'the waiting notice is gone, and keeping the file in Recent did not bring one');
  });

  it('a ?trace= link opens the trace and restores the view; Copy link copies it', async () => {
    const traceUrl = `${FIXTURE_BASE}tiny-trace.json`;
    const tiny = await fixtureTrace();
    const base = new URL(pageHref);
    base.searchParams.set('trace', traceUrl);
    const t0 = Math.min(...tiny.warps.startNs) + 100;
    base.hash = `fp=${traceFingerprint(tiny)}&t=${t0},${t0 + 800}&warp=2`;
    setPageUrl(base.href);
    app = await mountPageApp();
    await waitFor('the view restored', () => app!.selectedWarp === 2);
    const view = app.timeline!.visibleWindow;
    assert(Math.abs(view.startNs - t0) < 1 && Math.abs(view.endNs - t0 - 800) < 1, `window ${view.startNs}-${view.endNs}`);
    const link = app.viewLink()!;
    assertEqual(new URL(link).searchParams.get('trace'), traceUrl, 'the link keeps the trace URL');
    assert(link.includes(`?trace=${traceUrl}`), `readable, its / and : unescaped: ${link}`);
    assert(new URL(link).searchParams.has('wtr-session-id') === new URL(pageHref).searchParams.has('wtr-session-id'), 'other query parameters kept');

    let copied: string | null = null;
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void (copied = text) } });
    try {
      const button = app.shadowRoot!.querySelector('button.copy-link') as HTMLButtonElement;
      button.click();
      await waitFor('the link copied', () => copied);
      assertEqual(copied, link, 'Copy link copies the view link');
      await app.updateComplete;
      assert(button.textContent!.includes('Link copied'), button.textContent!);
    } finally {
      delete (navigator as unknown as Record<string, unknown>)['clipboard'];
    }
  });
});
