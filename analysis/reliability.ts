/**
 * What the analyses can trust: cross-SM comparisons need SM clocks on one
 * time base; dropped records and unknown SM ids limit what the numbers mean.
 * Said next to the results, never silently.
 */
import { UNKNOWN_SM, type Trace } from '../shared-schema/model.js';
import type { Reliability } from './summary.js';

export function reliabilityOf(trace: Trace): Reliability {
  const cal = trace.capture.calibration;
  const groups = trace.warps.smGroups.sm;
  const crossSmReliable = cal.alignedAcrossSms || groups.length <= 1;
  const warnings: string[] = [];
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
    alignedAcrossSms: cal.alignedAcrossSms,
    calibrationMethod: cal.method,
    calibrationNote: cal.note,
    crossSmReliable,
    warnings,
  };
}
