// The layer's instrument server (capture/layer-server) against the protocol
// of capture/layer/CONTRACT.md, spoken by the test client over a real Unix
// socket: instrumented modules equal instrumentSpirv's, and every option of an
// instrument request reaches the instrumenter under its own cache key.
// layer-server-cache.test.ts covers the content cache, layer-server-protocol.test.ts
// refusals and defences against bad frames.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { LayerClient } from '../../capture/layer-server/client.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { compileCorpusFile, spirvVal, validationEnv } from './spirv-tools.js';
import { compileModules, dir, expectedOptions, request, withServer } from './layer-server-helpers.js';

after(() => rmSync(dir, { recursive: true, force: true }));

let vertex: Uint8Array;
let fragment: Uint8Array;
let closestHit: Uint8Array;
before(async () => {
  ({ vertex, fragment, closestHit } = await compileModules());
});

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
