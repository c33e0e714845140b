/**
 * Finding groups: repetitions of one kind and one cause merged into one line
 * with a count and totals ("22 GPU idle gaps between draws (driver syncs?),
 * 7.4 µs each (median), 163 µs total (2.1% of the frame)"), ranked by their
 * share of the frame. The members stay in `findings[]` (ids in `findingIds`).
 *
 * Grouping key per kind:
 * - sync: one group of all syncs ("all");
 * - idle: "inside-draw" (the warps at the window's edges are of one draw) or
 *   "between-draws" (they are of different draws, with draws open);
 * - leftover, stall, occupancy-cap: per stage (the finding's stage, or "mixed"
 *   when its warps are of several stages).
 *
 * A group whose total is below `findingGroupMinShare` of the frame is
 * `hidden` (listed after the others, shown on request); occupancy caps are
 * observations without a cost and are never hidden.
 */
import { formatNs, formatShare } from './format.js';
import type { Finding, FindingGroup, FindingKind, IdleWindow } from './summary.js';

/** The grouping key of a finding (see above); idle windows say whether an idle finding is inside a draw. */
export function findingGroupKey(f: Finding, idleWindows: readonly IdleWindow[] = []): string {
  switch (f.kind) {
    case 'sync':
      return 'all';
    case 'idle': {
      const win = idleWindows.find((w) => `idle-${w.after.row}` === f.id);
      return win !== undefined && win.before.draw !== win.after.draw ? 'between-draws' : 'inside-draw';
    }
    default:
      return f.stage ?? 'mixed';
  }
}

const KIND_ORDER: readonly FindingKind[] = ['sync', 'idle', 'leftover', 'stall', 'occupancy-cap'];

/** Groups `findings` (any order), costliest group first, the hidden ones (below minShare of the frame) last. */
export function groupFindings(
  findings: readonly Finding[],
  options: { readonly minShare: number; readonly idleWindows?: readonly IdleWindow[] },
): FindingGroup[] {
  const byKey = new Map<string, Finding[]>();
  for (const f of findings) {
    const id = `${f.kind}:${findingGroupKey(f, options.idleWindows)}`;
    const members = byKey.get(id);
    if (members === undefined) byKey.set(id, [f]);
    else members.push(f);
  }
  const groups: FindingGroup[] = [];
  for (const [id, unsorted] of byKey) {
    const members = [...unsorted].sort((a, b) => b.costNs - a.costNs || a.startNs - b.startNs);
    const first = members[0]!;
    const key = id.slice(first.kind.length + 1);
    const totalNs = members.reduce((sum, m) => sum + m.costNs, 0);
    const costs = members.map((m) => m.costNs).sort((a, b) => a - b);
    const medianNs = costs[Math.ceil(costs.length / 2) - 1]!;
    const shareOfFrame = members.reduce((sum, m) => sum + m.shareOfFrame, 0);
    const stages = [...new Set(members.map((m) => m.stage))];
    const draws = [...new Set(members.map((m) => m.draw))];
    const sms = [...new Set(members.map((m) => m.sm))];
    groups.push({
      id,
      kind: first.kind,
      key,
      title: members.length === 1 ? first.title : groupTitle(first.kind, key, members.length, medianNs, totalNs, shareOfFrame),
      count: members.length,
      totalNs,
      medianNs,
      maxNs: costs[costs.length - 1]!,
      shareOfFrame,
      startNs: Math.min(...members.map((m) => m.startNs)),
      endNs: Math.max(...members.map((m) => m.endNs)),
      sm: sms.length === 1 ? sms[0]! : null,
      draw: draws.length === 1 ? draws[0]! : null,
      stage: stages.length === 1 ? stages[0]! : null,
      reliable: members.every((m) => m.reliable),
      hidden: first.kind !== 'occupancy-cap' && shareOfFrame < options.minShare,
      findingIds: members.map((m) => m.id),
      remedy: first.remedy ?? null,
    });
  }
  const rank = (g: FindingGroup) => (g.hidden ? 1 : 0);
  return groups.sort(
    (a, b) => rank(a) - rank(b) || b.totalNs - a.totalNs || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.startNs - b.startNs,
  );
}

function groupTitle(kind: FindingKind, key: string, n: number, medianNs: number, totalNs: number, share: number): string {
  const cost = `${formatNs(medianNs)} each (median), ${formatNs(totalNs)} total (${formatShare(share)} of the frame)`;
  const stage = key === 'mixed' ? '' : `${key} `;
  switch (kind) {
    case 'sync':
      return `${n} GPU idle gaps between serialized draws (driver syncs? barriers between passes?), ${cost}`;
    case 'idle':
      return `${n} idle windows ${key === 'between-draws' ? 'between draws, with draws open' : 'inside draws'} (no warp ran), ${cost}`;
    case 'leftover':
      return `${n} draws end with leftover ${stage}warps, ${cost}`;
    case 'stall':
      return `${n} stalls on long ${stage}warps, ${cost}`;
    case 'occupancy-cap':
      return `${n} ${stage}occupancy caps`;
  }
}

/** The members of `group`, in its order. */
export function groupMembers(group: FindingGroup, findings: readonly Finding[]): Finding[] {
  const byId = new Map(findings.map((f) => [f.id, f]));
  return group.findingIds.flatMap((id) => byId.get(id) ?? []);
}
