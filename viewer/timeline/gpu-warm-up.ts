/**
 * Starts the browser's GPU stack from a worker before the page's own first WebGL
 * call (gpu-warm-up-worker.ts says why). Once per page; resolves when the worker is
 * done, or without it where workers cannot use OffscreenCanvas, or after
 * `WARM_UP_LIMIT_MS` (the page then starts its renderer and waits, as without it).
 * The worker is left to idle, not terminated: the page's thread waits for a worker's
 * thread to end, and this one's ends by waiting for the GPU process to drop its
 * context (1.4 s on the main thread at load 16).
 */
import { nextTask } from '../base/tasks.js';

/** Longer than a cold start of the GPU stack on a busy 2-core VM with software GL (4-5 s seen at load 15). */
const WARM_UP_LIMIT_MS = 15_000;

let warming: Promise<void> | null = null;
/** Held for the page's life: a collected Worker is terminated. */
let idleWorker: Worker | null = null;

export function warmUpGpu(): Promise<void> {
  warming ??= start();
  return warming;
}

function start(): Promise<void> {
  if (typeof OffscreenCanvas === 'undefined' || typeof Worker === 'undefined') return nextTask();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, WARM_UP_LIMIT_MS);
    try {
      idleWorker = new Worker(new URL('./gpu-warm-up-worker.ts', import.meta.url), { type: 'module', name: 'warptrace-gpu-warm-up' });
      idleWorker.onmessage = done;
      idleWorker.onerror = done;
    } catch {
      done();
    }
  });
}
