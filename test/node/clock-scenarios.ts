// Truth traces shaped like the H100 captures where calibration used to go
// wrong, for the known-answer tests: work in phases (a short dispatch on
// every SM, graphics on four), and the warps' errors after a round trip.
import { buildTrace, makeRandom, synthesizeTrace, type RawClockModel, type Trace } from '../../shared-schema/index.js';

/** One phase of work: a draw or dispatch whose warps run on `sms` from fromNs, `warpsPerSm` each (fewer if toNs comes first). */
export interface Phase {
  readonly sms: readonly number[];
  readonly fromNs: number;
  readonly toNs: number;
  readonly warpsPerSm: number;
  readonly meanNs: number;
  /** Stage code (5: CS, a dispatch; else a draw). */
  readonly stage: number;
}

/** A trace of phases (one draw each, timestamps 500 ns before its first warp and 300 ns after its last), custom id = creation order. */
export function phasedTrace(phases: readonly Phase[], seed = 3): Trace {
  const random = makeRandom(seed);
  const cols = { startNs: [] as number[], endNs: [] as number[], sm: [] as number[], warpSlot: [] as number[], stage: [] as number[], draw: [] as number[], customId: [] as number[], activeMask: [] as number[] };
  const draws = phases.map((p, d) => {
    let first = Infinity;
    let last = -Infinity;
    for (const sm of p.sms) {
      // Eight slots per SM, each running its warps back to back.
      const slots = new Float64Array(8).fill(p.fromNs + random() * 300);
      for (let k = 0; k < p.warpsPerSm; k++) {
        const slot = k % 8;
        const start = slots[slot] as number;
        if (start > p.toNs) break;
        const duration = p.meanNs * (0.5 + random());
        slots[slot] = start + duration + 10 + random() * 30;
        cols.startNs.push(start);
        cols.endNs.push(start + duration);
        cols.sm.push(sm);
        cols.warpSlot.push(slot);
        cols.stage.push(p.stage);
        cols.draw.push(d);
        cols.customId.push(cols.customId.length);
        cols.activeMask.push(0xffffffff);
        first = Math.min(first, start);
        last = Math.max(last, start + duration);
      }
    }
    return { index: d, label: `phase ${d}`, kind: p.stage === 5 ? ('dispatch' as const) : ('draw' as const), gpuBeginNs: Math.max(0, first - 500), gpuEndNs: last + 300 };
  });
  const base = synthesizeTrace({ warps: 1, seed: 1 });
  const n = cols.startNs.length;
  return buildTrace({ device: base.device, capture: { ...base.capture, recordsKept: n, recordsWritten: n, bufferCapacity: n }, draws, warps: cols });
}

export const ALL_SMS: readonly number[] = Array.from({ length: 132 }, (_, i) => i);
export const GRAPHICS_SMS: readonly number[] = [0, 1, 48, 49];

/**
 * As on the H100 (h100-compute-graphics): a short dispatch on every SM,
 * graphics on four SMs, then another short dispatch after a barrier; the
 * clock rate drops 1.4% between the first dispatch and the graphics.
 */
export function shortDispatches(): Trace {
  return phasedTrace([
    { sms: ALL_SMS, fromNs: 1000, toNs: 12_000, warpsPerSm: 16, meanNs: 1500, stage: 5 },
    { sms: GRAPHICS_SMS, fromNs: 25_000, toNs: 400_000, warpsPerSm: 6000, meanNs: 300, stage: 4 },
    { sms: ALL_SMS, fromNs: 420_000, toNs: 436_000, warpsPerSm: 20, meanNs: 1500, stage: 5 },
  ]);
}

/** Per truth row, its row in the decoded trace (matched by custom id). */
export function decodedRows(truth: Trace, decoded: Trace): Int32Array {
  const byId = new Int32Array(truth.warps.count);
  for (let t = 0; t < truth.warps.count; t++) byId[truth.warps.customId[t] as number] = t;
  const row = new Int32Array(truth.warps.count).fill(-1);
  for (let i = 0; i < decoded.warps.count; i++) row[byId[decoded.warps.customId[i] as number] as number] = i;
  return row;
}

/** Largest |decoded − true| start of the truth rows `keep` picks, on the device's time base. */
export function worstStartErrorNs(truth: Trace, decoded: Trace, model: RawClockModel, keep: (row: number) => boolean): number {
  const shift = Number(decoded.capture.originDeviceNs) - model.originDeviceNs;
  const row = decodedRows(truth, decoded);
  let worst = 0;
  for (let t = 0; t < truth.warps.count; t++) {
    if (!keep(t)) continue;
    worst = Math.max(worst, Math.abs((decoded.warps.startNs[row[t] as number] as number) + shift - (truth.warps.startNs[t] as number)));
  }
  return worst;
}
