// Valid input never makes an internal error: a trace of 150,000 draws through
// info (a table row per draw) and export (the Perfetto draws track, a CSV row per draw).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'warptrace-large-'));
const frame = join(dir, 'draws.wtrace');
const trace = synthesizeTrace({ warps: 310_000, seed: 3, warpsPerDraw: 2 });
writeFileSync(frame, encodeWtrace(trace));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('info lists 150,000 draws in its table', () => {
  assert.ok(trace.draws.length >= 150_000, `${trace.draws.length} draws`);
  const r = run('info', frame);
  assert.equal(r.code, 0, r.err);
  const last = trace.draws.length - 1;
  assert.match(r.out, new RegExp(`\\n\\s*${last.toLocaleString('en-US')}\\s+(draw|dispatch) ${last} `));
});

test('export of 150,000 draws: the Perfetto draws track and the draws CSV', () => {
  const perfetto = join(dir, 'draws.perfetto.json');
  const csv = join(dir, 'draws.csv');
  const r = run('export', frame, '--perfetto', perfetto, '--csv-draws', csv);
  assert.equal(r.code, 0, r.err);
  const events = (JSON.parse(readFileSync(perfetto, 'utf8')) as { traceEvents: { ph: string; cat?: string }[] }).traceEvents;
  assert.equal(events.filter((e) => e.ph === 'X' && e.cat === 'draw').length, trace.draws.length);
  assert.equal(readFileSync(csv, 'utf8').split('\n').length, trace.draws.length + 2);
});
