#version 450
#extension GL_EXT_shader_realtime_clock : require
// Source of the SPIR-V embedded in warptrace_clocks.h (wtClockCheckSpirv_): one
// invocation stores the device clock into record slot `slot` of the trace
// buffer, between two timestamp queries. Regenerate with
//   glslangValidator -V --target-env vulkan1.1 --vn wtClockCheckSpirv_ clockcheck.comp -o /dev/stdout
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer WarpTraceBuffer { uint header[4]; uvec4 records[]; };
layout(push_constant) uniform Sample { uint slot; };

void main() { records[slot] = uvec4(clockRealtime2x32EXT(), 0u, 0u); }
