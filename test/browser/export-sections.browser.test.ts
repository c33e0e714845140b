// The export buttons with a trace that has a block profile and marks: the
// summary the analysis worker makes has no block section (the worker gets no
// block profile), so the buttons add it from the trace; the section CSVs get
// buttons; the Perfetto trace nests the phases. A trace without them gets none.
import { analyzeTrace } from '../../analysis/index.js';
import { phaseTable } from '../../analysis/marks.js';
import { synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import '../../viewer/panels/index.js';
import type { ExportDetail, WtExportButtons } from '../../viewer/panels/index.js';
import { assert, assertEqual } from './assert.js';
import { BLOCK_PROFILE } from './block-fixtures.js';
import { markedTrace } from './mark-fixtures.js';
import { waitFor } from './viewer-helpers.js';

/** The marks fixture's trace with the block profile fixture on its draws 0 and 1 (1 GHz SM clock: ticks read as ns). */
function sectionTrace(): Trace {
  const { trace } = markedTrace();
  return { ...trace, device: { ...trace.device, clocks: { ...trace.device.clocks, smClock: true, smClockRateHz: 1e9 } }, blocks: BLOCK_PROFILE };
}

async function mount(props: Partial<WtExportButtons>): Promise<WtExportButtons> {
  const el = document.createElement('wt-export-buttons');
  Object.assign(el, props);
  document.body.appendChild(el);
  await el.updateComplete;
  return el;
}

const formats = (el: WtExportButtons) => [...el.shadowRoot!.querySelectorAll('button')].map((b) => b.dataset['format']);

async function exportAll(el: WtExportButtons, wanted: readonly string[]): Promise<Map<string, Blob>> {
  const got = new Map<string, Blob>();
  el.addEventListener('wt-export', (e: CustomEvent<ExportDetail>) => {
    got.set(e.detail.format, e.detail.blob);
    e.preventDefault();
  });
  for (const f of wanted) (el.shadowRoot!.querySelector(`button[data-format="${f}"]`) as HTMLButtonElement).click();
  await waitFor(`${wanted.length} exports`, () => got.size === wanted.length);
  return got;
}

it('a trace with blocks and marks: section buttons, sections added to a summary made without the block profile', async () => {
  const trace = sectionTrace();
  const summary = analyzeTrace({ ...trace, blocks: null });
  assertEqual(summary.blocks, undefined, 'the worker-like summary has no block section');
  const el = await mount({ summary, trace, fileName: 'f' });
  const shown = formats(el);
  assert(shown.includes('blocks-csv') && shown.includes('phases-csv') && !shown.includes('rays-csv'), shown.join(' '));
  const blobs = await exportAll(el, ['summary-json', 'blocks-csv', 'phases-csv', 'markdown', 'perfetto']);

  const json = JSON.parse(await blobs.get('summary-json')!.text());
  assertEqual(json.blocks.draws.length, 2, 'both profiled draws');
  assertEqual(JSON.stringify(json.phases), JSON.stringify(phaseTable(trace, { draws: null, stage: null })), 'the phase table');
  // Draw 0's hottest line, worked out in block-fixtures.ts: shade.frag:5 (blocks 1, 2), 5 000 ticks, 50.0%, 100 executions, SIMT 50%.
  const [header, first] = (await blobs.get('blocks-csv')!.text()).split('\n').map((line) => line.split(','));
  const cell = (name: string) => first![header!.indexOf(name)];
  assertEqual([cell('scope'), cell('draw'), cell('rank'), cell('file'), cell('line'), cell('blocks')].join(' '), 'draw 0 1 shade.frag 5 1 2', 'the hottest line');
  assertEqual([cell('ticks'), cell('tick_share'), cell('executions'), cell('simt_efficiency'), cell('ns')].join(' '), '5000 0.5 100 0.5 5000', 'its numbers');
  const phases = (await blobs.get('phases-csv')!.text()).split('\n');
  assert(phases[0]!.startsWith('draw,stage,from,to,phase,') && phases.length === 3 + 2, `three phases: ${phases.length}`);
  const md = await blobs.get('markdown')!.text();
  assert(md.includes('\n## Block profile\n') && md.includes('\n## Phases\n'), 'the report has both sections');
  // The Perfetto trace names the phase slices as the phases panel does.
  const bytes = new Uint8Array(await blobs.get('perfetto')!.arrayBuffer());
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  assert(text.includes('start → before trace #0') && text.includes('after trace #0 → end'), 'phase names in the protobuf');
});

it('a trace without them: no section buttons, the summary JSON without sections', async () => {
  const trace = synthesizeTrace({ warps: 3000, seed: 2 });
  const summary = analyzeTrace(trace);
  const el = await mount({ summary, trace, fileName: 'g' });
  const shown = formats(el);
  assert(!shown.some((f) => f === 'blocks-csv' || f === 'phases-csv' || f === 'rays-csv'), shown.join(' '));
  const json = JSON.parse(await (await exportAll(el, ['summary-json'])).get('summary-json')!.text());
  assert(!('blocks' in json) && !('phases' in json) && !('rays' in json), 'no sections');
});
