/**
 * Clock calibration of raw GPU records (see README.md, "Calibration").
 *
 * SM (subgroup-scope) clocks run per SM with their own offsets, so they are
 * mapped to the device clock with one least-squares line per SM, fitted on
 * every record of that SM. Pure functions over typed arrays, linear time.
 */
import type { Calibration, SmCalibration } from './model.js';

const TWO_POW_32 = 4294967296;
/** Records closer than this to the reference record (ns) estimate the clock rate before unwrapping. */
const RATE_WINDOW_NS = 0.25e9;
/** Fewer samples, or a shorter span, and an SM borrows the median slope of the others. */
export const MIN_FIT_SAMPLES = 8;
export const MIN_FIT_SPAN_NS = 2000;
/** Residuals up to max(granularity, this) still count as aligned. */
const ALIGNED_RESIDUAL_NS = 8;

export type ClockMode = 'per-sm-fit' | 'device-clock' | 'sm-clock-rebased';

export interface RawClocks {
  readonly mode: ClockMode;
  /** SM id of each record (0xffff unknown): records are calibrated per SM. */
  readonly sm: Uint16Array;
  readonly clockStartLo: Uint32Array;
  readonly clockEndLo: Uint32Array;
  /** Device-clock low words (per-sm-fit only). */
  readonly deviceLo: Uint32Array;
  /** Draw of each record, and per draw an absolute device-clock tick count within ±2 s of its warps. */
  readonly draw: Uint32Array;
  readonly drawAnchorTicks: Float64Array;
  /** Absolute device-clock tick of capture time 0. */
  readonly originTicks: number;
  readonly deviceNsPerTick: number;
  /** Nominal SM clock rate, for sm-clock-rebased (null: 1 cycle = 1 ns). */
  readonly smClockRateHz: number | null;
}

export interface CalibratedTimes {
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  /** SM cycles at start, relative to each SM's first warp (null when no SM clock). */
  readonly cycleStart: Float64Array | null;
  readonly cycleDuration: Uint32Array | null;
  readonly calibration: Calibration;
  /** Step of the device clock found in the samples, ns (null without device clock). */
  readonly deviceClockGranularityNs: number | null;
  /** Mean fitted SM clock rate, Hz (null without a fit). */
  readonly smClockRateHz: number | null;
}

/** Signed difference a − b of two uint32 values, as if they were wrapping counters. */
function wrapDelta(a: number, b: number): number {
  return (a - b) | 0;
}

/** Unwraps a low word against a nearby absolute value: the nearest value with those low 32 bits. */
function unwrap(lo: number, anchor: number): number {
  // ToUint32 (>>> 0) is the low word of any integer below 2^53, without a slow float modulo.
  return anchor + wrapDelta(lo, anchor >>> 0);
}

/**
 * The clock's step, in ticks: the largest power of two (≤ 1024) dividing
 * every sample. Trusted from 16 samples on (random phases all aligning to a
 * coarser step by chance has probability 2^-16).
 */
function granularityTicks(samples: Uint32Array): number {
  if (samples.length < 16) return 1;
  let or = 0;
  for (let i = 0; i < samples.length; i++) or |= samples[i] as number;
  if (or === 0) return 1;
  const lowest = or & -or;
  return Math.min(lowest >>> 0, 1024);
}

interface Groups {
  readonly order: Uint32Array;
  readonly offsets: Uint32Array;
  readonly ids: number[];
}

function groupBySm(sm: Uint16Array): Groups {
  const counts = new Uint32Array(65536);
  for (let i = 0; i < sm.length; i++) counts[sm[i] as number]!++;
  const ids: number[] = [];
  for (let s = 0; s < 65536; s++) if (counts[s] !== 0) ids.push(s);
  const offsets = new Uint32Array(ids.length + 1);
  const cursor = new Uint32Array(65536);
  let total = 0;
  ids.forEach((s, g) => {
    offsets[g] = total;
    cursor[s] = total;
    total += counts[s] as number;
  });
  offsets[ids.length] = total;
  const order = new Uint32Array(sm.length);
  for (let i = 0; i < sm.length; i++) order[cursor[sm[i] as number]!++] = i;
  return { order, offsets, ids };
}

interface Line {
  readonly slope: number;
  readonly intercept: number;
}

/** Least squares y = intercept + slope·x over the rows of one group (centered sums for precision). */
function fitLine(rows: Uint32Array, x: Float64Array, y: Float64Array): Line | null {
  const n = rows.length;
  if (n < 2) return null;
  let mx = 0;
  let my = 0;
  for (let k = 0; k < n; k++) {
    mx += x[rows[k] as number] as number;
    my += y[rows[k] as number] as number;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  for (let k = 0; k < n; k++) {
    const dx = (x[rows[k] as number] as number) - mx;
    sxx += dx * dx;
    sxy += dx * ((y[rows[k] as number] as number) - my);
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Sharpens least-squares lines using what flooring clocks guarantee: each
 * sample y (already moved up by half a step, h) satisfies y − h ≤ t < y + h,
 * and the cycle count x read at t is at most one cycle behind it.
 * Every line consistent with all samples lies, at any x, between the upper
 * hull of the lower bounds and the lower hull of the upper bounds. The line
 * through the middles of that bracket at the first and third quartile of x is
 * precise to about step/N instead of step/√N. When the bounds contradict each
 * other (read delays that vary, outliers) the least-squares line is kept.
 */
function refineWithQuantizationBounds(
  lines: (Line | null)[],
  order: Uint32Array,
  offsets: Uint32Array,
  x: Float64Array,
  y: Float64Array,
  halfStepNs: number,
): void {
  if (halfStepNs <= 0) return;
  for (let g = 0; g < lines.length; g++) {
    const count = (offsets[g + 1] as number) - (offsets[g] as number);
    if (lines[g] === null || lines[g] === undefined || count > REFINE_MAX_SAMPLES) continue;
    const rows = rowsSortedByX(order.subarray(offsets[g], offsets[g + 1]), x);
    if (rows === null) continue;
    // x itself is a floored cycle count: the bound below widens by one cycle.
    const upper = convexHull(rows, x, y, halfStepNs, 'lower');
    const lower = convexHull(rows, x, y, -halfStepNs - (lines[g] as Line).slope, 'upper');
    // Bracket middles at sample quantiles, weighted by how tight the bracket is there.
    let sw = 0;
    let swx = 0;
    let swy = 0;
    const px: number[] = [];
    const py: number[] = [];
    const pw: number[] = [];
    let contradicted = false;
    for (let q = 0; q < BRACKET_POINTS; q++) {
      const at = x[rows[Math.floor(((q + 0.5) / BRACKET_POINTS) * rows.length)] as number] as number;
      const hi = evalHull(upper, at);
      const lo = evalHull(lower, at);
      if (lo > hi + 1e-6) contradicted = true;
      const weight = 1 / ((hi - lo) ** 2 + 1e-3);
      px.push(at);
      py.push((hi + lo) / 2);
      pw.push(weight);
      sw += weight;
      swx += weight * at;
      swy += weight * ((hi + lo) / 2);
    }
    if (contradicted) continue;
    const mx = swx / sw;
    const my = swy / sw;
    let sxx = 0;
    let sxy = 0;
    for (let k = 0; k < px.length; k++) {
      sxx += (pw[k] as number) * ((px[k] as number) - mx) ** 2;
      sxy += (pw[k] as number) * ((px[k] as number) - mx) * ((py[k] as number) - my);
    }
    if (!(sxx > 0)) continue;
    const slope = sxy / sxx;
    if (slope > 0) lines[g] = { slope, intercept: my - slope * mx };
  }
}

/**
 * The intercept of a line of known slope: the middle of the intersection of
 * every sample's bracket [y − h − 1 cycle, y + h), or the mean when the
 * brackets contradict each other.
 */
function offsetWithSlope(rows: Uint32Array, x: Float64Array, y: Float64Array, slope: number, halfStepNs: number): number {
  let lo = -Infinity;
  let hi = Infinity;
  let sum = 0;
  for (let k = 0; k < rows.length; k++) {
    const base = (y[rows[k] as number] as number) - slope * (x[rows[k] as number] as number);
    sum += base;
    lo = Math.max(lo, base - halfStepNs - slope);
    hi = Math.min(hi, base + halfStepNs);
  }
  return halfStepNs > 0 && lo <= hi ? (lo + hi) / 2 : sum / rows.length;
}

/**
 * The rows sorted by x, via one numeric sort of packed (x, position) keys
 * (no comparator callback); null when x spans too much to pack exactly.
 */
function rowsSortedByX(rows: Uint32Array, x: Float64Array): Uint32Array | null {
  let min = Infinity;
  let max = -Infinity;
  for (let k = 0; k < rows.length; k++) {
    const v = x[rows[k] as number] as number;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const scale = REFINE_MAX_SAMPLES;
  if ((max - min + 1) * scale > Number.MAX_SAFE_INTEGER) return null;
  const keys = new Float64Array(rows.length);
  for (let k = 0; k < rows.length; k++) keys[k] = ((x[rows[k] as number] as number) - min) * scale + k;
  keys.sort();
  const out = new Uint32Array(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = rows[(keys[k] as number) % scale] as number;
  return out;
}

/** Above this many samples least squares is already within ~0.2 ns (σ/√N), so refining is skipped. */
const REFINE_MAX_SAMPLES = 4096;

/** Points where the bracket is sampled per SM. */
const BRACKET_POINTS = 16;

interface Hull {
  readonly x: number[];
  readonly y: number[];
}

/** Monotone-chain convex hull of (x, y + shift) over rows sorted by x: its lower or upper chain. */
function convexHull(rows: Uint32Array, x: Float64Array, y: Float64Array, shift: number, chain: 'lower' | 'upper'): Hull {
  const hx: number[] = [];
  const hy: number[] = [];
  const sign = chain === 'lower' ? 1 : -1;
  for (let k = 0; k < rows.length; k++) {
    const px = x[rows[k] as number] as number;
    const py = (y[rows[k] as number] as number) + shift;
    const n = hx.length;
    if (n > 0 && hx[n - 1] === px) {
      // Same x: only the tighter bound matters.
      if (sign * (py - (hy[n - 1] as number)) >= 0) continue;
      hx.pop();
      hy.pop();
    }
    while (hx.length >= 2) {
      const m = hx.length;
      const ax = hx[m - 2] as number;
      const ay = hy[m - 2] as number;
      const bx = hx[m - 1] as number;
      const by = hy[m - 1] as number;
      if (sign * ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) > 0) break;
      hx.pop();
      hy.pop();
    }
    hx.push(px);
    hy.push(py);
  }
  return { x: hx, y: hy };
}

/** The hull chain's value at x (x within its range). */
function evalHull(h: Hull, at: number): number {
  let lo = 0;
  let hi = h.x.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((h.x[mid] as number) <= at) lo = mid;
    else hi = mid;
  }
  const x0 = h.x[lo] as number;
  const x1 = h.x[hi] as number;
  if (x1 === x0) return h.y[lo] as number;
  return (h.y[lo] as number) + (((h.y[hi] as number) - (h.y[lo] as number)) * (at - x0)) / (x1 - x0);
}

export function calibrate(raw: RawClocks): CalibratedTimes {
  switch (raw.mode) {
    case 'device-clock':
      return calibrateDeviceClock(raw);
    case 'sm-clock-rebased':
      return calibrateRebased(raw);
    case 'per-sm-fit':
      return calibratePerSm(raw);
  }
}

/** Device ns since the origin of a device-clock low word, corrected for the clock's flooring. */
function deviceNs(raw: RawClocks, record: number, lo: number, halfStepTicks: number): number {
  const anchor = raw.drawAnchorTicks[raw.draw[record] as number] as number;
  return (unwrap(lo, anchor) - raw.originTicks + halfStepTicks) * raw.deviceNsPerTick;
}

function calibrateDeviceClock(raw: RawClocks): CalibratedTimes {
  const n = raw.sm.length;
  const both = new Uint32Array(n * 2);
  both.set(raw.clockStartLo);
  both.set(raw.clockEndLo, n);
  const step = granularityTicks(both);
  const half = step > 1 ? step / 2 : 0;
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = deviceNs(raw, i, raw.clockStartLo[i] as number, half);
    startNs[i] = s;
    endNs[i] = s + ((((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0) * raw.deviceNsPerTick);
  }
  return {
    startNs,
    endNs,
    cycleStart: null,
    cycleDuration: null,
    calibration: {
      method: 'device-clock',
      alignedAcrossSms: true,
      note: `device clock read at warp start and end (step ${step * raw.deviceNsPerTick} ns): aligned, but durations are quantized to that step`,
      perSm: [],
    },
    deviceClockGranularityNs: step * raw.deviceNsPerTick,
    smClockRateHz: null,
  };
}

function calibrateRebased(raw: RawClocks): CalibratedTimes {
  const n = raw.sm.length;
  const { order, offsets, ids } = groupBySm(raw.sm);
  const nsPerCycle = raw.smClockRateHz === null ? 1 : 1e9 / raw.smClockRateHz;
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const cycleStart = new Float64Array(n);
  const cycleDuration = new Uint32Array(n);
  const perSm: SmCalibration[] = [];
  for (let g = 0; g < ids.length; g++) {
    const rows = order.subarray(offsets[g], offsets[g + 1]);
    const ref = raw.clockStartLo[rows[0] as number] as number;
    let min = Infinity;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k] as number;
      cycleStart[i] = wrapDelta(raw.clockStartLo[i] as number, ref);
      if ((cycleStart[i] as number) < min) min = cycleStart[i] as number;
    }
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k] as number;
      cycleStart[i] = (cycleStart[i] as number) - min;
      cycleDuration[i] = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
      startNs[i] = (cycleStart[i] as number) * nsPerCycle;
      endNs[i] = (startNs[i] as number) + (cycleDuration[i] as number) * nsPerCycle;
    }
    perSm.push({ sm: ids[g] as number, samples: 0, fit: 'rebased', nsPerCycle, offsetNs: 0, residualRmsNs: 0, residualMaxNs: 0 });
  }
  const rate = raw.smClockRateHz === null ? 'an assumed 1 GHz (1 cycle = 1 ns)' : `${raw.smClockRateHz} Hz`;
  return {
    startNs,
    endNs,
    cycleStart,
    cycleDuration,
    calibration: {
      method: 'sm-clock-rebased',
      alignedAcrossSms: false,
      note: `no device clock: each SM starts at its own first warp and cycles are converted at ${rate}; SMs are NOT aligned`,
      perSm,
    },
    deviceClockGranularityNs: null,
    smClockRateHz: raw.smClockRateHz,
  };
}

function calibratePerSm(raw: RawClocks): CalibratedTimes {
  const n = raw.sm.length;
  const step = granularityTicks(raw.deviceLo);
  const half = step > 1 ? step / 2 : 0;
  const granularityNs = step * raw.deviceNsPerTick;
  // y: device ns of each sample; x: SM end cycles relative to the group's reference record.
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = deviceNs(raw, i, raw.deviceLo[i] as number, half);
  const x = new Float64Array(n);
  const { order, offsets, ids } = groupBySm(raw.sm);
  const groupRows = (g: number) => order.subarray(offsets[g], offsets[g + 1]);

  // Pass 1: a rough rate per SM from records near its reference (no wrap there), then unwrap and fit.
  const lines: (Line | null)[] = [];
  const unwrapGroup = (rows: Uint32Array, cyclesPerNs: number) => {
    const r0 = rows[0] as number;
    const lo0 = raw.clockEndLo[r0] as number;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k] as number;
      const predicted = Math.round(cyclesPerNs * ((y[i] as number) - (y[r0] as number)));
      x[i] = predicted + wrapDelta(raw.clockEndLo[i] as number, (lo0 + predicted) >>> 0);
    }
  };
  for (let g = 0; g < ids.length; g++) {
    const rows = groupRows(g);
    const r0 = rows[0] as number;
    const near = new Uint32Array(rows.length);
    let nearCount = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k] as number;
      if (Math.abs((y[i] as number) - (y[r0] as number)) <= RATE_WINDOW_NS) {
        near[nearCount++] = i;
        x[i] = wrapDelta(raw.clockEndLo[i] as number, raw.clockEndLo[r0] as number);
      }
      lo = Math.min(lo, y[i] as number);
      hi = Math.max(hi, y[i] as number);
    }
    const rough = nearCount >= MIN_FIT_SAMPLES ? fitLine(near.subarray(0, nearCount), x, y) : null;
    if (rough === null || hi - lo < MIN_FIT_SPAN_NS || !(rough.slope > 0)) {
      lines.push(null);
      continue;
    }
    unwrapGroup(rows, 1 / rough.slope);
    lines.push(fitLine(rows, x, y));
  }
  refineWithQuantizationBounds(lines, order, offsets, x, y, half * raw.deviceNsPerTick);
  const slopes = lines.filter((l): l is Line => l !== null && l.slope > 0).map((l) => l.slope);
  const nominalNsPerCycle = raw.smClockRateHz === null ? 1 : 1e9 / raw.smClockRateHz;
  const sharedSlope = slopes.length > 0 ? median(slopes) : nominalNsPerCycle;

  // Pass 2: SMs with too little data keep their own offset but take the shared slope.
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const cycleStart = new Float64Array(n);
  const cycleDuration = new Uint32Array(n);
  const perSm: SmCalibration[] = [];
  let aligned = true;
  let worstRms = 0;
  for (let g = 0; g < ids.length; g++) {
    const rows = groupRows(g);
    let line = lines[g] ?? null;
    const fit: SmCalibration['fit'] = line === null ? 'offset-only' : 'linear';
    if (line === null) {
      unwrapGroup(rows, 1 / sharedSlope);
      line = { slope: sharedSlope, intercept: offsetWithSlope(rows, x, y, sharedSlope, half * raw.deviceNsPerTick) };
    }
    let sq = 0;
    let worst = 0;
    let minStartCycles = Infinity;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k] as number;
      const residual = (y[i] as number) - (line.intercept + line.slope * (x[i] as number));
      sq += residual * residual;
      worst = Math.max(worst, Math.abs(residual));
      const duration = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
      cycleDuration[i] = duration;
      cycleStart[i] = (x[i] as number) - duration;
      minStartCycles = Math.min(minStartCycles, cycleStart[i] as number);
      startNs[i] = line.intercept + line.slope * (cycleStart[i] as number);
      endNs[i] = line.intercept + line.slope * (x[i] as number);
    }
    for (let k = 0; k < rows.length; k++) cycleStart[rows[k] as number] = (cycleStart[rows[k] as number] as number) - minStartCycles;
    const rms = Math.sqrt(sq / rows.length);
    worstRms = Math.max(worstRms, rms);
    if (rms > Math.max(granularityNs, ALIGNED_RESIDUAL_NS)) aligned = false;
    perSm.push({
      sm: ids[g] as number,
      samples: rows.length,
      fit,
      nsPerCycle: line.slope,
      offsetNs: line.intercept + line.slope * minStartCycles,
      residualRmsNs: rms,
      residualMaxNs: worst,
    });
  }
  const borrowed = perSm.filter((c) => c.fit === 'offset-only').length;
  const note =
    `per-SM linear fit of SM cycles to the device clock (step ${granularityNs} ns); worst residual RMS ${worstRms.toFixed(2)} ns` +
    (borrowed > 0 ? `; ${borrowed} SM(s) had too few samples and use the median slope` : '') +
    (slopes.length === 0 ? `; no SM had enough samples for a slope, ${raw.smClockRateHz === null ? '1 cycle = 1 ns assumed' : 'nominal rate used'}` : '') +
    (aligned ? '' : '; residuals exceed the clock step, so cross-SM alignment is NOT trustworthy');
  return {
    startNs,
    endNs,
    cycleStart,
    cycleDuration,
    calibration: { method: 'per-sm-fit', alignedAcrossSms: aligned, note, perSm },
    deviceClockGranularityNs: granularityNs,
    smClockRateHz: 1e9 / sharedSlope,
  };
}
