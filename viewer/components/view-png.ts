// PNG export of the timeline as drawn: its WebGL layer (lanes, draw track, overview,
// gutter) and its text layer (lane labels, axis, draw labels) composited on the page
// background, at the canvas's device pixels, named after the trace and the time window.
import { html } from 'lit';
import type { TimeWindow } from '../model/time-scale.js';
import type { WtTimeline } from './wt-timeline.js';

/** The timeline's background where nothing is drawn (app-styles' page colour). */
const BACKGROUND = '#15171c';

export interface ViewPng {
  readonly blob: Blob;
  readonly fileName: string;
  /** Device pixels. */
  readonly width: number;
  readonly height: number;
}

/**
 * "aqt_1.2-1.26ms.png": the trace's name without extension and the window in one unit
 * (chosen by its end), from the capture's start (a view reaching before it starts at 0:
 * never a negative time), with the decimals that tell its ends apart; file-name safe.
 */
export function viewPngName(traceName: string, view: TimeWindow): string {
  const base = traceName.replace(/\.[^.]*$/, '').replace(/[^\w.+-]+/g, '-').replace(/^-+|-+$/g, '') || 'trace';
  const start = Math.max(0, Number.isFinite(view.startNs) ? view.startNs : 0);
  const end = Math.max(start, Number.isFinite(view.endNs) ? view.endNs : start);
  const [unit, scale] = end >= 1e9 ? ['s', 1e9] : end >= 1e6 ? ['ms', 1e6] : end >= 1e3 ? ['us', 1e3] : ['ns', 1];
  const span = (end - start) / scale;
  const decimals = span > 0 ? Math.max(0, Math.min(6, Math.ceil(-Math.log10(span)) + 2)) : 0;
  const text = (ns: number) => {
    const fixed = (ns / scale).toFixed(decimals);
    return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
  };
  return `${base}_${text(start)}-${text(end)}${unit}.png`;
}

/**
 * Draws a frame now and composites its layers in the same task (the WebGL drawing buffer
 * is only guaranteed until the task ends), then encodes the PNG.
 */
export async function timelinePng(timeline: WtTimeline, traceName: string): Promise<ViewPng> {
  const root = timeline.renderRoot;
  const gl = root.querySelector('canvas.gl') as HTMLCanvasElement | null;
  const text = root.querySelector('canvas.text') as HTMLCanvasElement | null;
  if (gl === null || text === null || gl.width === 0 || gl.height === 0) throw new Error('the timeline has not drawn yet');
  const out = document.createElement('canvas');
  out.width = gl.width;
  out.height = gl.height;
  const ctx = out.getContext('2d');
  if (ctx === null) throw new Error('no 2D canvas for the PNG');
  ctx.fillStyle = BACKGROUND;
  ctx.fillRect(0, 0, out.width, out.height);
  timeline.renderNow();
  ctx.drawImage(gl, 0, 0);
  ctx.drawImage(text, 0, 0, text.width, text.height, 0, 0, out.width, out.height);
  const blob = await new Promise<Blob | null>((resolve) => out.toBlob(resolve, 'image/png'));
  if (blob === null) throw new Error('the browser could not encode the PNG');
  return { blob, fileName: viewPngName(traceName, timeline.visibleWindow), width: out.width, height: out.height };
}

/** Saves a blob under `fileName` (a download). */
export function download(blob: Blob, fileName: string, parent: Node): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  parent.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Saves `png`: a cancelable wt-export {format: 'png', fileName, blob} from `host` first (as the export panel does), then a download. */
export async function savePng(host: HTMLElement, png: Promise<ViewPng | null>): Promise<void> {
  const p = await png;
  if (p === null) return;
  const detail = { format: 'png', fileName: p.fileName, blob: p.blob };
  if (host.dispatchEvent(new CustomEvent('wt-export', { detail, bubbles: true, composed: true, cancelable: true }))) download(p.blob, p.fileName, host.shadowRoot ?? host);
}

export function pngButton(onClick: () => void) {
  return html`<button class="save-png" @click=${onClick} title="Save the timeline as shown (lanes, labels, axis, draw track) as a PNG image">PNG</button>`;
}
