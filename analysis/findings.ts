/**
 * Findings: the detectors' results as one list of plain-text items, each
 * with the time range (and SM) to zoom to and the GPU time at stake,
 * largest cost first. Titles and details are plain text: renderers escape.
 */
import { UNKNOWN_SLOT, UNKNOWN_SM, type DrawInfo } from '../shared-schema/model.js';
import { formatNs, formatNumber, formatShare, smLabel, smsLabel } from './format.js';
import { groupStalls } from './stalls.js';
import type { Finding, Leftover, OccupancyCap, Stall, StageSummary, SyncGap } from './summary.js';

export interface FindingInputs {
  readonly draws: readonly DrawInfo[];
  readonly frameSpanNs: number;
  readonly syncs: readonly SyncGap[];
  readonly syncTotalNs: number;
  readonly syncsReliable: boolean;
  readonly leftovers: readonly Leftover[];
  readonly stalls: readonly Stall[];
  readonly caps: readonly OccupancyCap[];
  readonly stages: readonly StageSummary[];
  readonly maxPerKind: number;
  /** thresholds.leftoverMinNs: least exposed (not hidden) tail for a finding. */
  readonly leftoverMinNs: number;
  /** thresholds.stallOccupancyShare, for the stall text. */
  readonly stallOccupancyShare: number;
}

export function drawName(draws: readonly DrawInfo[], index: number): string {
  const label = draws[index]?.label ?? '';
  const short = label.length > 40 ? `${label.slice(0, 39)}…` : label;
  return short === '' || short === `draw ${index}` ? `draw ${index}` : `draw ${index} "${short}"`;
}

export function buildFindings(input: FindingInputs): Finding[] {
  const share = (ns: number) => (input.frameSpanNs > 0 ? ns / input.frameSpanNs : 0);
  const pick = <T>(items: readonly T[], cost: (t: T) => number): T[] =>
    [...items].sort((a, b) => cost(b) - cost(a)).slice(0, input.maxPerKind);
  const findings: Finding[] = [];

  for (const g of pick(input.syncs, (s) => s.gapNs)) {
    findings.push({
      id: `sync-${g.beforeDraw}`,
      kind: 'sync',
      title: `GPU idle ${formatNs(g.gapNs)} before ${drawName(input.draws, g.beforeDraw)}: serialized draws (driver sync?)`,
      detail:
        `${capitalize(drawName(input.draws, g.beforeDraw))} started only after every earlier draw had drained ` +
        `(the last to finish was ${drawName(input.draws, g.afterDraw)}); no warp ran on any SM for ${formatNs(g.gapNs)}. ` +
        `All such gaps cost ${formatNs(input.syncTotalNs)} (${formatShare(share(input.syncTotalNs))} of the frame).`,
      startNs: g.startNs,
      endNs: g.endNs,
      sm: null,
      draw: g.beforeDraw,
      stage: null,
      costNs: g.gapNs,
      shareOfFrame: share(g.gapNs),
      reliable: input.syncsReliable,
    });
  }

  // A tail hidden behind other draws costs nothing: only exposed tails become findings.
  const exposedLeftovers = input.leftovers.filter((x) => x.tailNs - x.overlappedNs >= input.leftoverMinNs);
  for (const l of pick(exposedLeftovers, (x) => x.tailNs - x.overlappedNs)) {
    const stages = [...new Set(l.tailWarps.map((t) => t.stage))].join('/');
    const sms = [...new Set(l.tailWarps.map((t) => t.sm))];
    const first = l.tailWarps[0]!;
    const exposed = Math.max(0, l.tailNs - l.overlappedNs);
    const who =
      l.warps === 1
        ? `1 warp (${first.stage} on ${where(first.sm, first.warpSlot)}, custom id ${first.customId})`
        : `${l.warps} warps (${stages} on ${smsLabel(sms)})`;
    findings.push({
      id: `leftover-${l.draw}`,
      kind: 'leftover',
      title: `${capitalize(drawName(input.draws, l.draw))}: ${l.warps} leftover ${stages} warp${l.warps === 1 ? '' : 's'} for ${formatNs(l.tailNs)} (${formatShare(l.shareOfDraw)} of the draw)`,
      detail:
        `After the rest of the draw finished, ${who} ran ${formatNs(l.tailNs)} longer. ` +
        (l.overlappedNs > 0 ? `Other draws ran during ${formatNs(l.overlappedNs)} of it, hiding that part.` : 'No other draw ran meanwhile.'),
      startNs: Math.min(...l.tailWarps.map((t) => t.startNs)),
      endNs: l.endNs,
      sm: sms.length === 1 ? sms[0]! : null,
      draw: l.draw,
      stage: l.tailWarps.every((t) => t.stage === first.stage) ? first.stage : null,
      costNs: exposed,
      shareOfFrame: share(exposed),
      reliable: l.reliable,
    });
  }

  for (const group of pick(groupStalls(input.stalls), (g) => g.costNs)) {
    const s = group.lead;
    const smList = smsLabel(s.sms);
    const count = group.members.length;
    findings.push({
      id: `stall-${s.row}`,
      kind: 'stall',
      title:
        count === 1
          ? `Long ${s.stage} warp (${formatNumber(s.factor)}× median) stalled ${smList} for ${formatNs(s.stallNs)}`
          : `${count} long ${s.stage} warps (up to ${formatNumber(s.factor)}× median) stalled ${smList} for ${formatNs(group.costNs)}`,
      detail:
        `${/^(FS|ANY_HIT|INTERSECTION)$/.test(s.stage) ? 'An' : 'A'} ${s.stage} warp of ${drawName(input.draws, s.draw)} on ${where(s.sm, s.warpSlot)} (custom id ${s.customId}) ran ` +
        `${formatNs(s.durationNs)}, ${formatNumber(s.factor)}× the ${s.stage} median of ${formatNs(s.stageMedianNs)}. ` +
        `Meanwhile ${smsLabel(s.sms)} (running ${s.stage}) held ${formatNumber(s.meanOccupancyDuring)} warps on average ` +
        `against a peak of ${formatNumber(s.peakOccupancy)}, and below ${formatShare(input.stallOccupancyShare, 0)} of that peak for ${formatNs(s.stallNs)} ` +
        `(${formatShare(s.shareOfFrame)} of the frame).` +
        (count > 1 ? ` ${count - 1} more long ${s.stage} warp${count === 2 ? '' : 's'} overlapped it.` : ''),
      startNs: group.startNs,
      endNs: group.endNs,
      sm: s.sm,
      draw: s.draw,
      stage: s.stage,
      costNs: group.costNs,
      shareOfFrame: share(group.costNs),
      reliable: group.members.every((m) => m.reliable),
    });
  }

  for (const c of input.caps.slice(0, input.maxPerKind)) {
    const stage = input.stages.find((s) => s.stage === c.stage)!;
    const others = input.stages
      .filter((s) => s.stage !== c.stage && s.occupancy.perSm !== null && s.occupancy.perSm.peak > c.peakPerSm)
      .map((s) => `${s.stage} reached ${s.occupancy.perSm!.peak}`);
    findings.push({
      id: `occupancy-cap-${c.stage}`,
      kind: 'occupancy-cap',
      title: `${c.stage} occupancy capped at ${c.peakPerSm} warps per SM (${formatShare(c.peakPerSm / c.warpsPerSm, 0)} of ${c.warpsPerSm} slots)`,
      detail:
        `At most ${c.peakPerSm} ${c.stage} warps ran at once on an SM, and ${c.stage} spent ${formatShare(c.timeAtPeakShare, 0)} of its active SM-time at exactly ${c.peakPerSm}` +
        `${others.length > 0 ? ` (${others.join(', ')})` : ''}. A per-stage limit (registers, shared memory, hardware) or too little work arriving.`,
      startNs: stage.firstStartNs,
      endNs: stage.lastEndNs,
      sm: c.peakSm,
      draw: null,
      stage: c.stage,
      costNs: 0,
      shareOfFrame: 0,
      reliable: true,
    });
  }
  findings.sort((a, b) => b.costNs - a.costNs || a.startNs - b.startNs);
  return findings;
}

/** "SM 3, slot 12"; the slot left out when unknown. */
function where(sm: number, slot: number): string {
  const smText = sm === UNKNOWN_SM ? 'a device without SM ids' : smLabel(sm);
  return slot === UNKNOWN_SLOT ? smText : `${smText}, slot ${slot}`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
