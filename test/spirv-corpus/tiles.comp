#version 450
// 2D compute with an image store and an early return for out-of-range threads.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D target;
layout(push_constant) uniform Push { ivec2 size; } push;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, push.size))) return;
  imageStore(target, p, vec4(vec2(p) / vec2(push.size), 0.0, 1.0));
}
