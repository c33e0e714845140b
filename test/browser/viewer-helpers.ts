/** Helpers for the viewer's browser tests: a known trace, mounting the app, reading pixels. */
import { STAGES, decodeTrace, encodeWtrace, type Trace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import '../../viewer/components/warptrace-app.js';
import { RecentsStore, idbBackend } from '../../viewer/loading/recents-store.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';

/** The fixture sample: 4 warps on SMs 0 and 5 (see fixtures/samples/tiny-trace.json). */
export const FIXTURE_BASE = new URL('./fixtures/samples/', import.meta.url).href;

export async function fixtureTrace(): Promise<Trace> {
  const bytes = new Uint8Array(await (await fetch(`${FIXTURE_BASE}tiny-trace.json`)).arrayBuffer());
  return decodeTrace(bytes);
}

/** The fixture as a .wtrace file, as a user would open it. */
export async function fixtureWtrace(): Promise<Blob> {
  return new Blob([encodeWtrace(await fixtureTrace()) as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' });
}

/** A fresh app with its own IndexedDB store, sized for stable pixel positions. */
export async function mountApp(options: { autoOpen?: boolean; dbName?: string; sampleBase?: string } = {}): Promise<WarptraceApp> {
  const app = document.createElement('warptrace-app');
  app.autoOpen = options.autoOpen ?? false;
  app.store = new RecentsStore(idbBackend(options.dbName ?? `warptrace-test-${Math.random().toString(36).slice(2)}`));
  if (options.sampleBase !== undefined) app.sampleBase = options.sampleBase;
  app.style.cssText = 'display:flex;position:fixed;left:0;top:0;width:1200px;height:800px;';
  document.body.append(app);
  await app.updateComplete;
  return app;
}

/** Two animation frames: a frame the timeline asked for in the first has been drawn by the end of the second. */
export async function afterTwoFrames(): Promise<void> {
  await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(r));
}

export async function waitFor<T>(what: string, probe: () => T | null | undefined | false, timeoutMs = 20000): Promise<T> {
  const t0 = performance.now();
  for (;;) {
    const v = probe();
    if (v !== null && v !== undefined && v !== false) return v;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function stageRgb(name: string): [number, number, number] {
  const c = STAGES.find((s) => s.name === name)!.color;
  return [(c >>> 16) & 255, (c >>> 8) & 255, c & 255];
}

export function near(pixel: ArrayLike<number>, rgb: readonly number[], tolerance = 10): boolean {
  return Math.abs(pixel[0]! - rgb[0]!) <= tolerance && Math.abs(pixel[1]! - rgb[1]!) <= tolerance && Math.abs(pixel[2]! - rgb[2]!) <= tolerance;
}

export function rgbText(p: ArrayLike<number>): string {
  return `rgb(${p[0]}, ${p[1]}, ${p[2]})`;
}

/** Text of an element's shadow root (recursively through nested shadow roots). */
export function deepText(root: Element | ShadowRoot): string {
  let out = '';
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) out += node.textContent;
    if (node instanceof Element && node.shadowRoot !== null) walk(node.shadowRoot);
    node.childNodes.forEach(walk);
  };
  walk(root instanceof Element && root.shadowRoot !== null ? root.shadowRoot : root);
  return out.replace(/\s+/g, ' ');
}

/** The page x of time `tNs` on a timeline's time axis, as it is drawn now. */
export function timelineX(tl: WtTimeline, tNs: number): number {
  const s = tl.screenLayout;
  const v = tl.visibleWindow;
  return s.gutter + ((tNs - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s);
}
