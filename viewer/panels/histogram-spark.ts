/** A duration histogram as a tiny inline bar chart (SVG, no canvas), with the bin edges as a tooltip. */
import { svg, type SVGTemplateResult } from 'lit';
import { formatNs } from '../../analysis/format.js';
import type { DurationHistogram } from '../../analysis/summary.js';

export function histogramSpark(h: DurationHistogram, color: string, width = 64, height = 14): SVGTemplateResult {
  const max = Math.max(1, ...h.counts);
  const w = width / Math.max(1, h.counts.length);
  return svg`<svg width=${width} height=${height} viewBox="0 0 ${width} ${height}" role="img" aria-label="duration histogram ${formatNs(h.lowerNs[0])} to ${formatNs(h.upperNs)}">
    <title>${formatNs(h.lowerNs[0])} – ${formatNs(h.upperNs)}, 4 bins per octave</title>
    ${h.counts.map((c, i) => {
      const bh = c === 0 ? 0 : Math.max(1, (c / max) * height);
      return svg`<rect x=${i * w} y=${height - bh} width=${Math.max(0.5, w - 0.5)} height=${bh} fill=${color}></rect>`;
    })}
  </svg>`;
}
