// A sampled trace in the viewer (issue 25): the header shows a "Sampled"
// badge with the rates and how they were chosen, the sampled stage's chip
// says its lanes hold 1 in N of its warps, and the stats panel marks the
// estimated figures and lists what is withheld and why. The trace is
// h100-aqt-positions cut to 1 FS warp in 8 with the capture's own hash.
import { analyzeTrace } from '../../analysis/index.js';
import { decodeTrace, encodeWtrace, type Trace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import '../../viewer/panels/index.js';
import { sampledTrace } from '../node/sampled-trace.js';
import { assert } from './assert.js';
import { mountApp, waitFor } from './viewer-helpers.js';

let app: WarptraceApp | null = null;
let full: Trace | null = null;
let sampled: Trace | null = null;
before(async () => {
  full = decodeTrace(new Uint8Array(await (await fetch(new URL('../../samples/h100-aqt-positions.wtrace', import.meta.url))).arrayBuffer()));
  sampled = sampledTrace(full, { FS: 8 }, { chosenBy: 'budget', budget: 1.1 });
});
afterEach(() => {
  app?.remove();
  app = null;
  document.querySelectorAll('wt-stats-panel').forEach((e) => e.remove());
});

async function open(trace: Trace, name: string): Promise<ShadowRoot> {
  app = await mountApp();
  await app.openFile(new Blob([encodeWtrace(trace) as Uint8Array<ArrayBuffer>]), name);
  await waitFor(name, () => app!.opened?.name === name);
  await app.updateComplete;
  return app.shadowRoot!;
}

describe('a sampled trace in the viewer', () => {
  it('the header shows the Sampled badge with the rates and how chosen; the FS chip says its lanes show 1 in 8', async () => {
    const root = await open(sampled!, 'sampled.wtrace');
    const badge = root.querySelector('.title [data-sampled]');
    assert(badge !== null, 'a sampled badge');
    assert(badge.textContent!.includes('Sampled: FS 1 in 8, other stages all (chosen by --budget 1.10)'), badge.textContent!);
    assert(badge.getAttribute('title')!.includes('withheld'), 'the tooltip says what is withheld');
    const chips = [...root.querySelectorAll('.chips .chip')];
    const fs = chips.find((c) => c.textContent!.includes('FS'))!;
    assert(fs.textContent!.includes('1/8') && fs.getAttribute('title')!.includes('1 in 8'), fs.outerHTML);
    const tes = chips.find((c) => c.textContent!.includes('TES'))!;
    assert(!tes.textContent!.includes('1/'), 'an unsampled stage has no rate');
    app!.remove();
    const plain = await open(full!, 'full.wtrace');
    assert(plain.querySelector('[data-sampled]') === null, 'a full trace has no badge');
  });

  it('the stats panel marks FS figures as estimates and says what is withheld', async () => {
    const summary = analyzeTrace(sampled!);
    const el = document.createElement('wt-stats-panel') as HTMLElement & { summary: unknown; updateComplete: Promise<boolean> };
    el.summary = summary;
    document.body.append(el);
    await el.updateComplete;
    const root = el.shadowRoot!;
    const note = root.querySelector('[data-sampling]');
    assert(note !== null && note.textContent!.includes('FS 1 in 8'), 'the sampling note');
    assert(root.querySelector('[data-withheld="idle"]')!.textContent!.includes('idle time needs every warp'), 'idle withheld with its reason');
    const rows = [...root.querySelectorAll('table[data-table="stages"] tbody tr')];
    const fsRow = rows.find((r) => r.textContent!.includes('FS'))!;
    const tesRow = rows.find((r) => r.textContent!.includes('TES'))!;
    assert(fsRow.querySelectorAll('.estimate').length === 2, 'FS warps and warp-time marked ≈');
    assert(tesRow.querySelector('.estimate') === null, 'TES is exact');
    assert(root.querySelector('.overview')!.textContent!.includes('busy time withheld'), 'busy time withheld');
  });
});
