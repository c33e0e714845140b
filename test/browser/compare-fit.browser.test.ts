// The A/B panel in the analysis column on the game-like frame (2,025 draws, long
// labels without spaces, long file names) at 1280x720, 1600x1000 and 2560x1440
// (and with the column dragged to its narrowest, where warp-time changes give way):
// every table fits the column (a draw's label wrapped to two lines, whole in its
// title), the largest changes lead with the draw made 3× longer, paired by pass and
// order although every mesh was renamed, and a draw of the pass where B inserted
// one (a weak pair) is listed apart.
import { setViewport } from '@web/test-runner-commands';
import { encodeWtrace, type Trace } from '../../shared-schema/index.js';
import { SIDE_LIMITS } from '../../viewer/components/side-columns.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import '../../viewer/panels/index.js';
import type { WtAnalysisPanels } from '../../viewer/panels/wt-analysis-panels.js';
import { GAME_DRAWS, gameFrameTrace } from '../node/ab-game-frame.js';
import { editFrame } from '../node/frame-edits.js';
import { assert, assertEqual } from './assert.js';
import { mountApp, waitFor } from './viewer-helpers.js';

/** Window sizes, and the analysis column's width where it is not the default (the narrowest it can be dragged to). */
const SIZES: readonly (readonly [number, number, number?])[] = [
  [1280, 720],
  [1600, 1000],
  [2560, 1440],
  [1600, 1000, SIDE_LIMITS.right.min],
];
const NAME_A = 'game-frame-before-the-terrain-streaming-change-capture-1.wtrace';
const NAME_B = 'game-frame-after-the-terrain-streaming-change-capture-2.wtrace';
/** A Particles draw made 3× longer; a GBuffer/Static draw after which B inserts one, and a draw of that pass made 2× longer. */
const STRETCHED = 1480;
const INSERTED_AFTER = 600;
const IN_EDITED_PASS = 590;

function blob(trace: Trace): Blob {
  return new Blob([encodeWtrace(trace) as Uint8Array<ArrayBuffer>]);
}

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
  localStorage.removeItem('warptrace.sideColumns');
});

describe('the compare panel fits its column', () => {
  const a = gameFrameTrace();
  const order: (number | { label: string; like: number })[] = [...Array(GAME_DRAWS).keys()];
  order.splice(INSERTED_AFTER + 1, 0, { label: 'Assets/Environment/GBuffer/Static/Debug_Probe_Sphere/LOD0/Debug_Probe_Sphere_Mesh', like: INSERTED_AFTER });
  const b = editFrame(gameFrameTrace({ namesSeed: 2 }), { draws: order, stretch: new Map([[STRETCHED, 3], [IN_EDITED_PASS, 2]]) });

  for (const [width, height, columnPx] of SIZES) {
    it(`at ${width}×${height}${columnPx === undefined ? '' : `, the column ${columnPx} px`}`, async () => {
      await setViewport({ width, height });
      if (columnPx !== undefined) localStorage.setItem('warptrace.sideColumns', JSON.stringify({ right: { width: columnPx, collapsed: false } }));
      app = await mountApp();
      app.style.width = `${width}px`;
      app.style.height = `${height}px`;
      const panels = document.createElement('wt-analysis-panels') as WtAnalysisPanels;
      panels.slot = 'panels';
      app.append(panels);
      assert(await app.openFile(blob(a), NAME_A), 'A opens');
      const useAsA = await waitFor('"Use as baseline"', () => [...panels.shadowRoot!.querySelectorAll('button')].find((x) => /Use as baseline/.test(x.textContent ?? '')));
      useAsA.click();
      assert(await app.openFile(blob(b), NAME_B), 'B opens');
      const compare = await waitFor('the compare panel', () => panels.shadowRoot!.querySelector('wt-compare-panel'));
      await compare.updateComplete;
      const root = compare.shadowRoot!;

      const column = app.shadowRoot!.querySelector('aside.panels')!;
      const box = column.getBoundingClientRect();
      // The default column is narrower in a small window (it gives the timeline room): 346 px at 1280×720.
      assert(columnPx === undefined ? box.width > SIDE_LIMITS.right.min + 40 : Math.abs(box.width - columnPx) < 2, `the column is ${box.width} px`);
      // The panel, not the column: the column's other panels are theirs to fit.
      const panel = compare.getBoundingClientRect();
      assert(panel.left >= box.left - 0.5 && panel.right <= box.right + 0.5, `the panel ${panel.left.toFixed(0)}…${panel.right.toFixed(0)} inside the column`);
      assert(compare.scrollWidth <= compare.clientWidth + 1, `the panel's content: ${compare.scrollWidth} px in ${compare.clientWidth} px`);
      for (const table of root.querySelectorAll('table')) {
        const r = table.getBoundingClientRect();
        assert(r.left >= box.left - 0.5 && r.right <= box.right + 0.5, `${table.dataset.table}: ${r.left.toFixed(0)}…${r.right.toFixed(0)} inside ${box.left.toFixed(0)}…${box.right.toFixed(0)}`);
        for (const cell of table.querySelectorAll('th, td')) {
          const c = cell.getBoundingClientRect();
          assert(c.right <= r.right + 0.5, `${table.dataset.table}: "${cell.textContent!.trim().slice(0, 30)}" ends at ${c.right.toFixed(0)}, past the table's ${r.right.toFixed(0)}`);
        }
      }

      // The largest change: B's draw 1481 (one inserted before it) is A's 1480, paired by order under another name.
      const first = root.querySelector<HTMLTableRowElement>('table[data-table="draws"] tbody tr[data-draw]')!;
      assertEqual(first.dataset.draw, String(STRETCHED + 1), 'the stretched draw leads');
      assertEqual(first.dataset.matched, 'order', 'paired by pass and order');
      assertEqual(first.dataset.confidence, 'strong', 'a strong pair');
      assert(first.textContent!.includes(`${STRETCHED} → ${STRETCHED + 1}`), first.textContent!);
      for (const row of root.querySelectorAll<HTMLTableRowElement>('table[data-table="draws"] tr[data-draw]')) assertEqual(row.dataset.confidence, 'strong', `row ${row.dataset.draw}`);
      // Its label row: wrapped to the column and cut after two lines, whole (B's and A's names) in the title.
      const label = first.previousElementSibling!.querySelector('td')!;
      const text = label.querySelector('div')!;
      const lineHeight = parseFloat(getComputedStyle(text).lineHeight);
      assert(Math.abs(text.clientHeight - 2 * lineHeight) < 1, `two lines shown: ${text.clientHeight} px of ${lineHeight} px lines`);
      assert(text.scrollHeight > text.clientHeight + 1, `the rest is cut: ${text.scrollHeight} px in ${text.clientHeight} px`);
      assert(text.scrollWidth <= text.clientWidth, `no line runs past the column: ${text.scrollWidth} px in ${text.clientWidth} px`);
      assert(label.title.includes(b.draws[STRETCHED + 1]!.label) && label.title.includes(a.draws[STRETCHED]!.label), label.title);

      // The draw of the pass with the insertion: a weak pair, listed apart.
      const weak = [...root.querySelectorAll<HTMLTableRowElement>('table[data-table="weak-draws"] tr[data-draw]')];
      assert(weak.some((row) => row.dataset.draw === String(IN_EDITED_PASS)), `the edited pass's longer draw among the weak pairs: ${weak.map((r) => r.dataset.draw).join(', ')}`);
      assert(weak.every((row) => row.dataset.confidence === 'weak'), 'only weak pairs there');
      const highlights = [...root.querySelectorAll('ul.highlights li')].map((li) => li.textContent!);
      const draws = highlights.filter((h) => /\bDraw \d+/.test(h));
      assert(draws[0]!.startsWith(`Draw ${STRETCHED + 1} "`), `the highlights lead with the stretched draw: ${highlights.join(' | ')}`);
      assert(draws.slice(1).every((h) => h.startsWith('Weak pair')), `then only weak pairs, marked: ${highlights.join(' | ')}`);
    });
  }
});
