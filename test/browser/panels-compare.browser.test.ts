// A/B in the viewer: keep one trace's summary as the baseline, open another,
// and the compare panel shows the deltas between them.
import { assert } from './assert.js';
import { waitFor } from './viewer-helpers.js';
import { synthesizeTrace } from '../../shared-schema/index.js';
import '../../viewer/panels/index.js';
import type { WtAnalysisPanels } from '../../viewer/panels/wt-analysis-panels.js';

let panels: WtAnalysisPanels | null = null;
afterEach(() => {
  panels?.remove();
  panels = null;
});

function button(root: ShadowRoot, label: RegExp): HTMLButtonElement {
  const found = [...root.querySelectorAll('button')].find((b) => label.test(b.textContent ?? ''));
  assert(found, `a button ${label}`);
  return found;
}

it('use a trace as baseline A, open trace B: the compare panel shows both and their deltas', async () => {
  panels = document.createElement('wt-analysis-panels');
  document.body.append(panels);
  panels.fileName = 'before';
  panels.trace = synthesizeTrace({ warps: 4000, seed: 1 });
  await waitFor('analysis of A', () => panels!.summary);
  await panels.updateComplete;
  button(panels.shadowRoot!, /baseline/).click();
  await panels.updateComplete;
  assert(panels.shadowRoot!.textContent!.includes('Baseline A: before'), 'A is kept');

  panels.fileName = 'after';
  panels.trace = synthesizeTrace({ warps: 6000, seed: 2 });
  await waitFor('analysis of B', () => (panels!.summary?.trace.warps === 6000 ? panels!.summary : null));
  await panels.updateComplete;
  // The comparison comes a task after the panels (its own task: it pairs every draw).
  const compare = await waitFor('the compare panel', () => panels!.shadowRoot!.querySelector('wt-compare-panel'));
  await compare.updateComplete;
  assert(compare.a?.trace.warps === 4000 && compare.b?.trace.warps === 6000, 'A and B are the two traces');
  const text = compare.shadowRoot!.textContent ?? '';
  assert(/before/.test(text) && /after/.test(text), `labels shown: ${text.slice(0, 200)}`);
  assert(/%/.test(text), 'deltas shown');

  button(panels.shadowRoot!, /Clear baseline/).click();
  await panels.updateComplete;
  assert(panels.shadowRoot!.querySelector('wt-compare-panel') === null, 'cleared');
});
