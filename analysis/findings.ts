/**
 * Findings: the detectors' results as one list of plain-text items, each
 * with the time range (and SM) to zoom to and the GPU time at stake,
 * largest cost first. Titles and details are plain text: renderers escape.
 */
import { UNKNOWN_SLOT, UNKNOWN_SM, type DrawInfo, type RegionInfo } from '../shared-schema/model.js';
import { capRemedy, idleRemedy, leftoverRemedy, stallRemedy, syncRemedy } from './remedies.js';
import { formatNs, formatNumber, formatShare, smLabel, smsLabel } from './format.js';
import { groupStalls, type StallGroup } from './stalls.js';
import type { Finding, IdleEdgeWarp, IdleWindow, Leftover, OccupancyCap, Stall, StageSummary, SyncGap } from './summary.js';

export interface FindingInputs {
  readonly draws: readonly DrawInfo[];
  /** The trace's regions: a sync's remedy names the passes that end and begin between its draws. */
  readonly regions: readonly RegionInfo[];
  readonly frameSpanNs: number;
  readonly syncs: readonly SyncGap[];
  readonly syncTotalNs: number;
  readonly syncsReliable: boolean;
  /** Idle windows inside open draws (the longest), their total, and the frame's busy times. */
  readonly idle: readonly IdleWindow[];
  readonly idleTotalNs: number;
  readonly idleReliable: boolean;
  readonly drawBusyNs: number;
  readonly gpuBusyNs: number;
  /** thresholds.idleMinNs, for the idle text. */
  readonly idleMinNs: number;
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
      remedy: syncRemedy(input, g.afterDraw, g.beforeDraw),
    });
  }

  for (const win of pick(input.idle, (x) => x.durationNs)) findings.push(idleFinding(input, win));

  // A tail hidden behind other draws costs nothing: only exposed tails become findings.
  const exposedLeftovers = input.leftovers.filter((x) => x.tailNs - x.overlappedNs >= input.leftoverMinNs);
  for (const l of pick(exposedLeftovers, (x) => x.tailNs - x.overlappedNs)) {
    const stages = [...new Set(l.tailWarps.map((t) => t.stage))].join('/');
    const sms = [...new Set(l.tailWarps.map((t) => t.sm))];
    const first = l.tailWarps[0]!;
    const exposed = Math.max(0, l.tailNs - l.overlappedNs);
    const stage = l.tailWarps.every((t) => t.stage === first.stage) ? first.stage : null;
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
      stage,
      costNs: exposed,
      shareOfFrame: share(exposed),
      reliable: l.reliable,
      remedy: leftoverRemedy(l, stage),
    });
  }

  for (const group of pick(groupStalls(input.stalls), (g) => g.costNs)) findings.push(stallFinding(input, group));

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
      remedy: capRemedy(c),
    });
  }
  findings.sort((a, b) => b.costNs - a.costNs || a.startNs - b.startNs);
  return findings;
}

function stallFinding(input: FindingInputs, group: StallGroup): Finding {
  const s = group.lead;
  const count = group.members.length;
  const draw = drawName(input.draws, s.draw);
  const oneStage = group.stages.length === 1;
  const perStage = group.stages.map((x) => `${x.warps} ${x.stage}`).join(', ');
  const maxFactor = group.members.reduce((max, m) => Math.max(max, m.factor), 0);
  const what =
    count === 1
      ? `long ${s.stage} warp (${formatNumber(s.factor)}× median)`
      : oneStage
        ? `${count} long ${s.stage} warps (up to ${formatNumber(maxFactor)}× median)`
        : `${count} long warps (${perStage}; up to ${formatNumber(maxFactor)}× their stage median)`;
  const others = group.members.length - 1;
  const othersStages = stageList(group.members.filter((m) => m !== s));
  return {
    id: `stall-${s.row}`,
    kind: 'stall',
    title: `${capitalize(draw)}: ${what} stalled ${smsLabel(s.sms)} for ${formatNs(group.costNs)}`,
    detail:
      `${article(s.stage)} ${s.stage} warp of ${draw} on ${where(s.sm, s.warpSlot)} (custom id ${s.customId}) ran ` +
      `${formatNs(s.durationNs)}, ${formatNumber(s.factor)}× ${medianText(s)}. ` +
      `Meanwhile ${smsLabel(s.sms)} (where ${s.stage} runs) held ${formatNumber(s.meanOccupancyDuring)} warps on average, all work counted, ` +
      `while the draw itself reached ${formatNumber(s.peakOccupancy)} there; they held fewer than ${formatShare(input.stallOccupancyShare, 0)} of that ` +
      `for ${formatNs(s.stallNs)} (${formatShare(s.shareOfFrame)} of the frame).` +
      (others > 0 ? ` ${others} more long warp${others === 1 ? '' : 's'} of the draw (${othersStages}) overlapped it.` : ''),
    startNs: group.startNs,
    endNs: group.endNs,
    sm: s.sm,
    draw: s.draw,
    stage: oneStage ? s.stage : null,
    costNs: group.costNs,
    shareOfFrame: input.frameSpanNs > 0 ? group.costNs / input.frameSpanNs : 0,
    reliable: group.members.every((m) => m.reliable),
    remedy: stallRemedy(s),
  };
}

function idleFinding(input: FindingInputs, win: IdleWindow): Finding {
  const draw = drawName(input.draws, win.draw);
  const others = win.openDraws.filter((d) => d !== win.draw).map((d) => drawName(input.draws, d));
  const unlisted = win.openDrawCount - 1 - others.length;
  const share = (ns: number) => formatShare(input.frameSpanNs > 0 ? ns / input.frameSpanNs : 0);
  // Warps are all a trace sees: fixed-function work (rasterization between VS and FS) may still run.
  const smIds = win.before.sm !== UNKNOWN_SM;
  return {
    id: `idle-${win.after.row}`,
    kind: 'idle',
    title: `${smIds ? 'SMs' : 'Shaders'} idle ${formatNs(win.durationNs)} inside ${draw}${win.openDrawCount > 1 ? ` (${win.openDrawCount} draws open)` : ''}: no warp ran`,
    detail:
      `No warp ran ${smIds ? 'on any SM' : 'on the device'} for ${formatNs(win.durationNs)} from ${formatAt(win.startNs, win.durationNs)} while ${draw} was open` +
      (others.length > 0 ? `, as were ${others.join(', ')}${unlisted > 0 ? ` and ${unlisted} more` : ''}` : '') +
      `. The last warp before it was ${edgeText(input, win.before)}; the next, ${edgeText(input, win.after)} ` +
      `(fixed-function work between them, such as rasterization, is not traced). ` +
      `Idle windows of at least ${formatNs(input.idleMinNs)} inside draws total ${formatNs(input.idleTotalNs)} (${share(input.idleTotalNs)} of the frame). ` +
      `Warps ran during ${formatNs(input.gpuBusyNs)} of the ${formatNs(input.frameSpanNs)} frame, while some draw was open for ${formatNs(input.drawBusyNs)}.`,
    startNs: win.startNs,
    endNs: win.endNs,
    sm: null,
    draw: win.draw,
    stage: null,
    costNs: win.durationNs,
    shareOfFrame: win.shareOfFrame,
    reliable: input.idleReliable,
    remedy: idleRemedy(win),
  };
}

/** "a VS warp of draw 4 on SM 0, slot 3". */
function edgeText(input: FindingInputs, x: IdleEdgeWarp): string {
  return `${article(x.stage).toLowerCase()} ${x.stage} warp of ${drawName(input.draws, x.draw)} on ${where(x.sm, x.warpSlot)}`;
}

/** The median a stall warp was judged against: the larger of its stage's and its draw's for that stage. */
function medianText(s: Stall): string {
  const [frame, own] = [formatNs(s.stageMedianNs), formatNs(s.drawStageMedianNs)];
  if (frame === own) return `the ${s.stage} median of ${frame}`;
  return s.drawStageMedianNs >= s.stageMedianNs
    ? `its draw's ${s.stage} median of ${own} (${frame} over all draws)`
    : `the ${s.stage} median of ${frame} over all draws (${own} in its draw)`;
}

/** A time with enough digits to tell `t` from `t + durationNs` ("448.46 µs" for a 2.46 µs window). */
function formatAt(t: number, durationNs: number): string {
  const extra = durationNs > 0 && Math.abs(t) > durationNs ? Math.floor(Math.log10(Math.abs(t) / durationNs)) : 0;
  return formatNs(t, 3 + Math.min(extra, 6));
}

/** "10 TCS, 1 TES": warps per stage, most first. */
function stageList(members: readonly Stall[]): string {
  const counts = new Map<string, number>();
  for (const m of members) counts.set(m.stage, (counts.get(m.stage) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([stage, n]) => `${n} ${stage}`).join(', ');
}

function article(stage: string): string {
  return /^(FS|ANY_HIT|INTERSECTION)$/.test(stage) ? 'An' : 'A';
}

/** "SM 3, slot 12"; the slot left out when unknown. */
function where(sm: number, slot: number): string {
  const smText = sm === UNKNOWN_SM ? 'a device without SM ids' : smLabel(sm);
  return slot === UNKNOWN_SLOT ? smText : `${smText}, slot ${slot}`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
