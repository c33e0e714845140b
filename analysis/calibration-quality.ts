/**
 * What a trace says about its clock calibration, for people (`warptrace
 * info`, the viewer's header). The quality the decoder measured (residuals
 * over all samples, cross-checks, warps against their draws) comes from the
 * file; files written before it was measured say "unknown" for the
 * residuals and cross-checks, and get the draw check made on reading (it
 * needs only the warps and the draws). The rest is derived from the
 * per-segment entries every file has.
 */
import { drawBoundsOfTrace } from '../shared-schema/draw-bounds.js';
import { UNKNOWN_SM, type CrossCheck, type DrawBoundsCheck, type SmCalibration, type Trace } from '../shared-schema/model.js';
import { formatNs } from '../shared-schema/units.js';
import { crossSmUncertaintyNs } from './reliability.js';

export interface CalibrationSummary {
  readonly method: string;
  /** The file's verdict; also false when warps lie outside their draws (found on reading an older file). */
  readonly alignedAcrossSms: boolean;
  /** Not aligned, but only because cross-checks failed: how far apart SM clocks may be, ns (reliability.ts); else null. */
  readonly alignedWithinNs: number | null;
  readonly note: string;
  readonly segments: number;
  /** SMs with fitted segments. */
  readonly sms: number;
  /**
   * Segments' residual RMS over the samples they kept (the robust figure):
   * median, worst and where, over segments that kept samples (a segment that
   * took another's line keeps none: it would count as 0).
   */
  readonly medianResidualRmsNs: number | null;
  readonly worstResidualRmsNs: number | null;
  readonly worstSm: number | null;
  /** RMS over every kept sample, ns. */
  readonly keptRmsNs: number | null;
  /** Share of the samples left out as late reads. */
  readonly lateShare: number | null;
  /** RMS and 99th percentile over all samples, late ones included (null: not measured, as in files written before). */
  readonly allRmsNs: number | null;
  readonly allP99Ns: number | null;
  /** Lines fitted on disjoint samples against each other (null: not measured). */
  readonly crossCheck: CrossCheck | null;
  readonly offsetOnlySegments: number;
  /** SMs (not segments) with a segment that took the chip's rate rather than fitting its own. */
  readonly offsetOnlySms: number;
  /** SM clock rate the segments use, Hz: weighted by their warps, and the slowest and fastest segment's. */
  readonly smClockHz: { readonly weighted: number; readonly min: number; readonly max: number } | null;
  /** Warps against their draws' timestamps: as the decoder checked them ('file') or checked on reading ('reading'); null: no timestamps. */
  readonly drawBounds: (DrawBoundsCheck & { readonly source: 'file' | 'reading' }) | null;
}

export function summarizeCalibration(trace: Trace): CalibrationSummary {
  const cal = trace.capture.calibration;
  const fitted = cal.perSm.filter((c) => c.fit !== 'rebased');
  const kept = (c: SmCalibration) => c.samples - c.lateSamples;
  const withKept = fitted.filter((c) => kept(c) > 0);
  const residuals = withKept.map((c) => c.residualRmsNs).sort((a, b) => a - b);
  const worst = withKept.reduce<SmCalibration | null>((a, c) => (a === null || c.residualRmsNs > a.residualRmsNs ? c : a), null);
  const samples = fitted.reduce((n, c) => n + c.samples, 0);
  const keptSamples = withKept.reduce((n, c) => n + kept(c), 0);
  const keptSquares = withKept.reduce((n, c) => n + kept(c) * c.residualRmsNs ** 2, 0);
  const offsetOnly = fitted.filter((c) => c.fit === 'offset-only');
  const quality = cal.quality ?? null;
  const stored = cal.drawBounds ?? null;
  const checked = stored === null && cal.method !== 'sm-clock-rebased' ? drawBoundsOfTrace(trace) : null;
  const drawBounds = stored !== null ? { ...stored, source: 'file' as const } : checked !== null ? { ...checked, source: 'reading' as const } : null;
  const outsideDraws = drawBounds !== null && drawBounds.outside > 0;
  const uncertainty = crossSmUncertaintyNs(trace, outsideDraws);
  return {
    method: cal.method,
    alignedAcrossSms: cal.alignedAcrossSms && !outsideDraws,
    alignedWithinNs: uncertainty > 0 && Number.isFinite(uncertainty) ? uncertainty : null,
    note: cal.note,
    segments: fitted.length,
    sms: new Set(fitted.map((c) => c.sm)).size,
    medianResidualRmsNs: residuals.length === 0 ? null : (residuals[residuals.length >> 1] as number),
    worstResidualRmsNs: worst?.residualRmsNs ?? null,
    worstSm: worst?.sm ?? null,
    keptRmsNs: quality?.keptRmsNs ?? (keptSamples > 0 ? Math.sqrt(keptSquares / keptSamples) : null),
    lateShare: quality !== null ? (quality.samples > 0 ? quality.lateSamples / quality.samples : null) : samples > 0 ? 1 - keptSamples / samples : null,
    allRmsNs: quality?.allRmsNs ?? null,
    allP99Ns: quality?.allP99Ns ?? null,
    crossCheck: quality?.crossCheck ?? null,
    offsetOnlySegments: offsetOnly.length,
    offsetOnlySms: new Set(offsetOnly.map((c) => c.sm)).size,
    smClockHz: cal.method === 'per-sm-fit' ? clockRates(fitted) : null,
    drawBounds,
  };
}

/** The segments' rates weighted by their samples (one per warp), and the range. */
function clockRates(segments: readonly SmCalibration[]): CalibrationSummary['smClockHz'] {
  let warps = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const c of segments) {
    if (!(c.nsPerCycle > 0)) continue;
    const hz = 1e9 / c.nsPerCycle;
    warps += c.samples;
    sum += c.samples * hz;
    min = Math.min(min, hz);
    max = Math.max(max, hz);
  }
  return warps > 0 ? { weighted: sum / warps, min, max } : null;
}

const smName = (sm: number) => (sm === UNKNOWN_SM ? 'unknown' : String(sm));
const ghz = (hz: number, digits = 3) => (hz / 1e9).toFixed(digits);
const percent = (share: number) => (share === 0 ? '0%' : `${(100 * share).toFixed(share < 0.001 ? 3 : 1)}%`);

/** The calibration's lines for `info` (first: method and verdict). */
export function calibrationLines(s: CalibrationSummary, warps: number): string[] {
  const verdict = s.alignedAcrossSms ? 'yes' : s.alignedWithinNs !== null ? `only to about ${formatNs(s.alignedWithinNs)} (cross-check failed)` : 'NO';
  const lines = [`${s.method}, SMs aligned: ${verdict}`];
  if (s.method === 'per-sm-fit') {
    const robust =
      s.keptRmsNs === null
        ? 'no sample kept'
        : `${formatNs(s.keptRmsNs)} robust (segments: median ${formatNs(s.medianResidualRmsNs!)}, worst ${formatNs(s.worstResidualRmsNs!)} on SM ${smName(s.worstSm!)})`;
    const all = s.allRmsNs === null ? 'over all samples: unknown (older file)' : `${formatNs(s.allRmsNs)} over all samples, p99 ${formatNs(s.allP99Ns!)}`;
    lines.push(`residual RMS ${robust}; ${all}; ${s.lateShare === null ? '' : `${percent(s.lateShare)} late reads`}`.replace(/; $/, ''));
    const c = s.crossCheck;
    lines.push(
      c === null
        ? 'cross-check: unknown (older file)'
        : `cross-check: ${c.failed === 0 ? 'passed' : `FAILED ${c.failed} of ${c.checks}`}, worst ${formatNs(c.worstNs)}${c.worstSm === null ? '' : ` on SM ${smName(c.worstSm)}`} (limit ${formatNs(c.limitNs)}, ${c.checks} checks)`,
    );
    const rate = s.smClockHz === null ? '' : `SM clock ${ghz(s.smClockHz.weighted)} GHz (warp-weighted; segments ${ghz(s.smClockHz.min, 4)}-${ghz(s.smClockHz.max, 4)}); `;
    lines.push(`${rate}${s.segments} segments on ${s.sms} SMs, ${s.offsetOnlySegments} offset-only on ${s.offsetOnlySms} SMs`);
  }
  const d = s.drawBounds;
  if (d !== null) {
    const worst = d.worstExcessNs > 0 ? `worst ${formatNs(d.worstExcessNs)} out${d.worstDraw === null ? '' : ` (draw ${d.worstDraw})`}` : 'none out';
    lines.push(
      `draws: ${d.outside.toLocaleString('en-US')} of ${d.checked.toLocaleString('en-US')} warps outside their draw's timestamps by > ${formatNs(d.toleranceNs)}, ${worst}${d.source === 'reading' ? ' (checked on reading: older file)' : ''}`,
    );
  } else if (warps > 0 && s.method !== 'sm-clock-rebased') {
    lines.push('draws: no GPU timestamps, warps not checked against them');
  }
  return lines;
}
