/** Helpers of the layer-server tests: the modules they send, the requests the layer makes, a server to send them to. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstrumentServer, type InstrumentServerOptions } from '../../capture/layer-server/server.js';
import type { HelloInfo, LayerEvent } from '../../capture/layer-server/requests.js';
import { DEFAULT_CUSTOM_IDS, DEFAULT_POSITION_STAGES, type InstrumentOptions, type PositionStage, type SamplingMode } from '../../instrument/options.js';
import { compileCorpusFile } from './spirv-tools.js';

/** The test file's sockets and caches; each test file removes it when it is done. */
export const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-server-'));

/** The corpus modules the tests send: a vertex, a fragment and a closest-hit shader. */
export async function compileModules(): Promise<{ vertex: Uint8Array; fragment: Uint8Array; closestHit: Uint8Array }> {
  return {
    vertex: await compileCorpusFile('basic.vert', 'vulkan1.1', []),
    fragment: await compileCorpusFile('alpha.frag', 'vulkan1.1', []),
    closestHit: await compileCorpusFile('shade.rchit', 'vulkan1.2', []),
  };
}

/** An instrument request as the layer sends it for an NVIDIA-like device. */
export function request(stage: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { stage, entryPoint: 'main', set: 7, binding: 0, smBuiltins: true, subgroupClock: true, deviceClock: true, subgroupStages: ['VS', 'FS', 'CS'], ...extra };
}

/** The options the server must build from request(stage, extra). */
export function expectedOptions(fsCustomId: 'primitive-id' | 'frag-coord' = 'primitive-id', set = 7, sampling: SamplingMode = 'runtime', positionStages: readonly PositionStage[] = DEFAULT_POSITION_STAGES): InstrumentOptions {
  return {
    set,
    binding: 0,
    smBuiltins: true,
    subgroupClock: true,
    deviceClock: true,
    subgroupStages: ['VS', 'FS', 'CS'],
    customIds: { ...DEFAULT_CUSTOM_IDS, FS: fsCustomId },
    legacySubgroup: 'upgrade',
    discard: 'defer',
    blocks: false,
    marks: [],
    rayEvents: false,
    entryPoints: ['main'],
    sampling,
    positionStages,
  };
}

let socketCount = 0;
/** Runs `body` against a fresh server on its own socket in `dir`; `seen` collects what the server's callbacks were given. */
export async function withServer<T>(cacheDir: string | null, body: (server: InstrumentServer, seen: { events: LayerEvent[]; hellos: HelloInfo[]; warnings: string[] }) => Promise<T>, extra: Partial<InstrumentServerOptions> = {}): Promise<T> {
  const seen = { events: [] as LayerEvent[], hellos: [] as HelloInfo[], warnings: [] as string[] };
  const server = await InstrumentServer.start({
    socketPath: join(dir, `s${socketCount++}.sock`),
    cacheDir,
    onEvent: (e) => seen.events.push(e),
    onHello: (h) => seen.hellos.push(h),
    onWarning: (w) => seen.warnings.push(w),
    ...extra,
  });
  try {
    return await body(server, seen);
  } finally {
    await server.close();
  }
}
