/**
 * Instanced rectangles in one pixi Mesh: a unit quad plus per-instance
 * (x0, x1, y0, y1, rgba). x is stored relative to an origin, in any unit
 * (ns for the timeline); uMap turns it into pixels on the GPU:
 * px = x · uMap.x + uMap.y, so panning and zooming only change uniforms.
 * Rectangles narrower than uMap.w px are widened to it so short warps stay
 * visible; everything is clipped to uClip (x0, x1, y0, y1) in px.
 */
import { Buffer, BufferUsage, Geometry, Mesh, Shader, UniformGroup } from 'pixi.js';
import { INSTANCE_BYTES, type InstanceWriter } from '../model/instances.js';

const vertex = /* glsl */ `#version 300 es
in vec2 aPosition;
in vec4 aRect;
in vec4 aColor;
out vec4 vColor;
uniform mat3 uProjectionMatrix;
uniform mat3 uWorldTransformMatrix;
uniform mat3 uTransformMatrix;
uniform vec4 uMap;
uniform vec4 uClip;
void main() {
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
  vec2 p = vec2(mix(x0, x1, aPosition.x), mix(y0, y1, aPosition.y));
  vec3 clip = uProjectionMatrix * uWorldTransformMatrix * uTransformMatrix * vec3(p, 1.0);
  gl_Position = vec4(clip.xy, 0.0, 1.0);
  vColor = vec4(aColor.rgb * aColor.a, aColor.a);
}
`;

const fragment = /* glsl */ `#version 300 es
precision mediump float;
in vec4 vColor;
out vec4 finalColor;
void main() {
  finalColor = vColor;
}
`;

export class QuadMesh {
  readonly mesh: Mesh<Geometry, Shader>;
  private readonly instanceBuffer: Buffer;
  private readonly geometry: Geometry;
  private readonly uniforms: UniformGroup;

  constructor(label: string) {
    this.instanceBuffer = new Buffer({
      data: new Float32Array(1024 * (INSTANCE_BYTES / 4)),
      usage: BufferUsage.VERTEX | BufferUsage.COPY_DST,
      label: `${label}-instances`,
    });
    this.geometry = new Geometry({
      attributes: {
        aPosition: { buffer: new Float32Array([0, 0, 1, 0, 1, 1, 0, 1]), format: 'float32x2' },
        aRect: { buffer: this.instanceBuffer, format: 'float32x4', stride: INSTANCE_BYTES, offset: 0, instance: true },
        aColor: { buffer: this.instanceBuffer, format: 'unorm8x4', stride: INSTANCE_BYTES, offset: 16, instance: true },
      },
      indexBuffer: new Uint32Array([0, 1, 2, 0, 2, 3]),
      instanceCount: 0,
    });
    this.uniforms = new UniformGroup({
      uMap: { value: new Float32Array([1, 0, 0, 0]), type: 'vec4<f32>' },
      uClip: { value: new Float32Array([0, 1e6, 0, 1e6]), type: 'vec4<f32>' },
    });
    const shader = Shader.from({ gl: { vertex, fragment, name: 'warptrace-quads' }, resources: { quadUniforms: this.uniforms } });
    this.mesh = new Mesh({ geometry: this.geometry, shader, label });
    this.mesh.visible = false;
  }

  /** Uploads the writer's rectangles (all of them replace the previous set). */
  setInstances(writer: InstanceWriter): void {
    const floats = writer.count * (INSTANCE_BYTES / 4);
    const data = this.instanceBuffer.data as Float32Array;
    if (data.length < floats || data.length > floats * 8 + 65536) {
      // Grow (or shrink a buffer left far too large) with headroom.
      const next = new Float32Array(Math.max(1024 * (INSTANCE_BYTES / 4), Math.ceil(floats * 1.5)));
      next.set(writer.f32.subarray(0, floats));
      this.instanceBuffer.data = next;
    } else {
      data.set(writer.f32.subarray(0, floats));
      this.instanceBuffer.update(floats * 4);
    }
    this.geometry.instanceCount = writer.count;
    this.mesh.visible = writer.count > 0;
  }

  get count(): number {
    return this.geometry.instanceCount;
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
