// `warptrace stats --table blocks|phases|rays` and `warptrace export
// --csv-blocks/--csv-phases/--csv-rays, --perfetto [--no-phases]` on the
// committed samples with block profiles and marks: the library's text, and a
// clear error (no file written) for a trace without the data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeTrace } from '../../analysis/index.js';
import { summaryCsv } from '../../analysis/export/csv.js';
import { BLOCK_SAMPLES, exportProto, MARK_SAMPLE, sample, stripped } from './section-fixtures.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-sections-'));
const samplePath = (name: string) => repoPath('samples', `${name}.wtrace`);

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('stats --format csv --table blocks: the block section as the library writes it; a trace without one exits 1', () => {
  const name = BLOCK_SAMPLES[0];
  const r = run('stats', samplePath(name), '--format', 'csv', '--table', 'blocks');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, summaryCsv(analyzeTrace(sample(name)), 'blocks'));
  const none = run('stats', samplePath('h100-aqt'), '--format', 'csv', '--table', 'phases');
  assert.equal(none.code, 1);
  assert.match(none.err, /h100-aqt\.wtrace: no marks for --table phases/);
  const md = run('stats', samplePath(name), '--draw', '0');
  assert.equal(md.code, 0, md.err);
  assert.match(md.out, /\n### Block profile\n/);
});

test('export --csv-phases and --perfetto on the marks sample; --no-phases; --csv-blocks without blocks writes nothing', () => {
  const trace = sample(MARK_SAMPLE);
  const csv = join(dir, 'phases.csv');
  const perfetto = join(dir, 'rt.perfetto-trace');
  const r = run('export', samplePath(MARK_SAMPLE), '--csv-phases', csv, '--perfetto', perfetto);
  assert.equal(r.code, 0, r.err);
  assert.equal(readFileSync(csv, 'utf8'), summaryCsv(analyzeTrace(trace), 'phases'));
  const { bytes, stats } = exportProto(trace);
  assert.deepEqual(new Uint8Array(readFileSync(perfetto)), new Uint8Array(bytes));
  assert.ok(r.out.includes(`; ${stats.phaseSlices.toLocaleString('en-US')} phase slices between marks`), r.out);
  const bare = join(dir, 'bare.perfetto-trace');
  assert.equal(run('export', samplePath(MARK_SAMPLE), '--perfetto', bare, '--no-phases').code, 0);
  assert.deepEqual(new Uint8Array(readFileSync(bare)), new Uint8Array(exportProto(stripped(trace)).bytes));
  const blocks = join(dir, 'blocks.csv');
  const json = join(dir, 'summary.json');
  const refused = run('export', samplePath(MARK_SAMPLE), '--json', json, '--csv-blocks', blocks);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /no block profile for --csv-blocks/);
  assert.ok(!existsSync(blocks) && !existsSync(json), 'no output written');
});
