// The layer's instrument server (capture/layer-server) against the protocol
// of capture/layer/CONTRACT.md, spoken by the test client over a real Unix
// socket: instrumented modules equal instrumentSpirv's, the content cache
// (memory, disk, corrupt files), refusals, and defences against bad frames.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstrumentServer, type InstrumentServerOptions } from '../../capture/layer-server/server.js';
import { LayerClient } from '../../capture/layer-server/client.js';
import { SpirvCache, cacheKey, canonicalJson } from '../../capture/layer-server/cache.js';
import { FrameReader, FramingError, HEADER_BYTES, MAX_JSON_BYTES, MAX_PAYLOAD_BYTES, REQUEST_MAGIC, encodeFrame } from '../../capture/layer-server/protocol.js';
import type { HelloInfo, LayerEvent } from '../../capture/layer-server/requests.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { DEFAULT_CUSTOM_IDS, DEFAULT_POSITION_STAGES, type InstrumentOptions, type PositionStage, type SamplingMode } from '../../instrument/options.js';
import { compileCorpusFile, spirvVal, validationEnv } from './spirv-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-server-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let vertex: Uint8Array;
let fragment: Uint8Array;
let closestHit: Uint8Array;
before(async () => {
  vertex = await compileCorpusFile('basic.vert', 'vulkan1.1', []);
  fragment = await compileCorpusFile('alpha.frag', 'vulkan1.1', []);
  closestHit = await compileCorpusFile('shade.rchit', 'vulkan1.2', []);
});

/** An instrument request as the layer sends it for an NVIDIA-like device. */
function request(stage: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { stage, entryPoint: 'main', set: 7, binding: 0, smBuiltins: true, subgroupClock: true, deviceClock: true, subgroupStages: ['VS', 'FS', 'CS'], ...extra };
}

/** The options the server must build from request(stage, extra). */
function expectedOptions(fsCustomId: 'primitive-id' | 'frag-coord' = 'primitive-id', set = 7, sampling: SamplingMode = 'runtime', positionStages: readonly PositionStage[] = DEFAULT_POSITION_STAGES): InstrumentOptions {
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
async function withServer<T>(cacheDir: string | null, body: (server: InstrumentServer, seen: { events: LayerEvent[]; hellos: HelloInfo[]; warnings: string[] }) => Promise<T>, extra: Partial<InstrumentServerOptions> = {}): Promise<T> {
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

test('instrument answers what instrumentSpirv returns; the second request hits the memory cache', async () => {
  const cacheDir = join(dir, 'cache-memory');
  await withServer(cacheDir, async (server) => {
    const client = await LayerClient.connect(server.socketPath);
    const first = await client.request('instrument', request('VS'), vertex);
    assert.equal(first.status, 0, JSON.stringify(first.json));
    assert.equal(first.json['cached'], false);
    assert.equal(typeof first.json['ms'], 'number');
    assert.deepEqual(first.payload, instrumentSpirv(vertex, expectedOptions()).bytes);
    const second = await client.request('instrument', request('VS'), vertex);
    assert.equal(second.status, 0);
    assert.equal(second.json['cached'], true);
    assert.deepEqual(second.payload, first.payload);
    // Other options are another key: a different set is instrumented afresh.
    const otherSet = await client.request('instrument', request('VS', { set: 3 }), vertex);
    assert.equal(otherSet.json['cached'], false);
    assert.deepEqual(otherSet.payload, instrumentSpirv(vertex, expectedOptions('primitive-id', 3)).bytes);
    assert.deepEqual(server.stats, { connections: 1, instrumented: 2, cacheHits: 1, refused: 0, protocolErrors: 0 });
    client.close();
  });
});

test('fsCustomId frag-coord reaches the instrumenter; other customIds stay the defaults', async () => {
  await withServer(null, async (server) => {
    const client = await LayerClient.connect(server.socketPath);
    const frag = await client.request('instrument', request('FS', { fsCustomId: 'frag-coord' }), fragment);
    assert.equal(frag.status, 0, JSON.stringify(frag.json));
    assert.deepEqual(frag.payload, instrumentSpirv(fragment, expectedOptions('frag-coord')).bytes);
    const prim = await client.request('instrument', request('FS'), fragment);
    assert.deepEqual(prim.payload, instrumentSpirv(fragment, expectedOptions('primitive-id')).bytes);
    assert.notDeepEqual(prim.payload, frag.payload);
    client.close();
  });
});

test('sampling reaches the instrumenter: absent is runtime, none differs, validates and has its own cache key; sampleFs is refused', async () => {
  await withServer(null, async (server, seen) => {
    const client = await LayerClient.connect(server.socketPath);
    const byDefault = await client.request('instrument', request('FS'), fragment);
    assert.deepEqual(byDefault.payload, instrumentSpirv(fragment, expectedOptions()).bytes);
    assert.deepEqual((await client.request('instrument', request('FS', { sampling: 'runtime' }), fragment)).payload, byDefault.payload);
    for (const [stage, module] of [['FS', fragment], ['VS', vertex]] as const) {
      const none = await client.request('instrument', request(stage, { sampling: 'none' }), module);
      assert.equal(none.status, 0, JSON.stringify(none.json));
      assert.equal(none.json['cached'], false, `${stage}: not served from the runtime entry`);
      assert.deepEqual(none.payload, instrumentSpirv(module, expectedOptions('primitive-id', 7, 'none')).bytes);
      assert.notDeepEqual(none.payload, instrumentSpirv(module, expectedOptions()).bytes);
      assert.equal(await spirvVal(none.payload, validationEnv('1.3')), null);
    }
    // A compile-time rate is gone: the request says where the rate went instead of dropping it silently.
    const old = await client.request('instrument', request('FS', { sampleFs: 8 }), fragment);
    assert.equal(old.status, 2);
    assert.match(String(old.json['message']), /"sampleFs" is no longer taken: the sampling rate is set at run time .*"sampling": "runtime" or "none"/);
    assert.equal(seen.warnings.length, 1);
    client.close();
  });
});

test('position reaches the instrumenter: absent means FS and every ray-tracing stage, [] none, each with its own cache key', async () => {
  await withServer(null, async (server) => {
    const client = await LayerClient.connect(server.socketPath);
    const byDefault = await client.request('instrument', request('FS'), fragment);
    assert.deepEqual(byDefault.payload, instrumentSpirv(fragment, expectedOptions()).bytes);
    const none = await client.request('instrument', request('FS', { position: [] }), fragment);
    assert.equal(none.json['cached'], false);
    assert.deepEqual(none.payload, instrumentSpirv(fragment, expectedOptions('primitive-id', 7, 'runtime', [])).bytes);
    assert.notDeepEqual(none.payload, byDefault.payload);
    const compute = await client.request('instrument', request('FS', { position: ['CS', 'FS'] }), fragment);
    assert.deepEqual(compute.payload, instrumentSpirv(fragment, expectedOptions('primitive-id', 7, 'runtime', ['FS', 'CS'])).bytes);
    // A closest hit records its position unasked, and only when its stage is listed.
    const hit = async (extra: Record<string, unknown>) => (await client.request('instrument', request('CLOSEST_HIT', extra), closestHit)).payload;
    assert.deepEqual(await hit({}), instrumentSpirv(closestHit, expectedOptions()).bytes);
    assert.deepEqual([await hit({ position: ['CLOSEST_HIT'] }), await hit({ position: ['FS', 'RAYGEN'] })], [await hit({}), instrumentSpirv(closestHit, expectedOptions('primitive-id', 7, 'runtime', ['FS', 'RAYGEN'])).bytes]);
    assert.notDeepEqual(await hit({ position: ['FS', 'RAYGEN'] }), await hit({}));
    for (const bad of [['VS'], 'FS', [1]]) {
      const r = await client.request('instrument', request('FS', { position: bad }), fragment);
      assert.equal(r.status, 2, JSON.stringify(bad));
      assert.match(String(r.json['message']), /"position" must be a list of stages among FS, RAYGEN, ANY_HIT, CLOSEST_HIT, MISS, INTERSECTION, CALLABLE, CS/);
    }
    client.close();
  });
});

test('marks reach the instrumenter: in the instrumenter\'s order, each list with its own cache key; other sites refused', async () => {
  await withServer(null, async (server) => {
    const client = await LayerClient.connect(server.socketPath);
    const plain = await client.request('instrument', request('FS'), fragment);
    const marked = await client.request('instrument', request('FS', { marks: ['loops', 'trace'] }), fragment);
    assert.equal(marked.status, 0, JSON.stringify(marked.json));
    assert.equal(marked.json['cached'], false, 'not served from the entry without marks');
    assert.deepEqual(marked.payload, instrumentSpirv(fragment, { ...expectedOptions(), marks: ['trace', 'loops'] }).bytes);
    assert.notDeepEqual(marked.payload, plain.payload);
    assert.deepEqual((await client.request('instrument', request('FS', { marks: [] }), fragment)).payload, plain.payload);
    for (const bad of [['calls'], 'loops', [3]]) {
      const r = await client.request('instrument', request('FS', { marks: bad }), fragment);
      assert.equal(r.status, 2, JSON.stringify(bad));
      assert.match(String(r.json['message']), /"marks" must be a list of mark sites among trace, loops/);
    }
    client.close();
  });
});

test('rayEvents reaches the instrumenter: absent means off, true a module with ray events under its own cache key; a non-boolean refused', async () => {
  const raygen = await compileCorpusFile('scene.rgen', 'vulkan1.2', []);
  await withServer(null, async (server) => {
    const client = await LayerClient.connect(server.socketPath);
    const plain = await client.request('instrument', request('RAYGEN'), raygen);
    assert.deepEqual(plain.payload, instrumentSpirv(raygen, expectedOptions()).bytes);
    const rays = await client.request('instrument', request('RAYGEN', { rayEvents: true }), raygen);
    assert.equal(rays.status, 0, JSON.stringify(rays.json));
    assert.equal(rays.json['cached'], false, 'not served from the entry without ray events');
    assert.deepEqual(rays.payload, instrumentSpirv(raygen, { ...expectedOptions(), rayEvents: true }).bytes);
    assert.notDeepEqual(rays.payload, plain.payload);
    assert.equal(await spirvVal(rays.payload, validationEnv('1.5')), null);
    assert.deepEqual((await client.request('instrument', request('RAYGEN', { rayEvents: false }), raygen)).payload, plain.payload);
    for (const bad of ['yes', 1, null]) {
      const r = await client.request('instrument', request('RAYGEN', { rayEvents: bad }), raygen);
      if (bad === null) {
        // JSON null reads as absent, like the other optional fields.
        assert.deepEqual(r.payload, plain.payload);
        continue;
      }
      assert.equal(r.status, 2, JSON.stringify(bad));
      assert.match(String(r.json['message']), /"rayEvents" must be true or false/);
    }
    client.close();
  });
});

test('the disk cache serves a restarted server; a corrupt cache file is ignored and rewritten', async () => {
  const cacheDir = join(dir, 'cache-disk');
  const expected = instrumentSpirv(vertex, expectedOptions()).bytes;
  await withServer(cacheDir, async (server) => {
    const client = await LayerClient.connect(server.socketPath);
    assert.equal((await client.request('instrument', request('VS'), vertex)).json['cached'], false);
    client.close();
  });
  // Written atomically: only the final file is left, no temporary ones.
  const files = readdirSync(cacheDir);
  assert.deepEqual(files, [`${cacheKey(vertex, expectedOptions())}.spv`]);
  await withServer(cacheDir, async (server) => {
    const client = await LayerClient.connect(server.socketPath);
    const again = await client.request('instrument', request('VS'), vertex);
    assert.equal(again.json['cached'], true);
    assert.deepEqual(again.payload, expected);
    client.close();
  });
  for (const corruption of [new Uint8Array(0), new Uint8Array(100).fill(7), flipLastByte(join(cacheDir, files[0]!))]) {
    writeFileSync(join(cacheDir, files[0]!), corruption);
    await withServer(cacheDir, async (server) => {
      const client = await LayerClient.connect(server.socketPath);
      const fresh = await client.request('instrument', request('VS'), vertex);
      assert.equal(fresh.status, 0);
      assert.equal(fresh.json['cached'], false, 'a corrupt file is not served');
      assert.deepEqual(fresh.payload, expected);
      client.close();
    });
    // Rewritten: the next server reads it back.
    assert.deepEqual(new SpirvCache({ dir: cacheDir }).get(files[0]!.replace('.spv', '')), expected);
  }
});

/** The file with its last byte changed: the right size and magic, a wrong checksum. */
function flipLastByte(path: string): Uint8Array {
  const bytes = new Uint8Array(readFileSync(path));
  bytes[bytes.length - 1]! ^= 0xff;
  return bytes;
}

test('canonical options JSON does not depend on key order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 2 }], c: null } }), '{"a":{"c":null,"d":[2,{"x":2,"y":1}]},"b":1}');
  const options = expectedOptions();
  const reordered = Object.fromEntries(Object.entries(options).reverse()) as unknown as InstrumentOptions;
  assert.equal(cacheKey(vertex, options), cacheKey(vertex, reordered));
  assert.notEqual(cacheKey(vertex, options), cacheKey(vertex, options, 'another-version'));
});

test('a module the instrumenter refuses gets status 1 with its message; the connection goes on', async () => {
  await withServer(null, async (server) => {
    const client = await LayerClient.connect(server.socketPath);
    let message = '';
    try {
      instrumentSpirv(vertex, { ...expectedOptions(), entryPoints: ['missing'] });
    } catch (error) {
      message = (error as Error).message;
    }
    assert.notEqual(message, '');
    const refused = await client.request('instrument', request('VS', { entryPoint: 'missing' }), vertex);
    assert.equal(refused.status, 1);
    assert.equal(refused.json['message'], message);
    assert.equal(refused.payload.length, 0);
    const garbage = await client.request('instrument', request('VS'), new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
    assert.equal(garbage.status, 1);
    assert.match(String(garbage.json['message']), /./);
    assert.equal((await client.request('instrument', request('VS'), vertex)).status, 0);
    assert.equal(server.stats.refused, 2);
    client.close();
  });
});

test('malformed request JSON is a protocol error (status 2) that keeps the connection', async () => {
  await withServer(null, async (server, seen) => {
    const client = await LayerClient.connect(server.socketPath);
    const cases: [string, Record<string, unknown>][] = [
      ['stage', request('XS')],
      ['entryPoint', request('VS', { entryPoint: 7 })],
      ['set', request('VS', { set: -1 })],
      ['binding', request('VS', { binding: 0xffffffff })],
      ['smBuiltins', request('VS', { smBuiltins: 'yes' })],
      ['subgroupStages', request('VS', { subgroupStages: 'FS' })],
      ['fsCustomId', request('FS', { fsCustomId: 'vertex-index' })],
      ['sampleFs', request('FS', { sampleFs: 1 })],
      ['sampling', request('FS', { sampling: 'fs=8' })],
      ['sampling', request('FS', { sampling: 8 })],
      ['sampling', request('FS', { sampling: null })],
    ];
    for (const [field, json] of cases) {
      const r = await client.request('instrument', json, vertex);
      assert.equal(r.status, 2, field);
      assert.match(String(r.json['message']), new RegExp(field), field);
    }
    const notJson = await client.sendRaw(rawFrame(REQUEST_MAGIC, 3, new TextEncoder().encode('{oops'), 0));
    assert.equal(notJson.status, 2);
    assert.equal((await client.request(99, {})).status, 2, 'unknown request type');
    assert.equal((await client.request('hello', { pid: 1, app: 'a', device: {}, set: 7 })).status, 0, 'still served');
    assert.equal(seen.warnings.length, cases.length + 2);
    client.close();
  });
});

test('bad magic or an oversize length: status 2, that connection closed, the server serves the others', async () => {
  await withServer(null, async (server) => {
    const bystander = await LayerClient.connect(server.socketPath);
    const badFrames = [
      rawFrame(0xdeadbeef, 1, new Uint8Array(0), 0),
      rawFrame(REQUEST_MAGIC, 2, new Uint8Array(0), MAX_PAYLOAD_BYTES + 1),
      rawFrame(REQUEST_MAGIC, 2, new Uint8Array(0), 0, MAX_JSON_BYTES + 1),
      rawFrame(REQUEST_MAGIC, 2, new Uint8Array(0), 0xffffffff, 0xffffffff),
    ];
    for (const bytes of badFrames) {
      const client = await LayerClient.connect(server.socketPath);
      const r = await client.sendRaw(bytes);
      assert.equal(r.status, 2);
      assert.match(String(r.json['message']), /magic|exceeds/);
      await client.closed();
    }
    // A good request before the bad header is answered first, in order.
    const mixed = await LayerClient.connect(server.socketPath);
    const good = encodeFrame(REQUEST_MAGIC, 1, { pid: 2, app: 'b', device: {}, set: 7 });
    const answers = [mixed.next(), mixed.next()];
    await mixed.write(concat(good, rawFrame(0x12345678, 1, new Uint8Array(0), 0)));
    assert.deepEqual((await Promise.all(answers)).map((a) => a.status), [0, 2]);
    await mixed.closed();
    const ok = await bystander.request('instrument', request('VS'), vertex);
    assert.equal(ok.status, 0);
    assert.equal(server.stats.protocolErrors, badFrames.length + 1);
    bystander.close();
  });
});

test('requests split into single bytes and pipelined requests are answered in order; several connections at once', async () => {
  await withServer(null, async (server) => {
    const clients = await Promise.all([0, 1, 2].map(() => LayerClient.connect(server.socketPath)));
    const answers = clients.map(async (client, i) => {
      const stream = concat(
        encodeFrame(REQUEST_MAGIC, 2, request("VS", { set: i + 4 }), vertex),
        encodeFrame(REQUEST_MAGIC, 1, { pid: i, app: `app${i}`, device: { name: 'gpu' }, set: i }),
        encodeFrame(REQUEST_MAGIC, 2, request("FS", { set: i + 4 }), fragment),
      );
      const pending = [client.next(), client.next(), client.next()];
      // One byte per write for the first client: the reader must reassemble headers and bodies.
      if (i === 0) for (const byte of stream) await client.write(Uint8Array.of(byte));
      else await client.write(stream);
      const [a, b, c] = await Promise.all(pending);
      assert.deepEqual(a!.payload, instrumentSpirv(vertex, expectedOptions("primitive-id", i + 4)).bytes);
      assert.equal(b!.status, 0);
      assert.deepEqual(c!.payload, instrumentSpirv(fragment, expectedOptions("primitive-id", i + 4)).bytes);
      client.close();
    });
    await Promise.all(answers);
    assert.equal(server.hellos.length, 3);
  });
});

test('events reach the callback typed; hello is recorded; an unknown event is acknowledged and ignored', async () => {
  await withServer(null, async (server, seen) => {
    const client = await LayerClient.connect(server.socketPath);
    const hello = { pid: 42, app: 'vkcube', device: { name: 'NVIDIA H100', subgroupSize: 32 }, set: 7, target: { smBuiltins: true } };
    assert.equal((await client.request('hello', hello)).status, 0);
    const events = [
      { event: 'skipped', what: 'pipeline 0x1234', why: 'ray tracing' },
      { event: 'capture-started', frame: 60 },
      { event: 'capture-written', path: '/tmp/x.wtraw', draws: 12, records: 1000, counter: 1200, capacity: 1000 },
      { event: 'capture-failed', why: 'device lost', frames: 61 },
    ];
    for (const e of events) assert.equal((await client.request('event', e)).status, 0);
    assert.equal((await client.request('event', { event: 'from-the-future', x: 1 })).status, 0);
    assert.equal((await client.request('event', { event: 'capture-written', path: 3 })).status, 2);
    assert.deepEqual(seen.hellos, [hello]);
    assert.deepEqual(seen.events, [
      { event: 'skipped', what: 'pipeline 0x1234', why: 'ray tracing' },
      { event: 'capture-started', frame: 60, frames: null },
      { event: 'capture-written', path: '/tmp/x.wtraw', draws: 12, records: 1000, counter: 1200, capacity: 1000 },
      { event: 'capture-failed', why: 'device lost', frames: 61 },
    ]);
    assert.match(seen.warnings.join('\n'), /unknown event "from-the-future"/);
    client.close();
  });
});

test('the frame reader checks sizes from the header alone, before the body arrives', () => {
  const reader = new FrameReader(REQUEST_MAGIC);
  const header = rawFrame(REQUEST_MAGIC, 2, new Uint8Array(0), MAX_PAYLOAD_BYTES + 1).subarray(0, HEADER_BYTES);
  assert.ok(reader.push(header).error instanceof FramingError);
  assert.ok(reader.push(new Uint8Array(1)).error instanceof FramingError, 'stays failed');
  const ok = new FrameReader(REQUEST_MAGIC);
  const frame = encodeFrame(REQUEST_MAGIC, 1, { a: 1 }, new Uint8Array([1, 2, 3, 4]));
  assert.deepEqual(ok.push(frame.subarray(0, 10)), { frames: [], error: null });
  const [got] = ok.push(frame.subarray(10)).frames;
  assert.deepEqual([got!.code, new TextDecoder().decode(got!.json), [...got!.payload]], [1, '{"a":1}', [1, 2, 3, 4]]);
  assert.equal(ok.bufferedBytes, 0);
});

test('a cache folder that cannot be created falls back to memory with a warning', async () => {
  const blocker = join(dir, 'not-a-folder');
  writeFileSync(blocker, 'x');
  await withServer(join(blocker, 'spirv'), async (server, seen) => {
    const client = await LayerClient.connect(server.socketPath);
    assert.equal((await client.request('instrument', request('VS'), vertex)).json['cached'], false);
    assert.equal((await client.request('instrument', request('VS'), vertex)).json['cached'], true);
    assert.match(seen.warnings.join('\n'), /caching in memory only/);
    client.close();
  });
  assert.equal(existsSync(join(blocker, 'spirv')), false);
});

/** A frame with arbitrary header words and no size checks (to send what a broken layer might). */
function rawFrame(magic: number, type: number, json: Uint8Array, payloadBytes: number, jsonBytes = json.length): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + json.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, magic, true);
  view.setUint32(4, type, true);
  view.setUint32(8, jsonBytes, true);
  view.setUint32(12, payloadBytes, true);
  out.set(json, HEADER_BYTES);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
