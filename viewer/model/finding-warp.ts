/**
 * The warp a finding names, found in the trace: a stall's long warp, or the
 * tail warp of a leftover on one SM. Findings carry times, SM, draw and
 * stage, not rows; a stall's id is "stall-<row>" (analysis/findings.ts), which
 * is checked against the trace before it is trusted.
 */
import { parseStageName, smOfWarp, type Trace } from '../../shared-schema/index.js';
import { lowerBoundStart, type LaneIndex } from './lane-index.js';

/** What a finding says about where it is (a subset of analysis' Finding). */
export interface FindingPlace {
  readonly id: string;
  readonly kind: string;
  readonly startNs: number;
  readonly endNs: number;
  readonly sm: number | null;
  readonly draw: number | null;
  readonly stage: string | null;
}

/** Row of the warp the finding names, or -1 when it names none (syncs, idle windows, caps, several SMs). */
export function culpritWarp(trace: Trace, index: LaneIndex, f: FindingPlace): number {
  if (f.kind !== 'stall' && f.kind !== 'leftover') return -1;
  const w = trace.warps;
  const stage = f.stage === null ? undefined : parseStageName(f.stage);
  const fits = (row: number) =>
    (f.sm === null || smOfWarp(w.smGroups, row) === f.sm) && (f.draw === null || w.draw[row] === f.draw) && (stage === undefined || w.stage[row] === stage);
  const byId = /^stall-(\d+)$/.exec(f.id);
  if (byId !== null) {
    const row = Number(byId[1]);
    if (row < w.count && fits(row)) return row;
  }
  if (f.sm === null) return -1;
  const lane = index.lanes.find((l) => l.sm === f.sm);
  if (lane === undefined) return -1;
  // The finding's warps start inside its span: of those that fit, the one ending
  // nearest the finding's end (a leftover's last warp), then the longest (a stall).
  let best = -1;
  let bestKey = Infinity;
  const last = lowerBoundStart(w.startNs, lane, f.endNs + 1);
  for (let row = lowerBoundStart(w.startNs, lane, f.startNs - 1); row < last; row++) {
    if (!fits(row)) continue;
    const end = w.startNs[row]! + w.durationNs[row]!;
    const key = Math.abs(f.endNs - end) * 1e6 - w.durationNs[row]!;
    if (key < bestKey) {
      best = row;
      bestKey = key;
    }
  }
  return best;
}
