/**
 * Rectangles in one pixi Mesh, one draw call: per rectangle (x0, x1, y0, y1,
 * rgba). x is stored relative to an origin, in any unit (ns for the
 * timeline); uMap turns it into pixels on the GPU: px = x · uMap.x + uMap.y,
 * so panning and zooming only change uniforms. Rectangles narrower than
 * uMap.w px are widened to it so short warps stay visible; everything is
 * clipped to uClip (x0, x1, y0, y1) in px.
 *
 * Two layouts of the same data:
 * - 'instanced' (hardware GPUs): a unit quad plus one 20-byte instance per
 *   rectangle (instance attributes, drawElementsInstanced).
 * - 'vertices' (software GL: SwiftShader, llvmpipe): the rectangle repeated on
 *   its 4 vertices and the corner taken from gl_VertexID. Software rasterizers
 *   pay ~13 µs per instance but ~1.4 µs per 4 vertices (measured in headless
 *   Chromium/SwiftShader), so headless CI and the benchmark machine use it.
 */
import { Buffer, BufferUsage, Geometry, Mesh, Shader, UniformGroup } from 'pixi.js';
import { INSTANCE_BYTES, INSTANCE_FLOATS, type InstanceWriter } from '../model/instances.js';
import { isSoftwareRendererName, rendererName } from './software-gl.js';

export type QuadLayout = 'instanced' | 'vertices';

function vertexShader(layout: QuadLayout): string {
  const corner =
    layout === 'instanced'
      ? 'vec2 corner = aPosition;'
      : 'int k = gl_VertexID & 3; vec2 corner = vec2((k == 1 || k == 2) ? 1.0 : 0.0, k >= 2 ? 1.0 : 0.0);';
  return /* glsl */ `#version 300 es
${layout === 'instanced' ? 'in vec2 aPosition;' : ''}
in vec4 aRect;
in vec4 aColor;
out vec4 vColor;
uniform mat3 uProjectionMatrix;
uniform mat3 uWorldTransformMatrix;
uniform mat3 uTransformMatrix;
uniform vec4 uMap;
uniform vec4 uClip;
void main() {
  ${corner}
  float x0 = aRect.x * uMap.x + uMap.y;
  float x1 = aRect.y * uMap.x + uMap.y;
  if (x1 - x0 < uMap.w) {
    float mid = 0.5 * (x0 + x1);
    x0 = mid - 0.5 * uMap.w;
    x1 = x0 + uMap.w;
  }
  x0 = clamp(x0, uClip.x, uClip.y);
  x1 = clamp(x1, uClip.x, uClip.y);
  float y0 = clamp(aRect.z + uMap.z, uClip.z, uClip.w);
  float y1 = clamp(aRect.w + uMap.z, uClip.z, uClip.w);
  vec2 p = vec2(mix(x0, x1, corner.x), mix(y0, y1, corner.y));
  // Right to left: three matrix-vector products, not two matrix-matrix ones per vertex.
  vec3 clip = uProjectionMatrix * (uWorldTransformMatrix * (uTransformMatrix * vec3(p, 1.0)));
  gl_Position = vec4(clip.xy, 0.0, 1.0);
  vColor = vec4(aColor.rgb * aColor.a, aColor.a);
}
`;
}

const fragment = /* glsl */ `#version 300 es
precision mediump float;
in vec4 vColor;
out vec4 finalColor;
void main() {
  finalColor = vColor;
}
`;

const MIN_QUADS = 1024;

export class QuadMesh {
  readonly mesh: Mesh<Geometry, Shader>;
  private readonly data: Buffer;
  private readonly indices: Buffer | null;
  private readonly geometry: Geometry;
  private readonly uniforms: UniformGroup;
  private quads = 0;

  constructor(
    label: string,
    readonly layout: QuadLayout = 'instanced',
  ) {
    const perQuadFloats = layout === 'instanced' ? INSTANCE_FLOATS : 4 * INSTANCE_FLOATS;
    this.data = new Buffer({
      data: new Float32Array(MIN_QUADS * perQuadFloats),
      usage: BufferUsage.VERTEX | BufferUsage.COPY_DST,
      label: `${label}-rects`,
    });
    const instance = layout === 'instanced';
    this.indices = instance ? null : new Buffer({ data: quadIndices(MIN_QUADS), usage: BufferUsage.INDEX | BufferUsage.COPY_DST });
    this.geometry = new Geometry({
      attributes: {
        ...(instance ? { aPosition: { buffer: new Float32Array([0, 0, 1, 0, 1, 1, 0, 1]), format: 'float32x2' as const } } : {}),
        aRect: { buffer: this.data, format: 'float32x4', stride: INSTANCE_BYTES, offset: 0, instance },
        aColor: { buffer: this.data, format: 'unorm8x4', stride: INSTANCE_BYTES, offset: 16, instance },
      },
      indexBuffer: this.indices ?? new Uint32Array([0, 1, 2, 0, 2, 3]),
      instanceCount: instance ? 0 : 1,
    });
    this.uniforms = new UniformGroup({
      uMap: { value: new Float32Array([1, 0, 0, 0]), type: 'vec4<f32>' },
      uClip: { value: new Float32Array([0, 1e6, 0, 1e6]), type: 'vec4<f32>' },
    });
    const shader = Shader.from({
      gl: { vertex: vertexShader(layout), fragment, name: `warptrace-quads-${layout}` },
      resources: { quadUniforms: this.uniforms },
    });
    this.mesh = new Mesh({ geometry: this.geometry, shader, label });
    this.mesh.visible = false;
  }

  /** Uploads the writer's rectangles (they replace the previous set). */
  setInstances(writer: InstanceWriter): void {
    const n = writer.count;
    const instanced = this.layout === 'instanced';
    const perQuad = instanced ? INSTANCE_FLOATS : 4 * INSTANCE_FLOATS;
    const floats = n * perQuad;
    let data = this.data.data as Float32Array;
    // Grow with headroom; shrink a buffer left far too large by an earlier frame.
    const reallocate = data.length < floats || data.length > floats * 8 + 65536;
    if (reallocate) data = new Float32Array(Math.max(MIN_QUADS, Math.ceil(n * 1.5)) * perQuad);
    if (instanced) {
      data.set(writer.f32.subarray(0, floats));
    } else {
      // Repeat each rectangle on its four vertices (bit-exact copy through u32 views).
      const src = writer.u32;
      const dst = new Uint32Array(data.buffer, data.byteOffset, data.length);
      for (let q = 0, s = 0, d = 0; q < n; q++, s += INSTANCE_FLOATS) {
        for (let v = 0; v < 4; v++, d += INSTANCE_FLOATS) {
          dst[d] = src[s]!;
          dst[d + 1] = src[s + 1]!;
          dst[d + 2] = src[s + 2]!;
          dst[d + 3] = src[s + 3]!;
          dst[d + 4] = src[s + 4]!;
        }
      }
      const indices = this.indices!;
      if ((indices.data as Uint32Array).length < n * 6) indices.data = quadIndices(Math.ceil(n * 1.5));
      this.geometry.indexCount = n * 6;
    }
    if (reallocate) this.data.data = data;
    else this.data.update(floats * 4);
    if (instanced) this.geometry.instanceCount = n;
    this.quads = n;
    this.mesh.visible = n > 0;
  }

  get count(): number {
    return this.quads;
  }

  /** px = x · scale + offsetX; y px = y + offsetY; rectangles at least minWidth px wide. */
  setMap(scale: number, offsetX: number, offsetY: number, minWidth: number): void {
    const m = this.uniforms.uniforms.uMap as Float32Array;
    m[0] = scale;
    m[1] = offsetX;
    m[2] = offsetY;
    m[3] = minWidth;
    this.uniforms.update();
  }

  setClip(x0: number, x1: number, y0: number, y1: number): void {
    const c = this.uniforms.uniforms.uClip as Float32Array;
    c[0] = x0;
    c[1] = x1;
    c[2] = y0;
    c[3] = y1;
    this.uniforms.update();
  }

  destroy(): void {
    this.mesh.destroy();
    this.geometry.destroy(true);
  }
}

function quadIndices(quads: number): Uint32Array {
  const out = new Uint32Array(Math.max(1, quads) * 6);
  for (let q = 0, i = 0; q < quads; q++, i += 6) {
    const v = q * 4;
    out[i] = v;
    out[i + 1] = v + 1;
    out[i + 2] = v + 2;
    out[i + 3] = v;
    out[i + 4] = v + 2;
    out[i + 5] = v + 3;
  }
  return out;
}

/** Software rasterizers, where per-vertex quads beat instancing by ~9×. */
export function isSoftwareRenderer(gl: WebGLRenderingContext | WebGL2RenderingContext): boolean {
  return isSoftwareRendererName(rendererName(gl));
}
