// The analysis panels inside the real app shell: slotted in, they get the trace,
// analyze it, and a click on a finding or a draw moves the app's timeline.
import { assert, assertEqual } from './assert.js';
import { fixtureWtrace, mountApp, waitFor } from './viewer-helpers.js';
import '../../viewer/panels/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
});

it('wt-analysis-panels in the app: trace down, analysis, draw clicks zoom the timeline and select the draw', async () => {
  app = await mountApp();
  const panels = document.createElement('wt-analysis-panels');
  panels.slot = 'panels';
  app.append(panels);
  assert(await app.openFile(await fixtureWtrace(), 'tiny.wtrace'), 'opens');
  await app.updateComplete;
  assertEqual(panels.trace?.warps.count, 4, 'the shell handed the trace down');
  const summary = await waitFor('the analysis', () => panels.summary);
  assertEqual(summary.trace.warps, 4, 'analyzed');
  await panels.updateComplete;
  const stats = panels.shadowRoot!.querySelector('wt-stats-panel')!;
  stats.tab = 'draws';
  await stats.updateComplete;
  const draw = summary.draws.find((d) => d.warps > 0 && d.index > 0) ?? summary.draws.find((d) => d.warps > 0)!;
  (stats.shadowRoot!.querySelector(`tr[data-draw="${draw.index}"]`) as HTMLElement).click();
  await app.updateComplete;
  const v = app.timeline!.visibleWindow;
  assert(v.startNs <= draw.firstStartNs! && v.endNs >= draw.lastEndNs!, `timeline shows the draw: ${JSON.stringify(v)}`);
  await panels.updateComplete;
  assertEqual(panels.selectedDraw, draw.index, 'the app selected the draw and handed it back down');
});
