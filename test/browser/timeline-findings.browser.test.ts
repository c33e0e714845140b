// Clicking a finding that names a warp (a stall's long TCS warp on the H100
// tessellation-stall sample) zooms to it, expands its collapsed lane, selects
// the warp (the warp details show it) and keeps it on screen.
import { setViewport } from '@web/test-runner-commands';
import { formatNs, smOfWarp } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { culpritWarp } from '../../viewer/model/finding-warp.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import '../../viewer/panels/index.js';
import type { Finding } from '../../analysis/summary.js';
import { assert, assertEqual } from './assert.js';
import { deepText, mountApp, waitFor } from './viewer-helpers.js';

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
});

async function sampleApp(file: string): Promise<WarptraceApp> {
  await setViewport({ width: 1600, height: 1000 });
  const a = await mountApp();
  a.style.width = '1600px';
  a.style.height = '1000px';
  const panels = document.createElement('wt-analysis-panels');
  panels.slot = 'panels';
  a.append(panels);
  const bytes = await (await fetch(`/samples/${file}`)).arrayBuffer();
  assert(await a.openFile(new Blob([bytes]), file), 'opens');
  await a.updateComplete;
  return a;
}

describe('findings reveal their warp', () => {
  it('a stall finding on the tess-stall sample selects its long warp, in an expanded lane, on screen', async () => {
    app = await sampleApp('h100-tess-stall.wtrace');
    const panels = app.querySelector('wt-analysis-panels')!;
    const list = await waitFor('the findings list', () => panels.shadowRoot?.querySelector('wt-findings-list') ?? null);
    const stalls = await waitFor('stall findings', () => {
      const f = (list.findings ?? []) as readonly Finding[];
      const s = f.filter((x) => x.kind === 'stall');
      return s.length > 0 ? s : null;
    });
    const finding = stalls[0]!;
    const o = app.opened!;
    const w = o.trace.warps;
    const tl = app.timeline!;
    await tl.ready();
    assert(finding.sm !== null, 'the stall is on one SM');
    assert(!tl.isExpanded(finding.sm), 'its lane starts collapsed');
    // The warp it names, read from its text: "… on SM 12, slot 3 (custom id 7) ran 85.1 µs, …".
    const slot = Number(/slot (\d+)/.exec(finding.detail)?.[1]);
    const customId = Number(/custom id (\d+)/.exec(finding.detail)?.[1]);
    const ran = /\) ran ([^,]+),/.exec(finding.detail)?.[1];
    const named: number[] = [];
    for (let i = 0; i < w.count; i++) {
      if (smOfWarp(w.smGroups, i) !== finding.sm || w.draw[i] !== finding.draw || w.warpSlot[i] !== slot || w.customId[i] !== customId) continue;
      if (formatNs(w.durationNs[i]!) === ran && w.startNs[i]! >= finding.startNs && w.startNs[i]! <= finding.endNs) named.push(i);
    }
    assertEqual(named.length, 1, `one warp fits "${finding.detail.slice(0, 120)}"`);
    const longest = named[0]!;
    assertEqual(culpritWarp(o.trace, o.index, finding), longest, 'the culprit is the warp the finding names');
    await list.updateComplete;
    const item = await waitFor('the finding in the list', () => {
      const el = list.shadowRoot!.querySelector(`li[data-id="${finding.id}"]`) as HTMLElement | null;
      if (el === null) (list.shadowRoot!.querySelector(`li[data-group^="stall"] button.expand`) as HTMLButtonElement | null)?.click();
      return el;
    });
    item.click();
    await app.updateComplete;
    await new Promise((r) => requestAnimationFrame(r));
    assertEqual(app.selectedWarp, longest, 'the long warp is selected');
    assert(tl.isExpanded(finding.sm), 'its lane is expanded');
    const details = app.shadowRoot!.querySelector('wt-warp-details')!;
    await details.updateComplete;
    assert(deepText(details).includes(`Warp #${longest}`), `warp details show it: ${deepText(details).slice(0, 80)}`);
    // On screen: its time inside the view, its slot row inside the lane area.
    const v = tl.visibleWindow;
    const s = w.startNs[longest]!;
    assert(s + w.durationNs[longest]! > v.startNs && s < v.endNs, 'in the time window');
    const lane = tl.laneLayout.rows.find((r) => r.expanded && r.sm === finding.sm)!;
    const slotRow = tl.laneLayout.rows.indexOf(lane);
    assert(slotRow >= 0, 'lane laid out');
    const y = lane.y + lane.headerHeight + w.warpSlot[longest]! * lane.slotRowHeight - tl.verticalScroll;
    assert(y >= 0 && y + lane.slotRowHeight <= tl.screenLayout.lanes.height, `slot row on screen: y ${y.toFixed(0)} of ${tl.screenLayout.lanes.height}`);
    // And the bar under it is the warp: hit testing at its middle finds it.
    const x = tl.screenLayout.gutter + ((s + w.durationNs[longest]! / 2 - v.startNs) / (v.endNs - v.startNs)) * timeWidth(tl.screenLayout);
    assertEqual(tl.warpAtPoint(x, tl.screenLayout.lanes.y + y + lane.slotRowHeight / 2 + 2), longest, 'drawn where it is said to be');
  });
});
