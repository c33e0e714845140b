// The viewer's header says how far the clock calibration can be trusted, and
// warns when SMs are not aligned or warps lie outside their draws.
import { H100_CLOCKS, decodeWtraw, encodeWtrace, encodeWtraw, rawCaptureOf, synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { assert } from './assert.js';
import { mountApp, waitFor } from './viewer-helpers.js';

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
});

/** Opens a trace; the header's badges (text) and their tooltips. */
async function open(trace: Trace, name: string): Promise<{ badges: string; tooltips: string }> {
  app = await mountApp();
  await app.openFile(new Blob([encodeWtrace(trace) as Uint8Array<ArrayBuffer>]), name);
  await waitFor(name, () => app!.opened?.name === name);
  await app.updateComplete;
  const badges = [...app.shadowRoot!.querySelectorAll('.title .dropped')];
  return { badges: badges.map((e) => e.textContent!.trim()).join(' | '), tooltips: badges.map((e) => e.getAttribute('title') ?? '').join('\n') };
}

describe('calibration in the header', () => {
  it('shows the fit, p99 over all samples and late share; warns of warps outside their draws', async () => {
    const truth = synthesizeTrace({ warps: 3000, seed: 4 });
    const good = decodeWtraw(encodeWtraw(rawCaptureOf(truth, H100_CLOCKS).raw));
    const { badges, tooltips } = await open(good, 'good.wtrace');
    assert(/clock fit 9\.\d+ ns · p99 1\d\.\d ns over all · 0\.0% late/.test(badges), badges);
    assert(/cross-check: passed/.test(tooltips), `the tooltip holds the cross-check: ${tooltips}`);
    assert(!badges.includes('not aligned') && !badges.includes('outside their draws'), badges);
    app!.remove();
    const skewed = decodeWtraw(encodeWtraw(rawCaptureOf(truth, { ...H100_CLOCKS, timestampSkewNs: 197e6 }).raw));
    const bad = (await open(skewed, 'skewed.wtrace')).badges;
    assert(bad.includes('SM clocks not aligned'), bad);
    assert(/3,000 warps outside their draws \(worst 197 ms\)/.test(bad), bad);
  });

  it('an older file: no p99 (not measured), and its draw check made on opening', async () => {
    const truth = synthesizeTrace({ warps: 3000, seed: 4 });
    const decoded = decodeWtraw(encodeWtraw(rawCaptureOf(truth, H100_CLOCKS).raw));
    const { quality: _q, drawBounds: _d, ...older } = decoded.capture.calibration;
    const moved: Trace = { ...decoded, capture: { ...decoded.capture, calibration: older }, warps: { ...decoded.warps, startNs: decoded.warps.startNs.map((s) => s + 50_000) } };
    const { badges, tooltips } = await open(moved, 'older.wtrace');
    assert(/clock fit 9\.\d+ ns · 0\.0% late/.test(badges) && !badges.includes('p99'), badges);
    assert(badges.includes('SM clocks not aligned'), badges);
    assert(/warps outside their draws \(worst \d\d\.\d µs\)/.test(badges), badges);
    assert(tooltips.includes('checked on reading: older file'), tooltips);
  });
});
