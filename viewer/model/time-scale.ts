/**
 * The visible time window and the maths of zooming and panning it.
 * Times are ns since the capture origin, in float64; nothing here touches
 * float32 (the renderer works relative to a window origin for that).
 */

export interface TimeWindow {
  readonly startNs: number;
  readonly endNs: number;
}

/** Narrowest window a user can zoom to, ns (the model quantizes times to 1/16 ns). */
export const MIN_SPAN_NS = 8;

export function spanOf(w: TimeWindow): number {
  return w.endNs - w.startNs;
}

/** ns → px within a view of width `widthPx`. */
export function timeToPx(w: TimeWindow, widthPx: number, ns: number): number {
  return ((ns - w.startNs) / (w.endNs - w.startNs)) * widthPx;
}

/** px → ns within a view of width `widthPx`. */
export function pxToTime(w: TimeWindow, widthPx: number, px: number): number {
  return w.startNs + (px / widthPx) * (w.endNs - w.startNs);
}

/**
 * Keeps a window inside `bounds` (the trace plus a margin) and at least
 * MIN_SPAN_NS wide; a window wider than the bounds becomes the bounds.
 */
export function clampWindow(w: TimeWindow, bounds: TimeWindow): TimeWindow {
  const maxSpan = spanOf(bounds);
  let span = Math.max(MIN_SPAN_NS, Math.min(spanOf(w), maxSpan));
  if (!Number.isFinite(span)) span = maxSpan;
  let start = w.startNs;
  if (!Number.isFinite(start)) start = bounds.startNs;
  if (start < bounds.startNs) start = bounds.startNs;
  if (start + span > bounds.endNs) start = bounds.endNs - span;
  return { startNs: start, endNs: start + span };
}

/** Zooms by `factor` (> 1 zooms in) keeping the time under `anchorNs` fixed. */
export function zoomAround(w: TimeWindow, anchorNs: number, factor: number, bounds: TimeWindow): TimeWindow {
  const span = spanOf(w);
  const newSpan = Math.max(MIN_SPAN_NS, Math.min(span / factor, spanOf(bounds)));
  const ratio = (anchorNs - w.startNs) / span;
  const start = anchorNs - ratio * newSpan;
  return clampWindow({ startNs: start, endNs: start + newSpan }, bounds);
}

/** Pans by a fraction of the span (positive: later). */
export function panBy(w: TimeWindow, fraction: number, bounds: TimeWindow): TimeWindow {
  const d = spanOf(w) * fraction;
  return clampWindow({ startNs: w.startNs + d, endNs: w.endNs + d }, bounds);
}

/** Window showing [startNs, endNs] with `margin` (fraction of the span) on each side. */
export function windowAround(startNs: number, endNs: number, margin: number, bounds: TimeWindow): TimeWindow {
  const span = Math.max(MIN_SPAN_NS, endNs - startNs);
  const pad = span * margin;
  return clampWindow({ startNs: startNs - pad, endNs: startNs + span + pad }, bounds);
}

/** Pan/zoom bounds for a trace spanning [startNs, endNs]: the trace plus 2% each side. */
export function traceBounds(startNs: number, endNs: number): TimeWindow {
  const span = Math.max(MIN_SPAN_NS * 4, endNs - startNs);
  return { startNs: startNs - span * 0.02, endNs: startNs + span * 1.02 };
}

/**
 * Level of detail for a view: the width of the columns warps are summarized
 * in, the power of two ns nearest to one pixel (0.71 to 1.41 px). Powers of
 * two keep the computed geometry valid while zooming within a factor of √2
 * either way, and about one column per pixel keeps the GPU's share small.
 */
export function lodColumnNs(nsPerPx: number): number {
  return 2 ** Math.round(Math.log2(Math.max(nsPerPx, 2 ** -20)));
}
