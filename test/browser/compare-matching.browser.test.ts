// The A/B panel pairs draws by label and pass (analysis/draw-match.ts), says how
// each pair was matched and how sure, and lists the draws of one trace only: on the 2,000-draw
// pass frame with a draw inserted, one removed and one made 3× longer.
import { analyzeTrace } from '../../analysis/analyze.js';
import '../../viewer/panels/index.js';
import { editFrame } from '../node/frame-edits.js';
import { passFrameTrace } from '../node/pass-frame.js';
import { assert, assertEqual } from './assert.js';

it('the compare panel shows each pair\'s match and the draws only in A or B', async () => {
  const a = passFrameTrace();
  const n = a.draws.length;
  const order: (number | { label: string; like: number })[] = [...Array(n).keys()].filter((d) => d !== 1500);
  order.splice(3, 0, { label: 'Shadows/CSM0 inserted_probe', like: 3 });
  const b = editFrame(a, { draws: order, stretch: new Map([[300, 3]]) });
  const el = document.createElement('wt-compare-panel');
  Object.assign(el, { a: analyzeTrace(a), b: analyzeTrace(b), traceA: a, traceB: b, labelA: 'before', labelB: 'after' });
  document.body.append(el);
  try {
    await el.updateComplete;
    const root = el.shadowRoot!;
    // Draw 300 of A is draw 301 of B (one inserted before it): paired by label and pass, its span change shown.
    const row = root.querySelector('table[data-table="draws"] tr[data-draw="301"]') as HTMLTableRowElement | null;
    assert(row !== null, 'the stretched draw is among the largest changes');
    assertEqual(row.dataset.matched, 'label-pass', 'matched by label and pass');
    assert(row.textContent!.includes('300 → 301'), `A's and B's index: ${row.textContent}`);
    assert(row.querySelector('td.matched')!.textContent === 'label, pass', 'says how');
    assert(row.querySelector('td.bad') !== null, 'longer is bad');
    // Matched by index, the table would have compared draw 301 of B with draw 301 of A: no change there.
    const onlyB = [...root.querySelectorAll('ul[data-list="only-b"] li')].map((li) => li.textContent!.trim());
    const onlyA = [...root.querySelectorAll('ul[data-list="only-a"] li')].map((li) => li.textContent!.trim());
    assertEqual(onlyB.join('|'), '#3 Shadows/CSM0 inserted_probe', 'the inserted draw');
    assertEqual(onlyA.join('|'), `#1500 ${a.draws[1500]!.label}`, 'the removed draw');
    const note = root.querySelector('[data-matching]')!.textContent!.replace(/\s+/g, ' ');
    assert(note.includes('1,999 by label, pass'), note);
    const rows = root.querySelectorAll('table[data-table="draws"] tbody tr[data-draw]');
    assertEqual(rows.length, 1, 'only the stretched draw changed its span');
    assertEqual(row.dataset.confidence, 'strong', 'a strong pair');
  } finally {
    el.remove();
  }
});
