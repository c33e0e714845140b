// Ray-tracing shaders the corpus lacks: a closest hit and a miss that trace rays of their own (nested
// traversals) and a closest hit that calls a callable shader, for the ray-event tests; and every
// ray-tracing module the tests have.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stageOfShaderFile } from '../../capture/capture-run/shaders.js';
import { RAY_TRACING_STAGES } from '../../instrument/options.js';
import { compileGlsl, pool, spirvLink, workDir, type CorpusModule } from './spirv-tools.js';
import { repoPath } from './paths.js';

const run = promisify(execFile);
export const REFLECT_RCHIT = `#version 460
#extension GL_EXT_ray_tracing : require
layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(location = 0) rayPayloadInEXT vec4 payload;
layout(location = 1) rayPayloadEXT vec4 bounce;
layout(location = 2) callableDataEXT vec3 shaded;
hitAttributeEXT vec2 barycentrics;
void main() {
  shaded = vec3(barycentrics, 1.0);
  executeCallableEXT(0, 2);
  bounce = vec4(0.0);
  if (payload.w < 1.0) {
    vec3 at = gl_WorldRayOriginEXT + gl_WorldRayDirectionEXT * gl_HitTEXT;
    traceRayEXT(scene, gl_RayFlagsNoneEXT, 0xff, 0, 1, 0, at, 0.001, reflect(gl_WorldRayDirectionEXT, vec3(0.0, 1.0, 0.0)), 100.0, 1);
  }
  payload = vec4(shaded, gl_HitTEXT) + bounce;
}
`;

export const FOG_RMISS = `#version 460
#extension GL_EXT_ray_tracing : require
layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(location = 0) rayPayloadInEXT vec4 payload;
layout(location = 1) rayPayloadEXT vec4 behind;
void main() {
  behind = vec4(0.0);
  traceRayEXT(scene, gl_RayFlagsOpaqueEXT, 0xff, 0, 1, 0, gl_WorldRayOriginEXT, 0.001, -gl_WorldRayDirectionEXT, 10.0, 1);
  payload = behind * 0.5;
}
`;

/**
 * Every ray-tracing module the tests have: the corpus's (their SPIR-V versions), the reference workloads'
 * (capture/workloads/shaders/rt*, compiled without the GLSL library's records, for Vulkan 1.2 and 1.3), the two
 * above, and one pipeline linked into a module (all six stages).
 */
export async function compileRayCorpus(corpus: readonly CorpusModule[]): Promise<CorpusModule[]> {
  const fromCorpus = corpus.filter((m) => (RAY_TRACING_STAGES as readonly string[]).includes(m.stage));
  const workload = readdirSync(repoPath('capture', 'workloads', 'shaders')).filter((f) => f.startsWith('rt') && stageOfShaderFile(f) !== undefined);
  const jobs = workload.flatMap((source) => (['vulkan1.2', 'vulkan1.3'] as const).map((env) => ({ source, env })));
  const workloads = await pool(jobs, 2, async ({ source, env }) => {
    const out = join(workDir, `workload-${source}@${env}.spv`);
    await run('glslangValidator', ['-V', '--target-env', env, `-I${repoPath('capture', 'shaders')}`, repoPath('capture', 'workloads', 'shaders', source), '-o', out]);
    return module(`workload ${source}@${env}`, source, stageOfShaderFile(source)!, env, new Uint8Array(readFileSync(out)));
  });
  const inline: CorpusModule[] = [];
  for (const [name, text, ext] of [['reflect.rchit', REFLECT_RCHIT, 'rchit'], ['fog.rmiss', FOG_RMISS, 'rmiss']] as const) {
    for (const env of ['spirv1.4', 'vulkan1.2', 'vulkan1.3']) inline.push(module(`${name}@${env}`, name, stageOfShaderFile(name)!, env, await compileGlsl(text, ext, env)));
  }
  const parts = ['scene.rgen', 'sky.rmiss', 'shade.rchit', 'cutout.rahit', 'sphere.rint', 'tint.rcall'].map((s) => corpus.find((c) => c.id === `${s}@vulkan1.2`)!.bytes);
  const linked = module('linked pipeline@vulkan1.2', 'linked', 'RAYGEN', 'vulkan1.2', await spirvLink(parts, 'vulkan1.2'));
  return [...fromCorpus, ...workloads, ...inline, linked];
}

function module(id: string, source: string, stage: string, env: string, bytes: Uint8Array): CorpusModule {
  const spirv = { 'spirv1.4': '1.4', 'vulkan1.2': '1.5', 'vulkan1.3': '1.6' }[env] ?? '1.5';
  return { id, source, stage, env, spirv, bytes };
}
