/**
 * A duration histogram as a tiny inline bar chart (SVG, no canvas), with the bin edges as a
 * tooltip. Given a `pick`, its bins can be picked to filter warps by duration: click a bin,
 * or drag across several; click the picked bin again (or Esc) to drop it. From the keyboard
 * (it takes focus): ← / → pick the previous / next bin, Shift+← / → move the range's right
 * edge, Home / End the first / last bin, Esc clears.
 */
import { svg, type SVGTemplateResult } from 'lit';
import { formatNs } from '../../analysis/format.js';
import type { DurationHistogram } from '../../analysis/summary.js';

export interface SparkPick {
  /** The picked bins [first, last], or null. */
  readonly bins: readonly [number, number] | null;
  onPick(bins: [number, number] | null): void;
}

/** Where a drag started, per chart. */
const dragAnchor = new WeakMap<Element, number>();

/** [lower, upper) ns of bin k. */
export function binEdges(h: DurationHistogram, k: number): [number, number] {
  return [h.lowerNs[k]!, k + 1 < h.lowerNs.length ? h.lowerNs[k + 1]! : h.upperNs];
}

export function histogramSpark(h: DurationHistogram, color: string, width = 64, height = 14, pick: SparkPick | null = null): SVGTemplateResult {
  const max = Math.max(1, ...h.counts);
  const n = Math.max(1, h.counts.length);
  const w = width / n;
  const sel = pick?.bins ?? null;
  const range = `${formatNs(h.lowerNs[0])} to ${formatNs(h.upperNs)}`;
  const binAt = (e: PointerEvent) => {
    const box = (e.currentTarget as Element).getBoundingClientRect();
    return Math.max(0, Math.min(n - 1, Math.floor(((e.clientX - box.left) / Math.max(1, box.width)) * n)));
  };
  const onDown = (e: PointerEvent) => {
    if (pick === null || e.button !== 0) return;
    const k = binAt(e);
    if (sel !== null && sel[0] === k && sel[1] === k) {
      pick.onPick(null);
      return;
    }
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
    dragAnchor.set(e.currentTarget as Element, k);
    pick.onPick([k, k]);
  };
  const onMove = (e: PointerEvent) => {
    const anchor = dragAnchor.get(e.currentTarget as Element);
    if (pick === null || anchor === undefined) return;
    const k = binAt(e);
    const next: [number, number] = [Math.min(anchor, k), Math.max(anchor, k)];
    if (sel === null || next[0] !== sel[0] || next[1] !== sel[1]) pick.onPick(next);
  };
  const onKey = (e: KeyboardEvent) => {
    if (pick === null) return;
    const [lo, hi] = sel ?? [-1, -1];
    let next: [number, number] | null | undefined;
    if (e.key === 'Escape' && sel !== null) next = null;
    else if (e.key === 'Home') next = [0, 0];
    else if (e.key === 'End') next = [n - 1, n - 1];
    else if (e.key === 'ArrowRight' && e.shiftKey && sel !== null) next = [lo, Math.min(n - 1, hi + 1)];
    else if (e.key === 'ArrowLeft' && e.shiftKey && sel !== null) next = [lo, Math.max(lo, hi - 1)];
    else if (e.key === 'ArrowRight') next = sel === null ? [0, 0] : [Math.min(n - 1, lo + 1), Math.min(n - 1, lo + 1)];
    else if (e.key === 'ArrowLeft') next = sel === null ? [n - 1, n - 1] : [Math.max(0, lo - 1), Math.max(0, lo - 1)];
    if (next === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    pick.onPick(next);
  };
  const picked = (k: number) => sel !== null && k >= sel[0] && k <= sel[1];
  const label = pick === null ? `duration histogram ${range}` : `duration histogram ${range}: click or drag bins to highlight those warps`;
  return svg`<svg class=${pick === null ? 'spark' : 'spark pickable'} width=${width} height=${height} viewBox="0 0 ${width} ${height}" role=${pick === null ? 'img' : 'group'}
    aria-label=${label} tabindex=${pick === null ? '-1' : '0'}
    @pointerdown=${onDown} @pointermove=${onMove} @pointerup=${(e: PointerEvent) => dragAnchor.delete(e.currentTarget as Element)} @keydown=${onKey}>
    <title>${formatNs(h.lowerNs[0])} – ${formatNs(h.upperNs)}, 4 bins per octave${pick === null ? '' : '; click or drag bins to highlight those warps'}</title>
    ${sel === null ? null : svg`<rect class="picked" x=${sel[0] * w} y="0" width=${(sel[1] - sel[0] + 1) * w} height=${height} fill="#7fb2ff" fill-opacity="0.35"></rect>`}
    ${h.counts.map((c, i) => {
      const bh = c === 0 ? 0 : Math.max(1, (c / max) * height);
      const [lo, hi] = binEdges(h, i);
      return svg`<rect x=${i * w} y=${height - bh} width=${Math.max(0.5, w - 0.5)} height=${bh} fill=${color} fill-opacity=${sel === null || picked(i) ? 1 : 0.35}>
        <title>${formatNs(lo)} – ${formatNs(hi)}: ${c.toLocaleString('en-US')} warps</title></rect>`;
    })}
  </svg>`;
}
