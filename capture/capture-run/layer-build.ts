/**
 * Builds the capture layer (VK_LAYER_WARPTRACE_capture, capture/layer/) with
 * CMake into the build directory, as buildNative() does for the harness;
 * later builds are incremental. The layer is loaded from the build folder
 * through VK_ADD_LAYER_PATH, so nothing is installed.
 *
 * WARPTRACE_LAYER_DIR names a folder holding a prebuilt layer (its manifest
 * VkLayer_warptrace.json and the library it names): then nothing is built,
 * for packaged installs and for tests that need no C++ toolchain.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { InputError } from '../../cli/command.js';
import { REPO_ROOT, buildDir } from './paths.js';
import { lastLine, runTool } from './tools.js';

/** CMake project of the layer. */
export const LAYER_SOURCE_DIR = join(REPO_ROOT, 'capture', 'layer');
export const LAYER_MANIFEST = 'VkLayer_warptrace.json';
export const LAYER_LIBRARY = 'libVkLayer_warptrace.so';
export const LAYER_NAME = 'VK_LAYER_WARPTRACE_capture';

const INSTALL_HINT = 'install cmake, g++ and libvulkan-dev (see scripts/install-system-deps.sh)';

export function layerBuildDir(): string {
  return join(buildDir(), 'layer');
}

/** The prebuilt layer folder named by WARPTRACE_LAYER_DIR, checked; null when the variable is unset. */
export function prebuiltLayerDir(): string | null {
  const dir = process.env['WARPTRACE_LAYER_DIR'];
  if (dir === undefined || dir === '') return null;
  if (!existsSync(join(dir, LAYER_MANIFEST))) throw new InputError(`WARPTRACE_LAYER_DIR=${dir} holds no ${LAYER_MANIFEST}`);
  return resolve(dir);
}

/**
 * Configures (once) and builds the layer; returns the folder holding its
 * manifest, for VK_ADD_LAYER_PATH. WARPTRACE_LAYER_DIR short-cuts the build.
 */
export async function buildLayer(sourceDir: string = LAYER_SOURCE_DIR): Promise<string> {
  const prebuilt = prebuiltLayerDir();
  if (prebuilt !== null) return prebuilt;
  if (!existsSync(join(sourceDir, 'CMakeLists.txt'))) {
    throw new InputError(`the capture layer has no build yet: ${join(sourceDir, 'CMakeLists.txt')} is missing (or set WARPTRACE_LAYER_DIR to a prebuilt layer)`);
  }
  const dir = layerBuildDir();
  // `cmake --build` costs ~0.2 s even with nothing to do: skip it when the library is newer than every source.
  if (upToDate(dir, sourceDir)) return dir;
  if (!existsSync(join(dir, 'CMakeCache.txt'))) {
    const configure = await runTool('cmake', ['-S', sourceDir, '-B', dir, '-DCMAKE_BUILD_TYPE=Release'], INSTALL_HINT);
    if (configure.code !== 0) {
      const reason = /Could NOT find Vulkan/.test(configure.stdout + configure.stderr) ? `Vulkan headers not found: ${INSTALL_HINT}` : lastLine(configure.stderr);
      throw new InputError(`cannot configure the capture layer: ${reason}`);
    }
  }
  const jobs = String(Math.max(1, Math.min(4, cpus().length)));
  const build = await runTool('cmake', ['--build', dir, '--parallel', jobs], INSTALL_HINT);
  if (build.code !== 0) {
    const error = (build.stdout + build.stderr).split('\n').find((l) => /error/i.test(l)) ?? lastLine(build.stderr);
    throw new InputError(`cannot build the capture layer: ${error.trim()}`);
  }
  for (const name of [LAYER_MANIFEST, LAYER_LIBRARY]) {
    if (!existsSync(join(dir, name))) throw new InputError(`the capture layer built, but ${join(dir, name)} is missing (CMakeLists.txt must produce it)`);
  }
  return dir;
}

/** Whether the built library and manifest are newer than the layer's sources and the host header it includes. */
function upToDate(dir: string, sourceDir: string): boolean {
  const library = join(dir, LAYER_LIBRARY);
  if (!existsSync(library) || !existsSync(join(dir, LAYER_MANIFEST))) return false;
  const built = statSync(library).mtimeMs;
  const sources = [join(sourceDir, 'CMakeLists.txt'), join(sourceDir, 'VkLayer_warptrace.json.in')];
  const src = join(sourceDir, 'src');
  if (existsSync(src)) for (const name of readdirSync(src)) sources.push(join(src, name));
  const host = join(sourceDir, '..', 'host');
  if (existsSync(host)) for (const name of readdirSync(host)) sources.push(join(host, name));
  return sources.every((file) => !existsSync(file) || statSync(file).mtimeMs < built);
}
