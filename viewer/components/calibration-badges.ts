/**
 * The header's word on the clock calibration: how well the SM clocks were
 * fitted (robust RMS, and p99 over all samples where the file has it), and
 * warnings when SMs are not aligned or warps lie outside their draws. The
 * tooltip holds what `warptrace info` prints (analysis/calibration-quality.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { calibrationLines, type CalibrationSummary } from '../../analysis/calibration-quality.js';
import { formatNs } from '../../shared-schema/index.js';

export function calibrationBadges(s: CalibrationSummary, warps: number): TemplateResult {
  const details = [...calibrationLines(s, warps), s.note].filter((line) => line !== '').join('\n');
  const fit =
    s.method === 'per-sm-fit' && s.keptRmsNs !== null
      ? `clock fit ${formatNs(s.keptRmsNs)}${s.allP99Ns === null ? '' : ` · p99 ${formatNs(s.allP99Ns)} over all`}${s.lateShare === null ? '' : ` · ${(100 * s.lateShare).toFixed(1)}% late`}`
      : null;
  const outside = s.drawBounds !== null && s.drawBounds.outside > 0 ? s.drawBounds : null;
  return html`${fit === null ? nothing : html`<span class="dropped calibration" title=${details}>${fit}</span>`}
  ${s.alignedAcrossSms
    ? nothing
    : html`<span class="dropped warn" title=${details}>${s.alignedWithinNs === null ? 'SM clocks not aligned' : `SM clocks aligned to ~${formatNs(s.alignedWithinNs)} only`}</span>`}
  ${outside === null
    ? nothing
    : html`<span class="dropped warn" title=${details}>${outside.outside.toLocaleString('en-US')} warps outside their draws (worst ${formatNs(outside.worstExcessNs)})</span>`}`;
}
