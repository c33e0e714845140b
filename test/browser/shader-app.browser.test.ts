// The shader panel inside the app: a .wtrace with a block profile goes through the decode
// worker (its counts transferred in one buffer) to the analysis panels, which show the panel
// for the app's selected draw or warp; a trace without a profile gets no panel.
import { encodeWtrace, synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import type { WtShaderPanel } from '../../viewer/panels/wt-shader-panel.js';
import '../../viewer/panels/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { assert, assertEqual } from './assert.js';
import { traceWithBlocks } from './block-fixtures.js';
import { mountApp, waitFor } from './viewer-helpers.js';

const blob = (t: Trace) => new Blob([encodeWtrace(t) as Uint8Array<ArrayBuffer>]);
const firstRow = (p: WtShaderPanel) => p.shadowRoot!.querySelector<HTMLTableRowElement>('table[data-table="blocks"] tbody tr');
const rowText = (r: HTMLTableRowElement | null) => (r === null ? '' : [...r.cells].slice(0, 2).map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim()).join(' '));

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
});

it('the shader panel in the app: the profile through the decode worker, the selected draw and warp, none without a profile', async () => {
  app = await mountApp();
  const panels = document.createElement('wt-analysis-panels');
  panels.slot = 'panels';
  app.append(panels);
  const source = traceWithBlocks();
  assert(await app.openFile(blob(source), 'blocks.wtrace'), 'opens');
  await app.updateComplete;
  const panel = await waitFor('the shader panel', () => panels.shadowRoot!.querySelector<WtShaderPanel>('wt-shader-panel'));

  // The decode worker packed every count column into one transferred buffer.
  const profile = panel.trace!.blocks!;
  const buffers = new Set(profile.rows.flatMap((r) => r.modules.flatMap((c) => [c.executions.buffer, c.lanes.buffer, c.ticks.buffer])));
  assertEqual(buffers.size, 1, 'count columns share one buffer');
  assertEqual([...profile.rows[0]!.modules[0]!.ticks].join(','), '1000,3000,2000,1500,500', 'the counts survived the transfer');

  await waitFor('the all-draws table', () => rowText(firstRow(panel)).endsWith('shade.frag:8 41.7%'));
  app.selectDraw(0);
  await app.updateComplete;
  await waitFor('draw 0', () => rowText(firstRow(panel)).endsWith('shade.frag:5 50.0%'));
  assertEqual(panel.selectedDraw, 0, 'the app handed the selected draw down');

  app.selectDraw(-1);
  app.selectWarp(source.warps.draw.indexOf(1));
  await app.updateComplete;
  await waitFor("the selected warp's draw", () => rowText(firstRow(panel)) === 'shade.frag:8 75.0%');

  assert(await app.openFile(blob(synthesizeTrace({ warps: 2000, seed: 4 })), 'plain.wtrace'), 'opens a trace without a profile');
  await app.updateComplete;
  await panels.updateComplete;
  assertEqual(panels.shadowRoot!.querySelector('wt-shader-panel'), null, 'no shader panel without a block profile');
});
