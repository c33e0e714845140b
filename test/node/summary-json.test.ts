// Stored summaries are untrusted input, checked like traces: every field the
// reports and the diff read, errors naming the field path, nesting limited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeTrace } from '../../analysis/index.js';
import { SUMMARY_VERSION } from '../../analysis/summary.js';
import { summaryToJson } from '../../analysis/export/json.js';
import { MAX_SUMMARY_DEPTH, parseSummary, SummaryFormatError } from '../../analysis/summary-json.js';
import { decodeTrace, encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const synthetic = analyzeTrace(synthesizeTrace({ warps: 20000, seed: 21 }));
const stored = () => JSON.parse(summaryToJson(synthetic)) as unknown;
const DELETE = Symbol('delete');

/** A stored summary with the field at `path` ("stages.3.meanNs") set to `value`, or deleted. */
function mutated(path: string, value: unknown): unknown {
  const root = stored();
  const keys = path.split('.');
  let at = root as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  if (value === DELETE) delete at[keys.at(-1)!];
  else at[keys.at(-1)!] = value;
  return root;
}

function rejects(value: unknown, field: string, detail: string | RegExp): void {
  assert.throws(
    () => parseSummary(value),
    (e: unknown) => {
      assert.ok(e instanceof SummaryFormatError, String(e));
      assert.equal(e.field, field);
      if (typeof detail === 'string') assert.equal(e.message, `${field}: ${detail}`);
      else assert.match(e.message, detail);
      return true;
    },
  );
}

test('every real sample\'s summary reads back unchanged', () => {
  const dir = repoPath('samples');
  const names = readdirSync(dir).filter((f) => f.endsWith('.wtrace'));
  assert.ok(names.length > 0);
  for (const name of names) {
    const summary = analyzeTrace(decodeTrace(readFileSync(join(dir, name))));
    const text = summaryToJson(summary);
    assert.deepEqual(parseSummary(JSON.parse(text)), JSON.parse(text), name);
  }
});

test('a missing or mistyped field anywhere is named by its path', () => {
  const cases: [string, unknown, string][] = [
    ['stages.3.meanNs', '12', 'expected a number, got "12"'],
    ['stages.0.histogram', DELETE, 'expected an object, got nothing'],
    ['stages.1.histogram.counts', DELETE, 'expected an array, got nothing'],
    ['stages.0.stage', 'XS', 'expected one of VS, TCS, TES, GS, FS, CS, TASK, MESH, RAYGEN, ANY_HIT, CLOSEST_HIT, MISS, INTERSECTION, CALLABLE, RAYGEN_REORDERED, got "XS"'],
    ['stages.0.occupancy.perSm', 'full', 'expected an object, got "full"'],
    ['sms', DELETE, 'expected an array, got nothing'],
    ['sms.0.stagePeaks', null, 'expected an object, got null'],
    ['reliability.warnings', [1], 'expected a string, got 1'],
    ['draws.2.kind', 'blit', 'expected one of draw, dispatch, trace-rays, got "blit"'],
    ['draws.1.index', -1, 'expected a whole number ≥ 0, got -1'],
    ['draws.1.stages.0.occupancy', DELETE, 'expected an object, got nothing'],
    ['syncs.gaps', DELETE, 'expected an array, got nothing'],
    ['leftovers.items', DELETE, 'expected an array, got nothing'],
    ['trace.smCount', 'a', 'expected a whole number ≥ 0, got "a"'],
    ['findings.0.sm', 'x', 'expected a number, got "x"'],
    ['thresholds.syncMinGapNs', DELETE, 'expected a number, got nothing'],
    ['schemaVersion', 99, `99 is newer than this warptrace reads (${SUMMARY_VERSION})`],
  ];
  assert.ok(synthetic.stages.length > 3 && synthetic.draws.length > 2 && synthetic.findings.length > 0, 'the summary has the parts mutated');
  for (const [path, value, detail] of cases) {
    const field = `summary.${path.replace(/\.(\d+)/g, '[$1]')}${path === 'reliability.warnings' ? '[0]' : ''}`;
    rejects(mutated(path, value), field, detail);
  }
  rejects([], 'summary', 'expected an object');
  rejects({ schema: 'warptrace-summary' }, 'summary.schemaVersion', 'expected a whole number ≥ 0, got nothing');
});

test('nesting is limited, even in fields nobody reads, without using the stack', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  rejects(mutated('thresholds.extra', deep), `summary.thresholds.extra${'[0]'.repeat(MAX_SUMMARY_DEPTH - 2)}`, `nested deeper than ${MAX_SUMMARY_DEPTH} levels`);
  // A real summary is far from the limit.
  assert.equal(parseSummary(mutated('thresholds.extra', { a: { b: [[1]] } })).schema, 'warptrace-summary');
});

test('stats and diff on a broken stored summary: exit 1 with one line naming the field, never an internal error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-summary-'));
  const frame = join(dir, 'frame.wtrace');
  writeFileSync(frame, encodeWtrace(synthesizeTrace({ warps: 5000, seed: 22 })));
  const write = (name: string, path: string, value: unknown) => {
    const file = join(dir, name);
    // JSON.stringify cannot write 50,000 levels: splice them into the text.
    writeFileSync(file, JSON.stringify(mutated(path, value === 'DEEP' ? 'DEEP' : value)).replace('"DEEP"', `${'['.repeat(50_000)}${']'.repeat(50_000)}`));
    return file;
  };
  const deep = write('deep.json', 'thresholds.extra', 'DEEP');
  const warnings = write('warnings.json', 'reliability.warnings', [1]);
  for (const [args, expected] of [
    [['stats', deep], /^warptrace stats: .*deep\.json: summary\.thresholds\.extra(\[0\])+: nested deeper than 32 levels\n$/],
    [['stats', deep, '--format', 'json'], /nested deeper than 32 levels\n$/],
    [['stats', warnings], /^warptrace stats: .*warnings\.json: summary\.reliability\.warnings\[0\]: expected a string, got 1\n$/],
    [['diff', warnings, frame], /^warptrace diff: .*warnings\.json: summary\.reliability\.warnings\[0\]: expected a string, got 1\n$/],
  ] as const) {
    const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8' });
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, expected);
  }
});
