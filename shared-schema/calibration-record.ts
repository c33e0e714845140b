/**
 * The calibration record a capture carries: per-sm-fit's from its segments
 * and the quality measured over all samples, and any method's verdict after
 * its warps were checked against their draws' timestamps.
 */
import { drawBoundsCheckOf } from './draw-bounds.js';
import type { Calibration, CalibrationQuality, SmCalibration } from './model.js';
import { formatNs } from './units.js';

/** Residuals up to max(granularity, this) still count as aligned. */
export const ALIGNED_RESIDUAL_NS = 8;

/** Whether every segment's kept residuals stay within the device clock's step (or ALIGNED_RESIDUAL_NS): one condition of 'aligned'. */
export function residualsWithinStep(perSm: readonly SmCalibration[], granularityNs: number): boolean {
  const limit = Math.max(granularityNs, ALIGNED_RESIDUAL_NS);
  return perSm.every((c) => c.residualRmsNs <= limit);
}

/**
 * The calibration record of per-sm-fit, from every segment's entry and the
 * quality measured over all samples. Aligned when some SM had a slope of its
 * own, every segment's kept residuals stay within the clock's step, and every
 * cross-check passes (the draws' timestamps are checked after: withDrawBounds).
 */
export function perSmCalibration(perSm: SmCalibration[], granularityNs: number, anySlope: boolean, smClockRateHz: number | null, quality: CalibrationQuality): Calibration {
  const worstRms = perSm.reduce((m, c) => Math.max(m, c.residualRmsNs), 0);
  const residualsFit = residualsWithinStep(perSm, granularityNs);
  const { crossCheck } = quality;
  const aligned = anySlope && residualsFit && crossCheck.failed === 0;
  const sms = new Set(perSm.map((c) => c.sm)).size;
  const offsetOnly = perSm.filter((c) => c.fit !== 'linear');
  const lateShare = quality.samples > 0 ? quality.lateSamples / quality.samples : 0;
  const note =
    `per-SM fit of SM cycles to the device clock (step ${granularityNs} ns) in ${perSm.length} segments on ${sms} SMs` +
    `; residual RMS ${quality.keptRmsNs.toFixed(2)} ns over the samples kept, ${formatNs(quality.allRmsNs)} over all (p99 ${formatNs(quality.allP99Ns)})` +
    (quality.lateSamples > 0 ? `; ${quality.lateSamples} late device-clock reads (${(100 * lateShare).toFixed(1)}%) left out` : '') +
    (offsetOnly.length > 0 ? `; ${offsetOnly.length} segment(s) on ${new Set(offsetOnly.map((c) => c.sm)).size} SM(s) take the chip's clock rate at that time` : '') +
    `; cross-check: ${crossCheck.checks} checks, worst ${formatNs(crossCheck.worstNs)} (limit ${formatNs(crossCheck.limitNs)})` +
    (anySlope ? '' : `; no SM had enough samples for a slope, ${smClockRateHz === null ? '1 cycle = 1 ns assumed' : 'nominal rate used'}`) +
    (residualsFit ? '' : `; worst residual RMS ${worstRms.toFixed(2)} ns exceeds the clock step`) +
    (crossCheck.failed === 0 ? '' : `; ${crossCheck.failed} cross-check(s) failed: lines fitted on different samples disagree`) +
    (aligned ? '' : ', so cross-SM alignment is NOT trustworthy');
  return { method: 'per-sm-fit', alignedAcrossSms: aligned, note, perSm, quality };
}

/**
 * The calibration with the warps checked against their draws' timestamps
 * (a tally from draw-bounds.ts; null: no draw had timestamps, nothing
 * changes): warps outside their draws make a capture not aligned.
 */
export function withDrawBounds(calibration: Calibration, tally: Float64Array | null, toleranceNs?: number): Calibration {
  if (tally === null || calibration.method === 'sm-clock-rebased') return calibration;
  const check = drawBoundsCheckOf(tally, toleranceNs);
  if (check.outside === 0) return { ...calibration, drawBounds: check };
  const outside = `${check.outside} of ${check.checked} warps lie outside their draw's GPU timestamps by more than ${formatNs(check.toleranceNs)} (worst ${formatNs(check.worstExcessNs)}, draw ${check.worstDraw}): the warps' clock and the timestamps are not on one time base`;
  return {
    ...calibration,
    alignedAcrossSms: false,
    note: calibration.alignedAcrossSms ? `${calibration.note}; ${outside}, so cross-SM alignment is NOT trustworthy` : `${calibration.note}; ${outside}`,
    drawBounds: check,
  };
}
