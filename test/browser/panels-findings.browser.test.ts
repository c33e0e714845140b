// Issue 14: the findings panel groups repetitions (collapsed beyond the first
// few), expands a group to its members, zooms to a member or a group, and keeps
// the groups below findingGroupMinShare behind "N more below 0.5% of the frame".
// Issue 24: it lists the first SHOWN_GROUPS groups and SHOWN_MEMBERS members of the
// open group, each behind a count to expand, and the selected item says what to do.
import { analyzeTrace } from '../../analysis/index.js';
import '../../viewer/panels/index.js';
import type { ZoomToDetail } from '../../viewer/panels/index.js';
import { SHOWN_GROUPS, SHOWN_MEMBERS } from '../../viewer/panels/wt-findings-list.js';
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
  let groups = [...root.querySelectorAll('ul[aria-label="Findings"] > li')];
  assertEqual(groups.length, SHOWN_GROUPS, 'the first groups shown');
  const moreGroups = root.querySelector('button.more-groups') as HTMLButtonElement;
  const rest = summary.findingGroups.filter((g) => !g.hidden).slice(SHOWN_GROUPS).reduce((n, g) => n + g.count, 0);
  assertEqual(moreGroups.textContent!.trim(), `${4 - SHOWN_GROUPS} more group (${rest} finding${rest === 1 ? '' : 's'})`, 'the rest behind a count');
  moreGroups.click();
  await el.updateComplete;
  groups = [...root.querySelectorAll('ul[aria-label="Findings"] > li')];
  assertEqual(groups.length, 4, 'four groups shown, the small idle window hidden');
  assertEqual(groups[0]!.getAttribute('data-group'), 'sync:all', 'the costliest first');
  assert(groups[0]!.textContent!.includes('21 GPU idle gaps between serialized draws'), 'the group line');
  assertEqual(groups[1]!.getAttribute('data-group'), 'leftover:FS', 'then the leftovers');
  assertEqual(root.querySelectorAll('li[data-kind="idle"]').length, 0, 'idle hidden');
  const more = root.querySelector('button.more-small') as HTMLButtonElement;
  assertEqual(more.textContent!.trim(), '1 more below 0.5% of the frame', 'the toggle');

  // The first group of several is open, with its first members and the rest behind a count.
  assertEqual(groups[0]!.getAttribute('aria-expanded'), 'true', 'syncs expanded');
  assertEqual(groups[1]!.getAttribute('aria-expanded'), 'false', 'the leftovers collapsed');
  assertEqual(groups[0]!.querySelectorAll('li[data-id]').length, SHOWN_MEMBERS, 'the first syncs');
  const allSyncs = groups[0]!.querySelector('button.more-members') as HTMLButtonElement;
  assertEqual(allSyncs.textContent!.trim(), `Show all 21 (${21 - SHOWN_MEMBERS} more)`, 'the other syncs behind a count');
  allSyncs.click();
  await el.updateComplete;
  assertEqual(groups[0]!.querySelectorAll('li[data-id]').length, 21, 'the 21 syncs');
  assertEqual(zooms.length, 0, 'showing members does not zoom');

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
  const chosen = root.querySelector(`li[data-id="${member.id}"]`)!;
  assertEqual(chosen.getAttribute('aria-selected'), 'true', 'member selected');
  assert(chosen.querySelector('.detail')!.textContent!.includes(member.detail), 'the selected finding shows its detail');
  assert(member.remedy !== null && chosen.querySelector('.remedy')!.textContent!.includes(member.remedy), 'and what to do');
  assert(member.remedy!.includes(`draw ${member.draw}`), `the sync's remedy names its draws: ${member.remedy}`);

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
  assert(root.querySelector('button.more-small')!.textContent!.includes('Hide the 1 below 0.5%'), 'toggle text');
  (root.querySelector('button.more-small') as HTMLButtonElement).click();
  await el.updateComplete;
  assertEqual(root.querySelectorAll('li[data-kind="idle"]').length, 0, 'hidden again');
  el.remove();
});

it('findings panel: groups of several beyond the first start collapsed; without .groups it groups itself', async () => {
  const el = document.createElement('wt-findings-list');
  el.findings = summary.findings;
  document.body.appendChild(el);
  await el.updateComplete;
  const root = el.shadowRoot!;
  assertEqual([...root.querySelectorAll('li.group')].map((g) => g.getAttribute('data-group')).join(), 'sync:all,leftover:FS', 'grouped here');
  el.remove();
});
