// Marks inside the app: a .wtrace with marks goes through the decode worker (the marks'
// columns packed into one transferred buffer), the selected warp's details list its marks,
// and the analysis panels show the phases panel from the analysis worker's table.
import { encodeWtrace, type Trace } from '../../shared-schema/index.js';
import '../../viewer/panels/index.js';
import type { WtPhasesPanel } from '../../viewer/panels/wt-phases-panel.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { assert, assertEqual } from './assert.js';
import { markedTrace } from './mark-fixtures.js';
import { mountApp, waitFor } from './viewer-helpers.js';

const blob = (t: Trace) => new Blob([encodeWtrace(t) as Uint8Array<ArrayBuffer>]);
const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
});

it('marks in the app: through the decode worker, in the warp details and the phases panel', async () => {
  const { trace, rows, draw } = markedTrace();
  app = await mountApp();
  const panels = document.createElement('wt-analysis-panels');
  panels.slot = 'panels';
  app.append(panels);
  assert(await app.openFile(blob(trace), 'marks.wtrace'), 'opens');
  await app.updateComplete;
  const marks = app.opened!.trace.marks!;
  assertEqual(marks.count, 6, 'six marks decoded');
  assertEqual(new Set([marks.warp.buffer, marks.id.buffer, marks.offsetNs.buffer, marks.sequence.buffer, marks.activeMask.buffer]).size, 1, 'columns share one buffer');
  assertEqual([...marks.offsetNs].join(), [...trace.marks!.offsetNs].join(), 'offsets survived the transfer');

  app.selectWarp(rows[1]);
  await app.updateComplete;
  const details = await waitFor('the warp details', () => app!.shadowRoot!.querySelector('wt-warp-details'));
  await details.updateComplete;
  const marksRows = [...details.shadowRoot!.querySelectorAll('table[data-table="marks"] tbody tr')].map((r) => text(r.querySelector('[data-cell="label"]')));
  assertEqual(marksRows.join(' / '), 'before trace #0 / after trace #0', 'the selected warp’s marks');

  const panel = await waitFor('the phases panel', () => panels.shadowRoot!.querySelector<WtPhasesPanel>('wt-phases-panel'));
  await waitFor('its rows for the selected warp’s draw', () => panel.shadowRoot!.querySelectorAll('table[data-table="phases"] tbody tr').length === 3);
  assert(text(panel.shadowRoot!.querySelector('.scope')).startsWith(`Draw ${draw}`), `scope: ${text(panel.shadowRoot!.querySelector('.scope'))}`);
});
