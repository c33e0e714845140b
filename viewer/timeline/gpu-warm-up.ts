/**
 * Starts the browser's GPU stack from a worker before the page's own first WebGL
 * call (gpu-warm-up-worker.ts says why). Once per page; resolves when the worker is
 * done, or without it where workers cannot use OffscreenCanvas, or after
 * `WARM_UP_LIMIT_MS` (the page then starts its renderer and waits, as without it).
 */
import { nextTask } from '../base/tasks.js';

/** Longer than a cold start on a busy 2-core VM with software GL (measured up to ~2 s). */
const WARM_UP_LIMIT_MS = 4000;

let warming: Promise<void> | null = null;

export function warmUpGpu(): Promise<void> {
  warming ??= start();
  return warming;
}

function start(): Promise<void> {
  if (typeof OffscreenCanvas === 'undefined' || typeof Worker === 'undefined') return nextTask();
  return new Promise<void>((resolve) => {
    let worker: Worker | null = null;
    const done = () => {
      clearTimeout(timer);
      worker?.terminate();
      worker = null;
      resolve();
    };
    const timer = setTimeout(done, WARM_UP_LIMIT_MS);
    try {
      worker = new Worker(new URL('./gpu-warm-up-worker.ts', import.meta.url), { type: 'module', name: 'warptrace-gpu-warm-up' });
      worker.onmessage = done;
      worker.onerror = done;
    } catch {
      done();
    }
  });
}
