// `warptrace stats`, `export` and `diff` end to end: real files, exit codes, atomic outputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWtrace, encodeWtraw, H100_CLOCKS, rawCaptureOf, synthesizeTrace } from '../../shared-schema/index.js';
import { denseTraffic, traceOf, type WarpSpec } from './analysis-fixtures.js';
import { repoPath } from './paths.js';
import { SUMMARY_VERSION } from '../../analysis/summary.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-stats-'));
const frame = join(dir, 'frame.wtrace');
writeFileSync(frame, encodeWtrace(synthesizeTrace({ warps: 40000, seed: 7 })));
const other = join(dir, 'other.wtrace');
writeFileSync(other, encodeWtrace(synthesizeTrace({ warps: 40000, seed: 8 })));
// A raw GPU dump with H100-like clocks: per-SM calibration happens on the way in.
const raw = join(dir, 'frame.wtraw');
writeFileSync(raw, encodeWtraw(rawCaptureOf(synthesizeTrace({ warps: 20000, seed: 9 }), H100_CLOCKS).raw));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('every analysis command has --help', () => {
  for (const name of ['stats', 'export', 'diff']) {
    const r = run(name, '--help');
    assert.equal(r.code, 0);
    assert.match(r.out, new RegExp(`^usage: warptrace ${name}`));
  }
  assert.match(run('stats', '--help').out, /syncMinGapNs\s+1000 ns/);
  assert.match(run('--help').out, /stats\s+analyze a trace/);
});

test('stats prints the Markdown report; json and csv on request', () => {
  const md = run('stats', frame);
  assert.equal(md.code, 0, md.err);
  assert.match(md.out, /^# warptrace: synthetic 40000 warps/);
  assert.match(md.out, /## Findings/);
  assert.match(md.out, /GPU idle 2\.\d\d µs before draw \d+/);
  assert.match(md.out, /- TCS: at most \d+ TCS warps ran at once on an SM/);
  const json = JSON.parse(run('stats', frame, '--format', 'json').out);
  assert.equal(json.schema, 'warptrace-summary');
  assert.equal(json.trace.warps, 40000);
  assert.deepEqual(json.stages.find((s: { stage: string }) => s.stage === 'VS').sms, [0, 1, 48, 49]);
  const csv = run('stats', frame, '--format', 'csv', '--table', 'draws').out.split('\n');
  assert.match(csv[0]!, /^draw,label,kind,warps,/);
  assert.equal(csv.filter((l) => l !== '').length, json.draws.length + 1);
});

test('stats on a raw dump: calibrated per SM, so cross-SM results are reliable', () => {
  const r = run('stats', raw, '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out);
  assert.equal(s.reliability.calibrationMethod, 'per-sm-fit');
  assert.equal(s.reliability.crossSmReliable, true);
  assert.ok(s.syncs.count > 0);
});

test('stats --draw N, thresholds, and the errors', () => {
  const one = JSON.parse(run('stats', frame, '--format', 'json', '--draw', '3').out);
  assert.equal(one.schema, 'warptrace-draw-summary');
  assert.equal(one.draw.index, 3);
  const loose = JSON.parse(run('stats', frame, '--format', 'json', '--threshold', 'syncMinGapNs=5000').out);
  assert.equal(loose.syncs.count, 0);
  assert.equal(loose.thresholds.syncMinGapNs, 5000);

  const noDraw = run('stats', frame, '--draw', '9999');
  assert.equal(noDraw.code, 1);
  assert.match(noDraw.err, /^warptrace stats: no draw 9999: the trace has \d+ draws/);
  assert.equal(run('stats', frame, '--draw', 'two').code, 2);
  assert.equal(run('stats', frame, '--format', 'xml').code, 2);
  assert.equal(run('stats', frame, '--threshold', 'nope=1').code, 2);
  assert.equal(run('stats', frame, '--threshold', 'leftoverMinShare=2').code, 2);
  assert.equal(run('stats', frame, '--table', 'draws').code, 2);
  const missing = run('stats', join(dir, 'missing.wtrace'));
  assert.equal(missing.code, 1);
  assert.equal(missing.err.trim().split('\n').length, 1, 'one-line error');
  const garbage = join(dir, 'garbage.bin');
  writeFileSync(garbage, 'not a trace');
  assert.equal(run('stats', garbage).code, 1);
});

test('stats warns on stderr when SM clocks are not aligned', () => {
  const warps: WarpSpec[] = [...denseTraffic({ sm: 0, slots: 4, perSlot: 4, stage: 'FS', draw: 0, start: 0, durationNs: 300 }), { sm: 5, stage: 'FS', draw: 1, start: 9000, end: 9100 }];
  const path = join(dir, 'unaligned.wtrace');
  writeFileSync(path, encodeWtrace(traceOf({ warps, draws: 2, aligned: false })));
  const r = run('stats', path);
  assert.equal(r.code, 0);
  assert.match(r.err, /warning: SM clocks are not aligned/);
  assert.match(r.out, /\| no \(clocks\) \|/);
});

test('-o writes atomically and never replaces a file without --force', () => {
  const out = join(dir, 'report.md');
  writeFileSync(out, 'precious');
  const refused = run('stats', frame, '-o', out);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /already exists \(use --force/);
  assert.equal(readFileSync(out, 'utf8'), 'precious');
  const forced = run('stats', frame, '-o', out, '--force');
  assert.equal(forced.code, 0, forced.err);
  assert.match(readFileSync(out, 'utf8'), /^# warptrace:/);
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
});

test('export writes Perfetto JSON and the summary files', () => {
  const perfetto = join(dir, 'frame.perfetto.json');
  const json = join(dir, 'frame.summary.json');
  const csv = join(dir, 'frame.stages.csv');
  const r = run('export', frame, '--perfetto', perfetto, '--json', json, '--csv-stages', csv);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /wrote .*frame\.perfetto\.json \([\d.]+ MiB\): 40,000 warps on \d+ lanes/);
  const trace = JSON.parse(readFileSync(perfetto, 'utf8'));
  assert.equal(trace.traceEvents.filter((e: { ph: string; cat?: string }) => e.ph === 'X' && e.cat === undefined).length, 40000);
  assert.equal(JSON.parse(readFileSync(json, 'utf8')).schema, 'warptrace-summary');
  assert.match(readFileSync(csv, 'utf8'), /^stage,warps,/);
  // Nothing to export, or the same file twice: usage errors; an existing file: refused.
  assert.equal(run('export', frame).code, 2);
  assert.equal(run('export', frame, '--json', json, '--md', json).code, 2);
  assert.equal(run('export', frame, '--perfetto', perfetto).code, 1);
  const unwritable = run('export', frame, '--perfetto', join(dir, 'no-such-dir', 'x.json'));
  assert.equal(unwritable.code, 1);
  assert.ok(!existsSync(join(dir, 'no-such-dir')));
});

test('diff compares traces, or a trace with a stored summary', () => {
  const r = run('diff', frame, other);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^# warptrace diff/);
  assert.match(r.out, /## Stages\n\n\| Stage \| Warps \| Mean \| Change/);
  const stored = join(dir, 'stored.json');
  assert.equal(run('stats', frame, '--format', 'json', '-o', stored).code, 0);
  const same = JSON.parse(run('diff', stored, frame, '--format', 'json').out);
  assert.equal(same.schema, 'warptrace-diff');
  for (const s of same.stages) assert.equal(s.meanNs.delta, 0);
  assert.equal(same.frame.spanNs.delta, 0);
  const broken = join(dir, 'broken-summary.json');
  writeFileSync(broken, JSON.stringify({ schema: 'warptrace-summary', schemaVersion: SUMMARY_VERSION }));
  const bad = run('diff', broken, frame);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /broken-summary\.json: summary\.trace: expected an object, got nothing$/m);
  assert.equal(run('diff', frame).code, 2);
});
