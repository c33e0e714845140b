/**
 * GPU warm-up worker: the first WebGL context and the first canvas readback of a
 * page make the browser start its GPU stack (the GPU channel, ANGLE, SwiftShader's
 * device and shader compiler). On a cold browser with software GL that is 0.2-2 s of
 * waiting on the GPU process, and whichever thread touches the GPU first waits.
 * Here it is this worker, not the page's main thread (gpu-warm-up.ts). It answers
 * with the WebGL renderer's name (null: no WebGL here), which the page would
 * otherwise ask its own context for, one more wait on the GPU process.
 */
import { rendererName } from './software-gl.js';

export interface GpuWarmUpReply {
  readonly renderer: string | null;
}

const post = (message: GpuWarmUpReply) => (self as unknown as Worker).postMessage(message);

function warmWebGl(): string | null {
  const gl = new OffscreenCanvas(4, 4).getContext('webgl2');
  if (gl === null) return null;
  const shader = (type: number, source: string) => {
    const s = gl.createShader(type)!;
    gl.shaderSource(s, source);
    gl.compileShader(s);
    return s;
  };
  const program = gl.createProgram();
  gl.attachShader(program, shader(gl.VERTEX_SHADER, '#version 300 es\nvoid main() { gl_Position = vec4(float(gl_VertexID & 1), float(gl_VertexID >> 1), 0.0, 1.0); }'));
  gl.attachShader(program, shader(gl.FRAGMENT_SHADER, '#version 300 es\nprecision mediump float;\nout vec4 color;\nvoid main() { color = vec4(1.0); }'));
  gl.linkProgram(program);
  gl.useProgram(program);
  gl.drawArrays(gl.TRIANGLES, 0, 3);
  // A readback waits until the GPU process has compiled and drawn: the warm-up is over when it returns.
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  const name = rendererName(gl);
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return name;
}

function warmCanvasReadback(): void {
  const ctx = new OffscreenCanvas(6, 1).getContext('2d');
  if (ctx === null) return;
  ctx.fillRect(0, 0, 6, 1);
  ctx.getImageData(0, 0, 1, 1);
}

let renderer: string | null = null;
try {
  renderer = warmWebGl();
  warmCanvasReadback();
} finally {
  post({ renderer });
}
