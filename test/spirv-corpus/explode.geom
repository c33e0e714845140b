#version 450
// Geometry: loops over EmitVertex/EndPrimitive, and reads gl_PrimitiveIDIn itself.
layout(triangles) in;
layout(triangle_strip, max_vertices = 6) out;
layout(location = 0) in vec3 vNormal[];
layout(location = 0) out vec3 gNormal;
layout(location = 1) flat out int gPrim;
void main() {
  for (int copy = 0; copy < 2; ++copy) {
    for (int i = 0; i < 3; ++i) {
      gNormal = vNormal[i];
      gPrim = gl_PrimitiveIDIn;
      gl_Position = gl_in[i].gl_Position + vec4(vNormal[i] * float(copy) * 0.1, 0.0);
      EmitVertex();
    }
    EndPrimitive();
  }
}
