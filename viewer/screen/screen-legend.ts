/** The screen panel's legend: the colormap as a ramp between the metric's ends, and grey for no warp. */
import { html, type TemplateResult } from 'lit';
import { COLORMAP_RGB, COLORMAP_SIZE } from '../../analysis/screen-colormap.js';
import type { ScreenLegend } from '../../analysis/screen-metric.js';

/** Paints the colormap table into a COLORMAP_SIZE × 1 canvas (CSS stretches it, pixelated). */
export function paintRamp(canvas: HTMLCanvasElement): void {
  canvas.width = COLORMAP_SIZE;
  canvas.height = 1;
  const ctx = canvas.getContext('2d');
  if (ctx === null) return;
  const data = new ImageData(COLORMAP_SIZE, 1);
  for (let i = 0; i < COLORMAP_SIZE; i++) {
    data.data.set(COLORMAP_RGB.subarray(i * 3, i * 3 + 3), i * 4);
    data.data[i * 4 + 3] = 255;
  }
  ctx.putImageData(data, 0, 0);
}

export function legendTemplate(legend: ScreenLegend, shown: number, positioned: number): TemplateResult {
  return html`<div class="legend" title=${legend.text}>
    <span class="min">${legend.minText}</span><canvas class="ramp" aria-hidden="true"></canvas><span class="max">${legend.maxText}</span>
    <span class="caption muted">${legend.label} · ${legend.colormap} · <span class="none"></span> ${legend.metric === 'sm' ? 'no warp or no SM id' : 'no warp'} · ${shown.toLocaleString('en-US')} of
      ${positioned.toLocaleString('en-US')} warps shown</span>
  </div>`;
}
