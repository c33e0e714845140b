/** Software rasterizers, where per-vertex quads beat instancing by ~9× (quad-mesh.ts). */
export function isSoftwareRendererName(name: string): boolean {
  return /swiftshader|llvmpipe|softpipe|software/i.test(name);
}

/** The WebGL renderer's name (unmasked where the browser tells it). */
export function rendererName(gl: WebGLRenderingContext | WebGL2RenderingContext): string {
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  return String(info === null ? gl.getParameter(gl.RENDERER) : gl.getParameter(info.UNMASKED_RENDERER_WEBGL));
}
