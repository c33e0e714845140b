/**
 * Starts the browser's GPU stack from a worker before the page's own first WebGL
 * call (gpu-warm-up-worker.ts says why), then makes the page's own GPU context for
 * 2D canvases in a task of its own. Once per page; resolves with the WebGL renderer's
 * name once both are done, or without a worker where workers cannot use
 * OffscreenCanvas, or after `WARM_UP_LIMIT_MS` (the page then starts its renderer and
 * waits, as without it).
 * The worker is left to idle, not terminated: the page's thread waits for a worker's
 * thread to end, and this one's ends by waiting for the GPU process to drop its
 * context (1.4 s on the main thread at load 16).
 */
import { atFrameStart } from './gpu-waits.js';
import type { GpuWarmUpReply } from './gpu-warm-up-worker.js';

/** Longer than a cold start of the GPU stack on a busy 2-core VM with software GL (4-5 s seen at load 15). */
const WARM_UP_LIMIT_MS = 15_000;

export interface GpuInfo {
  /** The WebGL renderer's name as the worker saw it; null: not known (no worker, no WebGL there, or too late). */
  readonly renderer: string | null;
}

let warming: Promise<GpuInfo> | null = null;
/** Held for the page's life: a collected Worker is terminated. */
let idleWorker: Worker | null = null;

export function warmUpGpu(): Promise<GpuInfo> {
  warming ??= start();
  return warming;
}

async function start(): Promise<GpuInfo> {
  const info = await warmInWorker();
  // The page's first 2D context (even a CPU one) makes the page's GPU context for 2D canvases,
  // a synchronous round trip to the GPU process: here, at a frame's start (gpu-waits.ts), not in
  // whichever task first draws text or an image (pixi's import, the screen panel's first image,
  // the timeline's labels).
  await atFrameStart();
  document.createElement('canvas').getContext('2d')?.fillRect(0, 0, 1, 1);
  return info;
}

function warmInWorker(): Promise<GpuInfo> {
  if (typeof OffscreenCanvas === 'undefined' || typeof Worker === 'undefined') return Promise.resolve({ renderer: null });
  return new Promise<GpuInfo>((resolve) => {
    const done = (info: GpuInfo) => {
      clearTimeout(timer);
      resolve(info);
    };
    const timer = setTimeout(() => done({ renderer: null }), WARM_UP_LIMIT_MS);
    try {
      idleWorker = new Worker(new URL('./gpu-warm-up-worker.ts', import.meta.url), { type: 'module', name: 'warptrace-gpu-warm-up' });
      idleWorker.onmessage = (event: MessageEvent<GpuWarmUpReply>) => done({ renderer: event.data.renderer });
      idleWorker.onerror = () => done({ renderer: null });
    } catch {
      done({ renderer: null });
    }
  });
}
