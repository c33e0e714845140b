/**
 * Helpers of the `warptrace capture -- APP` tests (capture-app-*.test.ts): the CLI run with a stand-in layer, and fake
 * apps (node scripts that speak the layer's side of the socket protocol), so no C++ layer and no GPU are needed:
 * WARPTRACE_LAYER_DIR points at a folder with a stand-in manifest, and the fake app does what the layer would.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoPath } from './paths.js';

export const bin = repoPath('bin/warptrace.js');
/** The test file's fake apps, outputs and SPIR-V cache (the CLI runs in it). */
export const dir = mkdtempSync(join(tmpdir(), 'warptrace-capture-app-'));
export const layerDir = join(dir, 'layer');
mkdirSync(layerDir);
writeFileSync(join(layerDir, 'VkLayer_warptrace.json'), '{"file_format_version": "1.2.0", "layer": {"name": "VK_LAYER_WARPTRACE_capture"}}');
export const sampleRaw = repoPath('samples', 'raw', 'h100-syncs.wtraw');
const clientUrl = pathToFileURL(repoPath('dist', 'capture', 'layer-server', 'client.js')).href;
/** A fake app's import of the LayerClient, for apps that connect on their own (fakeApp's `connect` false). */
export const layerClient = `import { LayerClient } from ${JSON.stringify(clientUrl)};`;

/** Runs `warptrace ARGS` with the stand-in layer and a private SPIR-V cache. */
export function run(args: readonly string[], extraEnv: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const env = { ...process.env, WARPTRACE_LAYER_DIR: layerDir, WARPTRACE_SPIRV_CACHE: join(dir, 'cache'), VK_INSTANCE_LAYERS: 'VK_LAYER_user_own', ...extraEnv };
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, timeout: 60_000, cwd: dir });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Writes a fake app: `body` runs after it has connected as `client` (a LayerClient) and said hello. */
/** `before` runs before the app says hello (signal handlers: the CLI may act as soon as the hello arrives). */
export function fakeApp(name: string, body: string, connect = true, before = ''): string {
  const path = join(dir, `${name}.mjs`);
  const prelude = connect
    ? `import { LayerClient } from ${JSON.stringify(clientUrl)};
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
const hello = await client.request('hello', { pid: process.pid, app: ${JSON.stringify(name)}, device: { name: 'Fake GPU' }, set: 7 });
if (hello.status !== 0) throw new Error('hello refused');
`
    : '';
  writeFileSync(path, `import { copyFileSync, renameSync, writeFileSync } from 'node:fs';\n${before}\n${prelude}${body}\n`);
  return path;
}
