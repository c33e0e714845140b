// The layer's instrument server's content cache (capture/layer-server/cache.ts):
// a disk cache that serves a restarted server, corrupt cache files ignored and
// rewritten, keys that do not depend on option order, and a memory-only
// fallback when the cache folder cannot be created.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LayerClient } from '../../capture/layer-server/client.js';
import { SpirvCache, cacheKey, canonicalJson } from '../../capture/layer-server/cache.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import type { InstrumentOptions } from '../../instrument/options.js';
import { compileModules, dir, expectedOptions, request, withServer } from './layer-server-helpers.js';

after(() => rmSync(dir, { recursive: true, force: true }));

let vertex: Uint8Array;
before(async () => {
  ({ vertex } = await compileModules());
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
