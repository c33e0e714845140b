/**
 * The screen panel's canvas: painting an image into it and fitting it to its
 * box, which image pixel a pointer is over, the rectangle a drag spans, the
 * brushed box drawn over it, and the play-through of the time slider.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { TargetSize } from '../../analysis/screen-columns.js';
import type { PixelRect } from '../../analysis/screen-query.js';

/** An image's RGBA into the canvas, at the image's size. */
export function paintImage(canvas: HTMLCanvasElement, image: TargetSize & { readonly rgba: Uint8ClampedArray<ArrayBuffer> }): void {
  const { width, height, rgba } = image;
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  canvas.getContext('2d')?.putImageData(new ImageData(rgba, width, height), 0, 0);
}

/** Scales the canvas to fit `box` at the image's aspect (pixels stay crisp: image-rendering pixelated). */
export function fitCanvas(canvas: HTMLCanvasElement, box: HTMLElement, image: TargetSize): void {
  const scale = Math.min(box.clientWidth / image.width, box.clientHeight / image.height);
  if (!(scale > 0)) return;
  canvas.style.width = `${image.width * scale}px`;
  canvas.style.height = `${image.height * scale}px`;
}

/** Image pixel under a pointer event, clamped to the image. */
export function imagePixel(canvas: HTMLCanvasElement, image: TargetSize, e: PointerEvent): { x: number; y: number } {
  const box = canvas.getBoundingClientRect();
  const x = Math.floor(((e.clientX - box.left) / box.width) * image.width);
  const y = Math.floor(((e.clientY - box.top) / box.height) * image.height);
  return { x: Math.max(0, Math.min(image.width - 1, x)), y: Math.max(0, Math.min(image.height - 1, y)) };
}

/** The rectangle from `start` to `p`, both included. */
export function dragRect(start: { x: number; y: number }, p: { x: number; y: number }): PixelRect {
  return { x: Math.min(start.x, p.x), y: Math.min(start.y, p.y), width: Math.abs(p.x - start.x) + 1, height: Math.abs(p.y - start.y) + 1 };
}

/** The brushed rectangle over the canvas, in CSS pixels. */
export function brushBox(b: PixelRect | null, canvas: HTMLCanvasElement | null, image: TargetSize | null): TemplateResult | typeof nothing {
  if (b === null || canvas === null || image === null) return nothing;
  const sx = canvas.clientWidth / image.width;
  const sy = canvas.clientHeight / image.height;
  return html`<div class="brush" style="left:${canvas.offsetLeft + b.x * sx}px;top:${canvas.offsetTop + b.y * sy}px;width:${b.width * sx}px;height:${b.height * sy}px"></div>`;
}

export function brushInfo(b: PixelRect | null, clear: () => void): TemplateResult {
  return html`<div class="row muted brush-info">
    ${b === null
      ? 'Drag on the image to highlight warps on the timeline'
      : html`Brushed ${b.width} × ${b.height} px at ${b.x}, ${b.y} <button class="clear-brush" @click=${clear}>Clear</button>`}
  </div>`;
}

/** Steps a time cutoff from a span's start to its end, one step per animation frame. */
export class PlayThrough {
  private frame = 0;

  /** From `from` (the span's start when at or past its end) in `steps` steps; `step` gets each cutoff (Infinity: the end, then it stops). */
  start(span: { readonly startNs: number; readonly endNs: number }, from: number, steps: number, step: (untilNs: number) => void): void {
    let until = from >= span.endNs ? span.startNs : from;
    const next = () => {
      until += (span.endNs - span.startNs) / steps;
      const done = until >= span.endNs;
      step(done ? Infinity : until);
      if (!done) this.frame = requestAnimationFrame(next);
    };
    this.frame = requestAnimationFrame(next);
  }

  stop(): void {
    cancelAnimationFrame(this.frame);
  }
}
