// Issue 14: the findings panel groups repetitions (collapsed beyond the first
// few), expands a group to its members, zooms to a member or a group, and keeps
// the groups below findingGroupMinShare behind "N more below 0.5% of the frame".
import { analyzeTrace } from '../../analysis/index.js';
import '../../viewer/panels/index.js';
import type { ZoomToDetail } from '../../viewer/panels/index.js';
import { barrierFrame } from '../node/barrier-frame.js';
import { assert, assertEqual } from './assert.js';

const summary = analyzeTrace(barrierFrame());

async function mountList() {
  const el = document.createElement('wt-findings-list');
  el.findings = summary.findings;
  el.groups = summary.findingGroups;
  el.minShare = summary.thresholds.findingGroupMinShare;
  document.body.appendChild(el);
  await el.updateComplete;
  return el;
}

it('findings panel: groups, expand to members, zoom, and the small ones behind a toggle', async () => {
  const el = await mountList();
  const root = el.shadowRoot!;
  const zooms: ZoomToDetail[] = [];
  const selected: string[] = [];
  el.addEventListener('wt-zoom-to', (e) => zooms.push(e.detail));
  el.addEventListener('wt-finding-select', (e) => selected.push((e as CustomEvent<{ finding: { id: string } }>).detail.finding.id));

  // 46 findings: 21 syncs, 22 leftovers, 2 caps, 1 small idle window.
  const groups = [...root.querySelectorAll('ul[aria-label="Findings"] > li')];
  assertEqual(groups.length, 4, 'four groups shown, the small idle window hidden');
  assertEqual(groups[0]!.getAttribute('data-group'), 'sync:all', 'the costliest first');
  assert(groups[0]!.textContent!.includes('21 GPU idle gaps between serialized draws'), 'the group line');
  assertEqual(groups[1]!.getAttribute('data-group'), 'leftover:FS', 'then the leftovers');
  assertEqual(root.querySelectorAll('li[data-kind="idle"]').length, 0, 'idle hidden');
  const more = root.querySelector('button.more') as HTMLButtonElement;
  assertEqual(more.textContent!.trim(), '1 more below 0.5% of the frame', 'the toggle');

  // The first groups of several are open, with their members.
  assertEqual(groups[0]!.getAttribute('aria-expanded'), 'true', 'syncs expanded');
  assertEqual(groups[0]!.querySelectorAll('li[data-id]').length, 21, 'the 21 syncs');

  // Collapse, then expand again.
  (groups[0]!.querySelector('button.expand') as HTMLButtonElement).click();
  await el.updateComplete;
  assertEqual(root.querySelector('li[data-group="sync:all"]')!.getAttribute('aria-expanded'), 'false', 'collapsed');
  assertEqual(root.querySelectorAll('li[data-group="sync:all"] li[data-id]').length, 0, 'members hidden');
  assertEqual(zooms.length, 0, 'expanding does not zoom');
  (root.querySelector('li[data-group="sync:all"] button.expand') as HTMLButtonElement).click();
  await el.updateComplete;
  assertEqual(root.querySelectorAll('li[data-group="sync:all"] li[data-id]').length, 21, 'expanded again');

  // A member zooms to itself, as a finding did before.
  const member = summary.findings.find((f) => f.kind === 'sync' && f.draw === 5)!;
  (root.querySelector(`li[data-id="${member.id}"]`) as HTMLElement).click();
  assertEqual(zooms.length, 1, 'one zoom for a member');
  assertEqual(zooms[0]!.startNs, member.startNs, 'member start');
  assertEqual(zooms[0]!.endNs, member.endNs, 'member end');
  assertEqual(selected.join(), member.id, 'the member selected');
  await el.updateComplete;
  assertEqual(root.querySelector(`li[data-id="${member.id}"]`)!.getAttribute('aria-selected'), 'true', 'member selected');

  // The group itself zooms to its whole range.
  const leftover = summary.findingGroups[1]!;
  (root.querySelector('li[data-group="leftover:FS"] .title') as HTMLElement).click();
  assertEqual(zooms.length, 2, 'one zoom for the group');
  assertEqual(zooms[1]!.startNs, leftover.startNs, 'group start');
  assertEqual(zooms[1]!.endNs, leftover.endNs, 'group end');
  assertEqual(zooms[1]!.sm, 0, 'all its members are on SM 0');

  // The toggle shows the small groups, and hides them again.
  more.click();
  await el.updateComplete;
  const idle = root.querySelector('li[data-kind="idle"]')!;
  assertEqual(idle.getAttribute('data-small'), 'true', 'the idle window, marked small');
  assert(root.querySelector('button.more')!.textContent!.includes('Hide the 1 below 0.5%'), 'toggle text');
  (root.querySelector('button.more') as HTMLButtonElement).click();
  await el.updateComplete;
  assertEqual(root.querySelectorAll('li[data-kind="idle"]').length, 0, 'hidden again');
  el.remove();
});

it('findings panel: groups of several beyond the first two start collapsed; without .groups it groups itself', async () => {
  const el = document.createElement('wt-findings-list');
  el.findings = summary.findings;
  document.body.appendChild(el);
  await el.updateComplete;
  const root = el.shadowRoot!;
  assertEqual([...root.querySelectorAll('li.group')].map((g) => g.getAttribute('data-group')).join(), 'sync:all,leftover:FS', 'grouped here');
  el.remove();
});
