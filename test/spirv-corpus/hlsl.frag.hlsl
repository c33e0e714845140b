// HLSL pixel shader (glslang's HLSL front end: an entry wrapper of its own,
// clip() discards).
Texture2D albedo : register(t0);
SamplerState linearSampler : register(s0);
struct PSInput { float4 position : SV_Position; float2 uv : TEXCOORD0; };
float4 main(PSInput input, uint prim : SV_PrimitiveID) : SV_Target {
  float4 c = albedo.Sample(linearSampler, input.uv);
  clip(c.a - 0.5);
  return c * float(prim & 1u);
}
