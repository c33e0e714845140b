// Issue 14 layout defects, measured with bounding boxes at the sizes they were seen at.
import { setViewport } from '@web/test-runner-commands';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { DEFAULT_LANE_OPTIONS, type LaneRow } from '../../viewer/model/lane-layout.js';
import { MAX_LANE_PX, fitLaneHeight } from '../../viewer/model/lane-fit.js';
import { GUTTER_LINE_PX, drawBandLabelYs, screenLayout } from '../../viewer/model/screen-layout.js';
import '../../viewer/panels/index.js';
import { assert, assertEqual } from './assert.js';
import { FIXTURE_BASE, mountApp, waitFor } from './viewer-helpers.js';

const SIZES: readonly (readonly [number, number])[] = [
  [1600, 1000],
  [1920, 1080],
];
const LONG = 'shadow_cascade_3_terrain_chunk_with_a_very_long_unbroken_label_that_used_to_run_into_the_next_column';

/** The fixture trace with a long draw label, as a JSON file. */
async function longLabelTrace(): Promise<Blob> {
  const json = (await (await fetch(`${FIXTURE_BASE}tiny-trace.json`)).json()) as { draws: { label: string }[] };
  for (const d of json.draws) d.label = `${LONG}_${d.label}`;
  return new Blob([JSON.stringify(json)], { type: 'application/json' });
}

async function fullApp(width: number, height: number): Promise<WarptraceApp> {
  await setViewport({ width, height });
  const app = await mountApp();
  app.style.width = `${width}px`;
  app.style.height = `${height}px`;
  const panels = document.createElement('wt-analysis-panels');
  panels.slot = 'panels';
  app.append(panels);
  assert(await app.openFile(await longLabelTrace(), `${LONG}.json`), 'opens');
  await app.updateComplete;
  return app;
}

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
  localStorage.removeItem('warptrace.sideColumns');
});

describe('issue 14 layout', () => {
  for (const [w, h] of SIZES) {
    it(`the help popover stays inside the window at ${w}×${h}, also when the header wraps`, async () => {
      for (const width of [w, 900]) {
        app = await fullApp(width, h);
        const help = app.shadowRoot!.querySelector('details.help') as HTMLDetailsElement;
        help.open = true;
        await app.updateComplete;
        const r = app.shadowRoot!.querySelector('.help-body')!.getBoundingClientRect();
        assert(r.width > 100, 'shown');
        assert(r.left >= 0 && r.right <= width + 0.5, `help popover ${r.left.toFixed(0)}…${r.right.toFixed(0)} inside 0…${width}`);
        app.remove();
        app = null;
      }
    });

    it(`the warp, range and cursor columns do not run into each other at ${w}×${h}`, async () => {
      app = await fullApp(w, h);
      app.dispatchEvent(new CustomEvent('wt-warp-select', { detail: { row: 0 } }));
      app.dispatchEvent(new CustomEvent('wt-range-select', { detail: { range: { startNs: 0, endNs: 9000 } } }));
      app.dispatchEvent(new CustomEvent('wt-cursor-change', { detail: { cursorNs: 3000 } }));
      await app.updateComplete;
      const cols = ['wt-warp-details', 'wt-range-summary', 'wt-in-flight'].map((s) => app!.shadowRoot!.querySelector(s) as HTMLElement & { updateComplete: Promise<boolean> });
      await Promise.all(cols.map((c) => c.updateComplete));
      await waitFor('range counts', () => cols[1]!.shadowRoot!.textContent!.includes('warp'));
      for (let i = 0; i < cols.length; i++) {
        const c = cols[i]!;
        assert(c.scrollWidth <= c.clientWidth + 1, `${c.localName}: content ${c.scrollWidth} px in ${c.clientWidth} px`);
        const next = cols[i + 1];
        if (next !== undefined) assert(c.getBoundingClientRect().right <= next.getBoundingClientRect().left + 0.5, `${c.localName} ends before ${next.localName}`);
      }
    });

    it(`the timeline's lanes fill its height at ${w}×${h}`, async () => {
      app = await fullApp(w, h);
      const tl = await waitFor('the timeline', () => app!.timeline);
      const s = tl.screenLayout;
      const lanes = tl.laneLayout;
      assert(lanes.rows.length > 0 && lanes.rows.length <= 8, `a few lanes: ${lanes.rows.length}`);
      const filled = lanes.height / s.lanes.height;
      const capped = lanes.rows.every((r) => r.headerHeight === MAX_LANE_PX);
      assert(filled > 0.9 || capped, `lanes fill ${(filled * 100).toFixed(0)}% of ${s.lanes.height} px (lane ${lanes.rows[0]!.headerHeight} px)`);
    });
  }

  it('lanes grow up to the maximum and shrink back with more lanes; expanded slot rows keep their height', () => {
    const base = { ...DEFAULT_LANE_OPTIONS };
    const row: LaneRow = { sm: 0, group: 0, y: 0, height: base.laneHeight, headerHeight: base.laneHeight, expanded: false, slotRows: 0, slotRowHeight: 12, slotCount: 0 };
    const fake = (n: number) => ({ rows: new Array<LaneRow>(n).fill(row), height: n * base.laneHeight });
    assertEqual(fitLaneHeight(fake(4), base, 400), 100, '4 lanes in 400 px');
    assertEqual(fitLaneHeight(fake(2), base, 1000), MAX_LANE_PX, 'capped');
    assertEqual(fitLaneHeight(fake(40), base, 400), base.laneHeight, 'many lanes keep the base height (and scroll)');
    assertEqual(fitLaneHeight({ rows: fake(2).rows, height: 2 * base.laneHeight + 300 }, base, 400), 50, 'slot rows are fixed');
  });

  it('the gutter labels "draws" and "lane = N warps" are a line apart with one draw row', () => {
    const y = drawBandLabelYs(screenLayout(1200, 800, 1));
    assert(y.laneScale - y.draws >= GUTTER_LINE_PX, `labels at ${y.draws} and ${y.laneScale}`);
  });

  it('the stage statistics show fewer columns until "All columns"', async () => {
    app = await fullApp(1600, 1000);
    const panels = app.querySelector('wt-analysis-panels')!;
    await waitFor('the analysis', () => panels.summary);
    await panels.updateComplete;
    const stats = panels.shadowRoot!.querySelector('wt-stats-panel')!;
    stats.tab = 'stages';
    await stats.updateComplete;
    const heads = () => [...stats.shadowRoot!.querySelectorAll('table[data-table="stages"] th')].map((t) => t.textContent!.trim());
    assert(!heads().includes('σ') && heads().includes('Mean'), `default: ${heads().join(',')}`);
    (stats.shadowRoot!.querySelector('button[data-action="stage-columns"]') as HTMLButtonElement).click();
    await stats.updateComplete;
    assert(heads().includes('σ') && heads().includes('SMs'), `all: ${heads().join(',')}`);
    const table = stats.shadowRoot!.querySelector('table[data-table="stages"]')!;
    assert(table.querySelectorAll('td.num').length > 0, 'numbers right-aligned (.num)');
  });
});

describe('issue 14 tables', () => {
  it('the draws table fits the default panels column without sideways scrolling (2 000 draws with passes)', async () => {
    const { passFrameTrace } = await import('../node/pass-frame.js');
    const { encodeWtrace } = await import('../../shared-schema/index.js');
    app = await mountApp();
    app.style.width = '1600px';
    app.style.height = '1000px';
    const panels = document.createElement('wt-analysis-panels');
    panels.slot = 'panels';
    app.append(panels);
    assert(await app.openFile(new Blob([encodeWtrace(passFrameTrace()) as BlobPart]), 'pass-frame.wtrace'), 'opens');
    await waitFor('the analysis', () => panels.summary);
    await panels.updateComplete;
    const stats = panels.shadowRoot!.querySelector('wt-stats-panel')!;
    stats.tab = 'draws';
    await stats.updateComplete;
    const right = app.shadowRoot!.querySelector('aside.panels')!.getBoundingClientRect().right;
    const fits = (what: string) => {
      const t = stats.shadowRoot!.querySelector(`table[data-table="${what}"], table.draw-table`)!.getBoundingClientRect();
      assert(t.right <= right + 0.5, `${what} table ends at ${t.right.toFixed(0)}, the column at ${right.toFixed(0)}`);
    };
    fits('draws');
    stats.tab = 'stages';
    await stats.updateComplete;
    fits('stages');
  });
});

it('the A/B tables fit a 420 px column with long trace names', async () => {
  const { analyzeTrace } = await import('../../analysis/analyze.js');
  const { synthesizeTrace } = await import('../../shared-schema/index.js');
  const box = document.createElement('div');
  box.style.cssText = 'position:fixed;left:0;top:0;width:420px;';
  const el = document.createElement('wt-compare-panel');
  el.a = analyzeTrace(synthesizeTrace({ warps: 3000, seed: 1 }));
  el.b = analyzeTrace(synthesizeTrace({ warps: 4000, seed: 2 }));
  el.labelA = 'h100-aqt-capture-before-the-change.wtrace';
  el.labelB = 'synthetic 200,000 warps after the change';
  box.append(el);
  document.body.append(box);
  try {
    await el.updateComplete;
    for (const t of el.shadowRoot!.querySelectorAll('table')) {
      const r = t.getBoundingClientRect();
      assert(r.right <= 420.5, `${t.dataset.table} table ends at ${r.right.toFixed(0)} px`);
    }
  } finally {
    box.remove();
  }
});
