/**
 * What the analyses can trust: cross-SM comparisons need SM clocks on one
 * time base; dropped records and unknown SM ids limit what the numbers mean.
 * Said next to the results, never silently.
 */
import { drawBoundsOfTrace } from '../shared-schema/draw-bounds.js';
import { formatNs } from './format.js';
import { UNKNOWN_SM, type Trace } from '../shared-schema/model.js';
import type { Reliability } from './summary.js';

export function reliabilityOf(trace: Trace): Reliability {
  const cal = trace.capture.calibration;
  const groups = trace.warps.smGroups.sm;
  // The decoder stores the check; a file written before it existed is checked here (one pass over the warps).
  const bounds = cal.drawBounds === undefined ? drawBoundsOfTrace(trace) : cal.drawBounds;
  const outsideDraws = bounds !== null && bounds.outside > 0;
  const aligned = cal.alignedAcrossSms && !outsideDraws;
  const crossSmReliable = aligned || groups.length <= 1;
  const warnings: string[] = [];
  if (outsideDraws) {
    warnings.push(
      `${bounds.outside} of ${bounds.checked} warps lie more than ${formatNs(bounds.toleranceNs)} outside their draw's GPU timestamps ` +
        `(worst ${formatNs(bounds.worstExcessNs)}): the shader clocks and the timestamps disagree, so warp times are not where the draws were.`,
    );
  }
  if (!crossSmReliable) {
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
    warnings,
  };
}
