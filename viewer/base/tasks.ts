/**
 * Yielding to the page between steps of a long piece of work, so that no one
 * task holds the main thread for all of them (input, painting and other
 * tasks run in between).
 */

/** Resolves in a new task, ahead of timers where the browser has scheduler.yield. */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (scheduler?.yield !== undefined) return scheduler.yield();
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/**
 * Resolves in a task behind those already queued (a 0 ms timer): for background work in
 * slices, such as copying columns to a worker, which should not go ahead of the page's
 * other tasks as nextTask's continuations do.
 */
export function afterQueuedTasks(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Resolves after the next animation frame's callbacks, or after `timeoutMs` (rAF does not run in hidden tabs). */
export function nextFrame(timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      cancelAnimationFrame(frame);
      resolve();
    }, timeoutMs);
    const frame = requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Runs `work` when the page is idle (requestIdleCallback; a timer where there is none). */
export function whenIdle(work: () => void): void {
  const idle = (globalThis as { requestIdleCallback?: (cb: () => void, options?: { timeout: number }) => number }).requestIdleCallback;
  if (idle !== undefined) idle(work, { timeout: 2000 });
  else setTimeout(work, 50);
}

/**
 * Runs a generator of work steps a task at a time (each task steps it for at most `taskMs`),
 * and resolves with its result, or with null once `current()` says the work was superseded.
 */
export async function runInTasks<T>(steps: Generator<void, T>, taskMs: number, current: () => boolean): Promise<{ readonly value: T } | null> {
  for (;;) {
    await nextTask();
    if (!current()) return null;
    const t0 = performance.now();
    let r = steps.next();
    while (r.done !== true && performance.now() - t0 < taskMs) r = steps.next();
    if (r.done === true) return { value: r.value };
  }
}
