/**
 * Where the capture sources and build outputs live. The compiled module sits
 * in dist/capture/capture-run/, three levels below the repository root.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** GLSL trace library (warptrace.glsl and the generated layout header). */
export const TRACE_SHADER_DIR = join(REPO_ROOT, 'capture', 'shaders');
/** Sources of the reference workloads' shaders. */
export const DEMO_SHADER_DIR = join(REPO_ROOT, 'capture', 'workloads', 'shaders');
/** CMake project of the native harness. */
export const NATIVE_SOURCE_DIR = join(REPO_ROOT, 'capture', 'workloads');

/** Build outputs (git-ignored); WARPTRACE_BUILD_DIR moves them. */
export function buildDir(): string {
  return process.env['WARPTRACE_BUILD_DIR'] ?? join(REPO_ROOT, '.capture-build');
}
