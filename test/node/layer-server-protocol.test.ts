// The layer's instrument server's defences, spoken over a real Unix socket
// (protocol of capture/layer/CONTRACT.md): modules the instrumenter refuses,
// malformed requests, bad frames, split and pipelined requests, several
// connections, events, and the frame reader's size checks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { LayerClient } from '../../capture/layer-server/client.js';
import { FrameReader, FramingError, HEADER_BYTES, MAX_JSON_BYTES, MAX_PAYLOAD_BYTES, REQUEST_MAGIC, encodeFrame } from '../../capture/layer-server/protocol.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { compileModules, dir, expectedOptions, request, withServer } from './layer-server-helpers.js';

after(() => rmSync(dir, { recursive: true, force: true }));

let vertex: Uint8Array;
let fragment: Uint8Array;
before(async () => {
  ({ vertex, fragment } = await compileModules());
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
