// `warptrace export --perfetto`: Perfetto's protobuf by default (decoded with
// protobufjs), Chrome JSON on request or for a .json name, bad values refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import { withPassHierarchy } from './fixtures.js';
import { decodePerfetto } from './perfetto/decode-perfetto.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-perfetto-'));
const trace = withPassHierarchy(synthesizeTrace({ warps: 20000, seed: 7, warpsPerDraw: 1000 }));
const frame = join(dir, 'frame.wtrace');
writeFileSync(frame, encodeWtrace(trace));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('--perfetto writes the protobuf: a slice per warp, draws and regions tracks', () => {
  const out = join(dir, 'frame.perfetto-trace');
  const r = run('export', frame, '--perfetto', out);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /wrote .*frame\.perfetto-trace \([\d.]+ [KM]iB, Perfetto protobuf\): 20,000 warps on \d+ lanes/);
  const decoded = decodePerfetto(new Uint8Array(readFileSync(out)));
  const pidOf = (uuid: number) => decoded.tracks.get(uuid)!.pid!;
  assert.equal(decoded.slices.filter((s) => pidOf(s.track) < 70000).length, 20000);
  assert.equal(decoded.slices.filter((s) => pidOf(s.track) === 70000).length, trace.draws.length);
  assert.ok(decoded.slices.some((s) => pidOf(s.track) === 70002 && s.depth > 0), 'nested regions');
  assert.ok(decoded.slices.filter((s) => pidOf(s.track) < 70000).every((s) => /^[A-Z]+$/.test(s.name)), 'warps named by stage');
  // Named by stage and draw on request; an existing file is refused without --force.
  assert.equal(run('export', frame, '--perfetto', out).code, 1);
  const named = run('export', frame, '--perfetto', out, '--perfetto-names', 'stage-draw', '--force');
  assert.equal(named.code, 0, named.err);
  const again = decodePerfetto(new Uint8Array(readFileSync(out)));
  assert.ok(again.slices.filter((s) => pidOf(s.track) < 70000).every((s) => / draw \d+$/.test(s.name)));
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
});

test('Chrome JSON with --perfetto-format json, or for a .json name', () => {
  for (const [name, args] of [['a.trace', ['--perfetto-format', 'json']], ['b.json', []]] as const) {
    const out = join(dir, name);
    const r = run('export', frame, '--perfetto', out, ...args);
    assert.equal(r.code, 0, r.err);
    const json = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: { ph: string; cat?: string }[] };
    assert.equal(json.traceEvents.filter((e) => e.ph === 'X' && e.cat === undefined).length, 20000);
  }
  // A .json name can still get the protobuf when asked.
  const forced = join(dir, 'c.json');
  assert.equal(run('export', frame, '--perfetto', forced, '--perfetto-format', 'proto').code, 0);
  assert.equal(decodePerfetto(new Uint8Array(readFileSync(forced))).slices.length > 20000, true);
});

test('bad --perfetto-format or --perfetto-names: usage errors', () => {
  assert.equal(run('export', frame, '--perfetto', join(dir, 'x'), '--perfetto-format', 'xml').code, 2);
  assert.equal(run('export', frame, '--perfetto', join(dir, 'x'), '--perfetto-names', 'label').code, 2);
});
