// The viewer app end to end: default sample, pixels where the trace puts warps, bad files, recent traces.
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { RecentsStore, type KeyValueBackend } from '../../viewer/loading/recents-store.js';
import { loadTrace, type LoadProgress } from '../../viewer/loading/trace-loader.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { assert, assertEqual } from './assert.js';
import { FIXTURE_BASE, deepText, fixtureWtrace, mountApp, near, rgbText, stageRgb, waitFor } from './viewer-helpers.js';

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
});

/** Pixel of the timeline canvas at time t (ns) and y (px from the top of the lane area). */
function pixelAt(a: WarptraceApp, tNs: number, laneY: number): Uint8ClampedArray {
  const tl = a.timeline!;
  const s = tl.screenLayout;
  const v = tl.visibleWindow;
  const x = s.gutter + ((tNs - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s);
  return tl.readPixels(Math.round(x), Math.round(s.lanes.y + laneY - tl.verticalScroll), 1, 1);
}

describe('viewer app', () => {
  it('opens the default sample from the sample index and draws each warp in its stage color where the trace puts it', async () => {
    app = await mountApp({ autoOpen: true, sampleBase: FIXTURE_BASE });
    await waitFor('the default sample', () => app!.timeline !== null && app!.lastOpenTimings !== null);
    const tl = app.timeline!;
    await tl.ready();
    assertEqual(app.opened!.trace.warps.count, 4, 'warps in the fixture');
    // Only SMs that ran warps get a lane: 2 of the device's 8.
    assertEqual(tl.laneLayout.rows.map((r) => r.sm).join(','), '0,5', 'lanes');
    tl.toggleLane(0, true);
    tl.toggleLane(5, true);
    tl.setView({ startNs: 0, endNs: 10000 });
    const [sm0, sm5] = tl.laneLayout.rows;
    const slotY = (lane: typeof sm0, slot: number) => lane!.y + lane!.headerHeight + 2 + slot * lane!.slotRowHeight + lane!.slotRowHeight / 2;
    const expectations: [string, number, number, string][] = [
      ['TCS warp, SM 0 slot 0', 5000, slotY(sm0, 0), 'TCS'],
      ['VS warp, SM 0 slot 1', 1250, slotY(sm0, 1), 'VS'],
      ['FS warp, SM 5 slot 3', 4000, slotY(sm5, 3), 'FS'],
      ['CS warp, SM 5 slot 4', 8000, slotY(sm5, 4), 'CS'],
      // Collapsed part of each lane: occupancy, stacked by stage, from the bottom of the chart.
      ['SM 0 occupancy', 5000, sm0!.y + sm0!.headerHeight - 4, 'TCS'],
      ['SM 5 occupancy', 4000, sm5!.y + sm5!.headerHeight - 4, 'FS'],
    ];
    for (const [what, t, y, stage] of expectations) {
      const p = pixelAt(app, t, y);
      assert(near(p, stageRgb(stage)), `${what}: expected ${stage} ${rgbText(stageRgb(stage))} at t=${t}, got ${rgbText(p)}`);
    }
    // Where the trace has no warp, no stage color.
    for (const [what, t, y] of [
      ['SM 5 slot 3 after its FS warp', 6500, slotY(sm5, 3)],
      ['SM 0 slot 1 after its VS warp', 5000, slotY(sm0, 1)],
      ['SM 5 slot 4 before its CS warp', 4000, slotY(sm5, 4)],
    ] as const) {
      const p = pixelAt(app, t, y);
      for (const stage of ['TCS', 'VS', 'FS', 'CS']) assert(!near(p, stageRgb(stage), 40), `${what}: unexpected ${stage} color ${rgbText(p)}`);
    }
  });

  it('shows a clear "no sample" state when there is no sample index, and keeps working', async () => {
    app = await mountApp({ autoOpen: true, sampleBase: `${FIXTURE_BASE}missing/` });
    await waitFor('the no-sample message', () => app!.sampleProblem !== null);
    await app.updateComplete;
    const text = deepText(app);
    assert(text.includes('No sample capture is available'), `empty state text: ${text.slice(0, 300)}`);
    assert(await app.openFile(await fixtureWtrace(), 'fixture.wtrace'), 'a file still opens');
    assertEqual(app.opened!.trace.warps.count, 4, 'warps');
  });

  it('rejects a bad file with a message naming the problem and keeps the open trace', async () => {
    app = await mountApp();
    assert(await app.openFile(await fixtureWtrace(), 'good.wtrace'), 'good file opens');
    const ok = await app.openFile(new Blob(['this is not a trace']), 'notes.txt');
    assert(!ok, 'bad file reported as failed');
    await app.updateComplete;
    assert(app.error !== null && app.error.includes('notes.txt') && app.error.includes('not a warptrace file'), `error: ${app.error}`);
    const banner = app.shadowRoot!.querySelector('[role=alert]');
    assert(banner !== null && banner.textContent!.includes('not a warptrace file'), 'error banner shown');
    assertEqual(app.opened?.name, 'good.wtrace', 'previous trace still open');
    // A truncated .wtrace: the message names the field.
    const bytes = new Uint8Array(await (await fixtureWtrace()).arrayBuffer());
    assert(!(await app.openFile(new Blob([bytes.slice(0, bytes.length - 20)]), 'cut.wtrace')), 'truncated file fails');
    assert(app.error !== null && /cut\.wtrace: .+/.test(app.error), `truncation error: ${app.error}`);
    // And the app keeps working.
    assert(await app.openFile(await fixtureWtrace(), 'again.wtrace'), 'opens again');
    assertEqual(app.error, null, 'error cleared by the next successful open');
  });

  it('opens ?trace=URL style URLs in the worker, reporting read, decode and index progress', async () => {
    const blob = await fixtureWtrace();
    const url = URL.createObjectURL(blob);
    try {
      const seen: LoadProgress[] = [];
      const loaded = await loadTrace({ kind: 'url', url }, (p) => seen.push(p));
      assertEqual(loaded.trace.warps.count, 4, 'warps');
      assertEqual(loaded.bytes, blob.size, 'bytes read');
      const phases = seen.map((p) => p.phase).filter((p, k, a) => a[k - 1] !== p);
      assertEqual(phases.join(' → '), 'read → decode → index', 'progress phases in order');
      const lastRead = seen.filter((p) => p.phase === 'read').pop()!;
      assertEqual(lastRead.loaded, blob.size, 'read progress reaches the file size');
      // Columns arrive by transfer as real typed arrays.
      assert(loaded.trace.warps.startNs instanceof Float64Array && loaded.index.lanes[0]!.blockMaxEnd instanceof Float64Array, 'typed arrays');
      app = await mountApp();
      assert(await app.openUrl(url), 'the app opens the URL');
      assert(app.lastOpenTimings !== null && app.lastOpenTimings.totalMs > 0, 'timings recorded');
    } finally {
      URL.revokeObjectURL(url);
    }
    assert(!(await app.openUrl(`${FIXTURE_BASE}does-not-exist.wtrace`)), '404 fails');
    assert(app.error !== null && app.error.includes('HTTP 404'), `404 message: ${app.error}`);
  });

  it('shows a progress bar while loading', async () => {
    app = await mountApp();
    app.loading = { name: 'big.wtrace', progress: { phase: 'read', loaded: 25 << 20, total: 100 << 20 } };
    await app.updateComplete;
    const bar = app.shadowRoot!.querySelector('progress')!;
    assert(Math.abs(bar.value - 0.25) < 1e-9, `progress value ${bar.value}`);
    assert(deepText(app).includes('Reading big.wtrace: 25.0 MB of 100.0 MB'), 'progress text');
    app.loading = { name: 'big.wtrace', progress: { phase: 'decode', loaded: 0, total: null } };
    await app.updateComplete;
    assert(!app.shadowRoot!.querySelector('progress')!.hasAttribute('value') && deepText(app).includes('Decoding big.wtrace'), 'indeterminate while decoding');
  });

  it('opens files from the file picker and by drag and drop', async () => {
    app = await mountApp();
    const file = new File([await fixtureWtrace()], 'picked.wtrace');
    const picker = new DataTransfer();
    picker.items.add(file);
    const input = app.shadowRoot!.querySelector<HTMLInputElement>('input[type=file]')!;
    input.files = picker.files;
    input.dispatchEvent(new Event('change'));
    await waitFor('the picked file', () => app!.opened?.name === 'picked.wtrace');
    const drop = new DataTransfer();
    drop.items.add(new File([await fixtureWtrace()], 'dropped.wtrace'));
    app.dispatchEvent(new DragEvent('dragover', { dataTransfer: drop, bubbles: true, cancelable: true }));
    await app.updateComplete;
    assert(app.shadowRoot!.querySelector('.drop-overlay') !== null, 'drop hint while dragging');
    app.dispatchEvent(new DragEvent('drop', { dataTransfer: drop, bubbles: true, cancelable: true }));
    await waitFor('the dropped file', () => app!.opened?.name === 'dropped.wtrace');
    assertEqual(app.dropActive, false, 'hint gone after the drop');
  });

  it('hands state to slotted side panels and follows their events', async () => {
    app = await mountApp();
    const panel = document.createElement('div') as HTMLDivElement & Record<string, unknown>;
    panel.slot = 'panels';
    app.append(panel);
    assert(await app.openFile(await fixtureWtrace(), 'panels.wtrace'), 'opens');
    await app.updateComplete;
    assert(app.hasPanels, 'the panel column is shown');
    assertEqual((panel['trace'] as { warps: { count: number } }).warps.count, 4, 'panel got the trace');
    panel.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw: 1 }, bubbles: true, composed: true }));
    await app.updateComplete;
    assertEqual(panel['selectedDraw'], 1, 'selection came back down to the panel');
    panel.dispatchEvent(new CustomEvent('wt-zoom-to', { detail: { startNs: 7000, endNs: 9500, sm: 5 }, bubbles: true, composed: true }));
    await app.updateComplete;
    const v = app.timeline!.visibleWindow;
    assert(v.startNs < 7000 && v.startNs > 6500 && v.endNs > 9500 && v.endNs < 9700, `zoomed to the panel's span: ${JSON.stringify(v)}`);
    panel.dispatchEvent(new CustomEvent('wt-range-select', { detail: { range: { startNs: 1500, endNs: 5000 } }, bubbles: true, composed: true }));
    await app.updateComplete;
    assertEqual(app.counts?.warps, 2, 'range from a panel counted');
    assertEqual((panel['range'] as { startNs: number }).startNs, 1500, 'range down to the panel');
  });

  it('keeps recent traces in IndexedDB across a reload, reopens and deletes them', async () => {
    const dbName = `warptrace-recents-${Math.random().toString(36).slice(2)}`;
    app = await mountApp({ dbName });
    assert(await app.openFile(await fixtureWtrace(), 'kept.wtrace'), 'opens');
    await waitFor('the recent entry', () => app!.recents.length === 1);
    app.remove();
    // A new app on the same database: what a reload sees.
    app = await mountApp({ dbName });
    await app.refreshRecents();
    assertEqual(app.recents.length, 1, 'recent traces after reload');
    const entry = app.recents[0]!;
    assertEqual(entry.name, 'kept.wtrace', 'name');
    assertEqual(entry.device, 'test GPU', 'device');
    assertEqual(entry.warps, 4, 'warps');
    assert(entry.size > 0 && !Number.isNaN(Date.parse(entry.openedAt)), 'size and date');
    app.dispatchEvent(new CustomEvent('wt-recent-open', { detail: { id: entry.id } }));
    await waitFor('the reopened trace', () => app!.opened?.name === 'kept.wtrace');
    assertEqual(app.opened!.trace.warps.count, 4, 'reopened warps');
    app.dispatchEvent(new CustomEvent('wt-recent-delete', { detail: { id: entry.id } }));
    await waitFor('the deletion', () => app!.recents.length === 0);
    assertEqual((await new RecentsStore(app.store['backend' as never]).list()).length, 0, 'gone from the database');
  });

  it('shows a storage-full error without losing the open trace or the stored recents', async () => {
    const data = new Map<string, unknown>();
    let full = false;
    const backend: KeyValueBackend = {
      get: async <T>(key: string) => data.get(key) as T | undefined,
      set: async (key, value) => {
        if (full) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        data.set(key, value);
      },
      del: async (key) => void data.delete(key),
    };
    app = await mountApp();
    app.store = new RecentsStore(backend);
    assert(await app.openFile(await fixtureWtrace(), 'first.wtrace'), 'first opens');
    await waitFor('first recent', () => app!.recents.length === 1);
    full = true;
    const bigger = new Blob([await (await fixtureWtrace()).arrayBuffer(), new Uint8Array(0)]);
    assert(await app.openFile(new File([bigger], 'second.wtrace'), 'second.wtrace'), 'second opens although storage is full');
    await waitFor('the storage notice', () => app!.notice);
    assert(app.notice!.includes('storage is full') && app.notice!.includes('second.wtrace'), `notice: ${app.notice}`);
    assertEqual(app.opened?.name, 'second.wtrace', 'the trace stays open');
    assertEqual(app.recents.map((r) => r.name).join(), 'first.wtrace', 'earlier recents kept');
    assert(data.has(`file:${app.recents[0]!.id}`), 'earlier stored file kept');
  });
});
