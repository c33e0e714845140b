/**
 * When the page's thread should make a synchronous call to the GPU process (a WebGL
 * context, a query, a framebuffer check, a program's link status) on a cold page with
 * software GL, so that the call does not wait long.
 *
 * The GPU process's main thread is blocked for long stretches there: headless (and
 * wherever the GPU process reads each composited frame back to show it) every swap
 * reads the frame back and waits until SwiftShader has drawn it (`ContextVk::finish`
 * in `SwapBuffers`: 100-650 ms each at load 2-4 in the first seconds of a cold page,
 * bench/RESULTS.md), and a new context waits until the GPU process has started it.
 * A synchronous call waits for whichever is in progress, the page's thread with it.
 */
import { afterQueuedTasks, nextFrame } from '../base/tasks.js';

/** Longer than the GPU process's start on a busy 2-core VM with software GL; then the caller goes on (and may wait on the GPU process, as without the fence). */
const FENCE_LIMIT_MS = 10_000;

/**
 * Resolves at the start of the next animation frame (after 1 s where frames do not run):
 * a frame starts once the one before it was swapped, so the GPU process is then free
 * (the page's WebGL context made there: 10-15 ms, against 130-200 ms between frames).
 */
export function atFrameStart(): Promise<void> {
  return nextFrame(1000);
}

/**
 * Resolves once a fence put in `gl`'s command stream now is signalled (the context
 * started and everything before it carried out), or after `FENCE_LIMIT_MS`, or at once
 * where the context is not WebGL2 or is lost. Asynchronous: WebGL updates a sync
 * object's status between tasks, without a round trip.
 */
export async function gpuCaughtUp(gl: WebGLRenderingContext | WebGL2RenderingContext | null): Promise<void> {
  if (gl === null || typeof WebGL2RenderingContext === 'undefined' || !(gl instanceof WebGL2RenderingContext)) return;
  const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (sync === null) return;
  gl.flush();
  const limit = performance.now() + FENCE_LIMIT_MS;
  try {
    while (!gl.isContextLost() && performance.now() < limit) {
      await afterQueuedTasks();
      if (gl.getSyncParameter(sync, gl.SYNC_STATUS) === gl.SIGNALED) return;
    }
  } finally {
    gl.deleteSync(sync);
  }
}
