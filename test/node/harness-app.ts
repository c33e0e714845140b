/**
 * For the layer tests that run our harness as an ordinary app: the harness,
 * its plain (uninstrumented) shaders and the layer, built once per file; and
 * a child process run with that layer and a private SPIR-V cache, killed at a
 * hard limit so a hang fails the test instead of stalling the suite.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { probeDevice } from '../../capture/capture-run/harness.js';
import { buildLayer } from '../../capture/capture-run/layer-build.js';
import { buildNative } from '../../capture/capture-run/native.js';
import { PLAIN, compileShaderSet } from '../../capture/capture-run/shaders.js';
import { repoPath } from './paths.js';

export interface HarnessApp {
  /** wt-capture-vk. */
  readonly binary: string;
  /** Its shaders compiled plain, for `--app --plain-shaders`. */
  readonly plain: string;
  /** The built layer, for WARPTRACE_LAYER_DIR. */
  readonly layerDir: string;
}

export async function prepareHarnessApp(): Promise<HarnessApp> {
  const binary = await buildNative();
  const device = await probeDevice(binary);
  return { binary, plain: await compileShaderSet(device, PLAIN), layerDir: await buildLayer() };
}

export interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

export interface RunOptions {
  /** The test's scratch folder (its SPIR-V cache goes there). */
  readonly dir: string;
  readonly layerDir: string;
  readonly limitMs: number;
  readonly env?: NodeJS.ProcessEnv;
}

export function runWithLayer(command: string, args: readonly string[], options: RunOptions): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, WARPTRACE_SPIRV_CACHE: join(options.dir, 'spirv-cache'), WARPTRACE_LAYER_DIR: options.layerDir, ...options.env };
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: options.limitMs, killSignal: 'SIGKILL' });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** `warptrace ARGS` (this checkout's CLI) with the layer. */
export function warptraceWithLayer(args: readonly string[], options: RunOptions): Promise<Run> {
  return runWithLayer(process.execPath, [repoPath('bin/warptrace.js'), ...args], options);
}
