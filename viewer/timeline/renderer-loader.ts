/**
 * Loads the timeline's renderer (timeline-renderer.ts, and pixi.js with it) after the
 * GPU warm-up (gpu-warm-up.ts): the page's main thread neither evaluates pixi in its
 * first task nor is the first to wait for the GPU process (the renderer's start makes
 * the page's first WebGL context).
 *
 * pixi.js, as it is evaluated, tests whether 2D canvases blend with 'multiply' by
 * drawing two 6×1 canvases into a third and reading a pixel back (its canvasUtils,
 * for the Canvas renderer, which the timeline never uses). On an accelerated 2D
 * canvas that read is a GPU readback, which waits for the GPU process: 0.3-2 s in the
 * task that evaluates pixi on a cold browser with software GL. While pixi and its
 * browser extensions are evaluated, 2D contexts are asked for with `willReadFrequently`
 * (a canvas on the CPU, where the read is a copy); any other canvas that gets its 2D
 * context in that window only draws on the CPU too.
 */
import { warmUpGpu } from './gpu-warm-up.js';
import type { QuadLayout } from './quad-mesh.js';
import { isSoftwareRendererName } from './software-gl.js';

type RendererModule = typeof import('./timeline-renderer.js');

/** The renderer's module, and the quad layout for this browser's WebGL when the warm-up found out (else undefined: the renderer asks its context). */
export interface LoadedRenderer {
  readonly module: RendererModule;
  readonly layout: QuadLayout | undefined;
}

let loading: Promise<LoadedRenderer> | null = null;

export function loadTimelineRenderer(): Promise<LoadedRenderer> {
  // A failed load (the module's fetch) is tried again by the next caller.
  loading ??= load().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

async function load(): Promise<LoadedRenderer> {
  // Not while the worker warms up: the page's first 2D context, even a CPU one, makes the
  // page's own GPU context (a synchronous round trip), which then waits for the worker's
  // work in the GPU process (1.4 s at load 18).
  const gpu = await warmUpGpu();
  const module = await importOnCpuCanvases();
  return { module, layout: gpu.renderer === null ? undefined : isSoftwareRendererName(gpu.renderer) ? 'vertices' : 'instanced' };
}

async function importOnCpuCanvases(): Promise<RendererModule> {
  const proto = HTMLCanvasElement.prototype;
  const getContext = proto.getContext as (this: HTMLCanvasElement, id: string, options?: object | null) => RenderingContext | null;
  const onTheCpu = function (this: HTMLCanvasElement, id: string, options?: object | null) {
    return getContext.call(this, id, id === '2d' ? { ...options, willReadFrequently: true } : options);
  };
  proto.getContext = onTheCpu as typeof proto.getContext;
  try {
    const module = await import('./timeline-renderer.js');
    // Built for production, pixi's canvas checks come with its browser extensions, a later import.
    await module.TimelineRenderer.loadExtensions();
    return module;
  } finally {
    proto.getContext = getContext as typeof proto.getContext;
  }
}
