/**
 * pixi's GlProgram asks for the fragment shaders' best precision from a WebGL context
 * of its own (getMaxFragmentPrecision → getTestContext: a second WebGL context, made
 * on the page's thread the first time a program is built, kept for the page's life).
 * Making it is one more wait on the GPU process (40-200 ms on a cold page with
 * software GL on the busy 2-core VM). Here the question is put, once, to the
 * timeline's own context instead: the same GPU, and the precision format is all
 * pixi asks of it there.
 *
 * pixi keeps the context it was given as its test context: the only other use,
 * the Batcher's texture count when none is passed (deprecated since 8.8; pixi's own
 * batchers pass it), would lose that context, and nothing here makes such a Batcher.
 */
import { DOMAdapter, getMaxFragmentPrecision, type ICanvas } from 'pixi.js';

export function answerPrecisionProbe(gl: WebGL2RenderingContext): void {
  const adapter = DOMAdapter.get();
  const canvas = { getContext: () => gl } as unknown as ICanvas;
  DOMAdapter.set({ ...adapter, createCanvas: () => canvas });
  try {
    getMaxFragmentPrecision();
  } finally {
    DOMAdapter.set(adapter);
  }
}
