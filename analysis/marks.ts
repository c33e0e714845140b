/**
 * Phases of warps between their marks (`wtMark`, `instrument --marks`;
 * shared-schema README "Marks"): for each (draw, stage), every warp with
 * marks is cut at them into start → first mark, mark k → mark k+1, last mark
 * → end, and phases with the same ends (the marks' ids) are summed. Pure:
 * the CLI's `warptrace phases` and the viewer share it. Reads the columns
 * as they are (no object per warp or per mark); objects per phase group.
 */
import { MARK_KIND_SHIFT, MARK_SITE_MASK, MarkKind } from '../shared-schema/mark-layout.js';
import type { MarkColumns, Trace } from '../shared-schema/model.js';
import { popcount32 } from '../shared-schema/columns.js';
import { STAGES } from '../shared-schema/stages.js';

export interface PhaseQuery {
  /** The draws to count (null: all). */
  readonly draws: ReadonlySet<number> | null;
  /** The stage code to count (null: all). */
  readonly stage: number | null;
}

/** One phase of one (draw, stage): the stretch of its warps between two marks (or a warp's start or end). */
export interface PhaseStat {
  readonly draw: number;
  readonly stage: number;
  readonly stageName: string;
  /** The mark id the phase starts at (null: the warp's start) and ends at (null: the warp's end). */
  readonly from: number | null;
  readonly to: number | null;
  /** "start → before trace #0". */
  readonly label: string;
  /** Warps that passed the phase, and how often in all (a loop's phases repeat within a warp). */
  readonly warps: number;
  readonly occurrences: number;
  /** Time in the phase, ns: summed over occurrences, their mean, median and largest. */
  readonly totalNs: number;
  readonly meanNs: number;
  readonly p50Ns: number;
  readonly maxNs: number;
  /** Mean live lanes at the phase's start (the mark's lanes; a warp's first phase takes its first mark's). */
  readonly meanLiveLanes: number;
  /** totalNs over the time of every warp of the (draw, stage) counted (0 when they took none). */
  readonly share: number;
  /** Mean offset of the phase's start in its warps, ns: phases are listed in this order. */
  readonly meanStartNs: number;
}

export interface PhaseTable {
  /** By draw, then stage, then where the phase starts in its warps. */
  readonly phases: readonly PhaseStat[];
  /** Marks placed on warps of the query, the warps they lie on, and the trace's orphans. */
  readonly marks: number;
  readonly warpsWithMarks: number;
  readonly orphans: number;
}

/** A mark id as people read it: the instrumenter's kinds by name and site, the shader's own as a number. */
export function markLabel(id: number): string {
  const kind = id >>> MARK_KIND_SHIFT;
  const site = id & MARK_SITE_MASK;
  switch (kind) {
    case MarkKind.USER:
      return `mark ${id}`;
    case MarkKind.BEFORE_TRACE:
      return `before trace #${site}`;
    case MarkKind.AFTER_TRACE:
      return `after trace #${site}`;
    case MarkKind.LOOP_HEAD:
      return `loop #${site} head`;
    case MarkKind.LOOP_EXIT:
      return `loop #${site} exit`;
    default:
      return `mark 0x${id.toString(16)}`;
  }
}

/** A phase's label from its ends. */
export function phaseLabel(from: number | null, to: number | null): string {
  return `${from === null ? 'start' : markLabel(from)} → ${to === null ? 'end' : markLabel(to)}`;
}

interface Group {
  readonly draw: number;
  readonly stage: number;
  readonly from: number | null;
  readonly to: number | null;
  readonly durations: number[];
  lanes: number;
  starts: number;
  warps: number;
  lastWarp: number;
}

/** The phases of the query's warps (an empty table when the trace has no marks). */
export function phaseTable(trace: Trace, query: PhaseQuery): PhaseTable {
  const marks: MarkColumns | null = trace.marks ?? null;
  const w = trace.warps;
  const groups = new Map<string, Group>();
  const stageTime = new Map<number, number>();
  let counted = 0;
  let warpsWithMarks = 0;
  const wanted = (draw: number, stage: number) => (query.draws === null || query.draws.has(draw)) && (query.stage === null || query.stage === stage);
  const add = (row: number, draw: number, stage: number, from: number | null, to: number | null, startNs: number, endNs: number, lanes: number) => {
    const key = `${draw}:${stage}:${from ?? ''}:${to ?? ''}`;
    let g = groups.get(key);
    if (g === undefined) {
      g = { draw, stage, from, to, durations: [], lanes: 0, starts: 0, warps: 0, lastWarp: -1 };
      groups.set(key, g);
    }
    g.durations.push(endNs - startNs);
    g.lanes += lanes;
    g.starts += startNs;
    if (g.lastWarp !== row) {
      g.warps++;
      g.lastWarp = row;
    }
  };
  const n = marks?.count ?? 0;
  for (let k = 0; k < n; ) {
    const m = marks as MarkColumns;
    const row = m.warp[k] as number;
    let end = k;
    while (end < n && m.warp[end] === row) end++;
    const draw = w.draw[row] as number;
    const stage = w.stage[row] as number;
    if (wanted(draw, stage)) {
      counted += end - k;
      warpsWithMarks++;
      const lanesAt = (j: number) => popcount32(m.activeMask[j] as number) + (m.activeMaskHi === null ? 0 : popcount32(m.activeMaskHi[j] as number));
      add(row, draw, stage, null, m.id[k] as number, 0, m.offsetNs[k] as number, lanesAt(k));
      for (let j = k; j + 1 < end; j++) add(row, draw, stage, m.id[j] as number, m.id[j + 1] as number, m.offsetNs[j] as number, m.offsetNs[j + 1] as number, lanesAt(j));
      add(row, draw, stage, m.id[end - 1] as number, null, m.offsetNs[end - 1] as number, w.durationNs[row] as number, lanesAt(end - 1));
      stageTime.set(draw * 16 + stage, 0);
    }
    k = end;
  }
  // The stages' warp time, for the (draw, stage) pairs that have phases only.
  for (let i = 0; i < w.count; i++) {
    const key = (w.draw[i] as number) * 16 + (w.stage[i] as number);
    const t = stageTime.get(key);
    if (t !== undefined) stageTime.set(key, t + (w.durationNs[i] as number));
  }
  const phases = [...groups.values()].map((g): PhaseStat => {
    const sorted = Float64Array.from(g.durations).sort();
    const occurrences = sorted.length;
    const totalNs = sorted.reduce((s, v) => s + v, 0);
    const stageNs = stageTime.get(g.draw * 16 + g.stage) ?? 0;
    return {
      draw: g.draw,
      stage: g.stage,
      stageName: STAGES[g.stage]?.name ?? String(g.stage),
      from: g.from,
      to: g.to,
      label: phaseLabel(g.from, g.to),
      warps: g.warps,
      occurrences,
      totalNs,
      meanNs: totalNs / occurrences,
      p50Ns: sorted[(occurrences - 1) >> 1] as number,
      maxNs: sorted[occurrences - 1] as number,
      meanLiveLanes: g.lanes / occurrences,
      share: stageNs > 0 ? totalNs / stageNs : 0,
      meanStartNs: g.starts / occurrences,
    };
  });
  phases.sort((a, b) => a.draw - b.draw || a.stage - b.stage || a.meanStartNs - b.meanStartNs || a.label.localeCompare(b.label));
  return { phases, marks: counted, warpsWithMarks, orphans: marks?.orphans ?? 0 };
}

/** `warptrace info`'s line for a trace with marks: how many, on how many warps, and the orphans. */
export function markSummaryLine(marks: MarkColumns): string {
  let warps = 0;
  for (let k = 0; k < marks.count; k++) if (k === 0 || marks.warp[k] !== marks.warp[k - 1]) warps++;
  const n = (v: number) => v.toLocaleString('en-US');
  const orphans = marks.orphans === 0 ? '' : `, ${n(marks.orphans)} orphan${marks.orphans === 1 ? '' : 's'} (their warps are not in the trace)`;
  return `${n(marks.count)} mark${marks.count === 1 ? '' : 's'} on ${n(warps)} warp${warps === 1 ? '' : 's'}${orphans} (see warptrace phases)`;
}
