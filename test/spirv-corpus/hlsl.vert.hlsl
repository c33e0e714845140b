// HLSL vertex shader with SV_VertexID.
cbuffer Camera : register(b0) { float4x4 viewProj; };
struct VSOutput { float4 position : SV_Position; float2 uv : TEXCOORD0; };
VSOutput main(float3 position : POSITION, uint id : SV_VertexID) {
  VSOutput o;
  o.position = mul(viewProj, float4(position, 1.0));
  o.uv = float2(id & 1u, id >> 1);
  return o;
}
