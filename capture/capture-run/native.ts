/**
 * Builds the native harness (wt-capture-vk) with CMake into the build
 * directory; later builds are incremental (only changed sources recompile).
 */
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../cli/command.js';
import { NATIVE_SOURCE_DIR, buildDir } from './paths.js';
import { lastLine, runTool } from './tools.js';

const INSTALL_HINT = 'install cmake, g++ and libvulkan-dev (see scripts/install-system-deps.sh)';

export function nativeBinaryPath(): string {
  return join(buildDir(), 'native', 'wt-capture-vk');
}

/** Configures (once) and builds the harness; returns the binary's path. */
export async function buildNative(): Promise<string> {
  const dir = join(buildDir(), 'native');
  if (!existsSync(join(dir, 'CMakeCache.txt'))) {
    const configure = await runTool('cmake', ['-S', NATIVE_SOURCE_DIR, '-B', dir, '-DCMAKE_BUILD_TYPE=Release'], INSTALL_HINT);
    if (configure.code !== 0) {
      const reason = /Could NOT find Vulkan/.test(configure.stdout + configure.stderr) ? `Vulkan headers not found: ${INSTALL_HINT}` : lastLine(configure.stderr);
      throw new InputError(`cannot configure the capture harness: ${reason}`);
    }
  }
  const jobs = String(Math.max(1, Math.min(4, cpus().length)));
  const build = await runTool('cmake', ['--build', dir, '--parallel', jobs], INSTALL_HINT);
  if (build.code !== 0) {
    const error = (build.stdout + build.stderr).split('\n').find((l) => /error/i.test(l)) ?? lastLine(build.stderr);
    throw new InputError(`cannot build the capture harness: ${error.trim()}`);
  }
  return nativeBinaryPath();
}
