/**
 * What the analyses can trust: cross-SM comparisons need SM clocks on one
 * time base; dropped records and unknown SM ids limit what the numbers mean.
 * Said next to the results, never silently.
 */
import { residualsWithinStep } from '../shared-schema/calibration-record.js';
import { drawBoundsOfTrace } from '../shared-schema/draw-bounds.js';
import { formatNs } from './format.js';
import { UNKNOWN_SM, type Trace } from '../shared-schema/model.js';
import type { Reliability } from './summary.js';

/**
 * A cross-SM result (a gap, a tail, a stall) this many times larger than
 * the SMs' alignment uncertainty stands even though the calibration could
 * not certify alignment: an error of u cannot make or unmake an effect of
 * ten u.
 */
export const UNCERTAINTY_FACTOR = 10;

/**
 * How far apart the SMs' clocks may be, ns: 0 when the calibration
 * certifies them aligned; when the per-SM fit was refused only because some
 * cross-checks failed (every segment's kept residuals within the clock's
 * step, warps inside their draws), the largest disagreement the cross-check
 * found between lines fitted on disjoint samples, a measured estimate of
 * the fit's error; Infinity when nothing bounds it (SM clocks rebased, no
 * rate fitted, residuals off, warps outside their draws, or a file written
 * before the cross-check existed).
 */
export function crossSmUncertaintyNs(trace: Trace, outsideDraws: boolean): number {
  const cal = trace.capture.calibration;
  if (cal.alignedAcrossSms && !outsideDraws) return 0;
  const crossCheck = cal.quality?.crossCheck;
  if (cal.method !== 'per-sm-fit' || outsideDraws || crossCheck === undefined || crossCheck.failed === 0) return Infinity;
  // The decoder's other conditions for 'aligned', read back from the stored segments.
  const residualsFit = residualsWithinStep(cal.perSm, trace.device.clocks.deviceClockGranularityNs ?? 0);
  const rateFitted = trace.device.clocks.smClockRateHz !== null && cal.perSm.some((c) => c.fit !== 'rebased');
  return residualsFit && rateFitted && Number.isFinite(crossCheck.worstNs) ? crossCheck.worstNs : Infinity;
}

/** Whether a cross-SM effect of `ns` stands given the reliability's uncertainty. */
export function standsAcrossSms(reliability: Pick<Reliability, 'crossSmReliable' | 'crossSmUncertaintyNs'>, ns: number): boolean {
  if (reliability.crossSmReliable) return true;
  const u = reliability.crossSmUncertaintyNs;
  return u !== null && u !== undefined && ns >= UNCERTAINTY_FACTOR * u;
}

export function reliabilityOf(trace: Trace): Reliability {
  const cal = trace.capture.calibration;
  const groups = trace.warps.smGroups.sm;
  // The decoder stores the check; a file written before it existed is checked here (one pass over the warps).
  const bounds = cal.drawBounds === undefined ? drawBoundsOfTrace(trace) : cal.drawBounds;
  const outsideDraws = bounds !== null && bounds.outside > 0;
  const aligned = cal.alignedAcrossSms && !outsideDraws;
  const crossSmReliable = aligned || groups.length <= 1;
  const uncertainty = crossSmReliable ? 0 : crossSmUncertaintyNs(trace, outsideDraws);
  const warnings: string[] = [];
  if (outsideDraws) {
    warnings.push(
      `${bounds.outside} of ${bounds.checked} warps lie more than ${formatNs(bounds.toleranceNs)} outside their draw's GPU timestamps ` +
        `(worst ${formatNs(bounds.worstExcessNs)}): the shader clocks and the timestamps disagree, so warp times are not where the draws were.`,
    );
  }
  if (!crossSmReliable && Number.isFinite(uncertainty)) {
    warnings.push(
      `SM clocks are aligned to about ${formatNs(uncertainty)} only (${cal.method}: lines fitted on different clock samples disagree by up to that much): ` +
        `results that compare times across SMs count only where they exceed ${formatNs(UNCERTAINTY_FACTOR * uncertainty)}; smaller ones are marked unreliable.`,
    );
  } else if (!crossSmReliable) {
    warnings.push(
      `SM clocks are not aligned (${cal.method}${cal.note ? `: ${cal.note}` : ''}): results that compare times across SMs ` +
        '(draw overlap and gaps, syncs, tails and stalls spanning several SMs) are unreliable.',
    );
  }
  const dropped = trace.capture.recordsWritten - trace.capture.recordsKept;
  if (dropped > 0) {
    const share = trace.capture.recordsWritten > 0 ? dropped / trace.capture.recordsWritten : 0;
    warnings.push(
      `${dropped} of ${trace.capture.recordsWritten} warp records (${(share * 100).toFixed(1)}%) were dropped (trace buffer full): ` +
        'statistics cover the kept warps only, and late draws may be missing.',
    );
  }
  if (groups.length > 0 && groups[groups.length - 1] === UNKNOWN_SM) {
    warnings.push('Some warps have no SM id (no SM builtins): their occupancy is device-wide, and SM capacity does not apply.');
  }
  return {
    alignedAcrossSms: aligned,
    calibrationMethod: cal.method,
    calibrationNote: cal.note,
    crossSmReliable,
    crossSmUncertaintyNs: Number.isFinite(uncertainty) ? uncertainty : null,
    warnings,
  };
}
