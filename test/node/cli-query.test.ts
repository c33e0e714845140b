// `warptrace query` end to end: its rows against `warptrace stats` on the samples, its formats, its errors, untrusted labels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL_TABLES } from '../../analysis/sql-schema.js';
import { encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import { main } from '../../cli/main.js';
import { repoPath } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'warptrace-query-'));
const aqt = repoPath('samples/h100-aqt.wtrace');
const syncs = repoPath('samples/h100-syncs.wtrace');

/** The command in this process (DuckDB loads once for the file); bin/warptrace.js does nothing more than this. */
async function run(...args: string[]) {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), write: (t) => (out += t) });
  return { code, out, err };
}

async function json(...args: string[]): Promise<Record<string, unknown>[]> {
  const r = await run(...args);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as Record<string, unknown>[];
}

test('query --help documents every table and column; warptrace --help lists the command', async () => {
  const help = await run('query', '--help');
  assert.equal(help.code, 0);
  for (const t of SQL_TABLES) {
    assert.match(help.out, new RegExp(`^${t.name}: `, 'm'));
    for (const c of t.columns) assert.match(help.out, new RegExp(`^  ${c.name} +${c.type} `, 'm'), `${t.name}.${c.name}`);
  }
  assert.match((await run('--help')).out, /query\s+SQL over a trace/);
});

test('query --json gives the numbers of stats --format json: warps per stage and draw, findings (thresholds too)', async () => {
  const summary = JSON.parse((await run('stats', aqt, '--format', 'json')).out) as {
    stages: { stage: string; warps: number; firstStartNs: number; lastEndNs: number; maxNs: number }[];
    draws: { index: number; warps: number; label: string }[];
  };
  const stages = await json('query', aqt, 'SELECT stage, count(*) AS warps, min(start_ns) AS first, max(end_ns) AS last, max(duration_ns) AS longest FROM warps GROUP BY stage ORDER BY stage', '--json');
  assert.deepEqual(stages, summary.stages.map((s) => ({ stage: s.stage, warps: s.warps, first: s.firstStartNs, last: s.lastEndNs, longest: s.maxNs })));
  const draws = await json('query', aqt, 'SELECT draw, label, count(*) AS warps FROM warps JOIN draws USING (draw) GROUP BY ALL ORDER BY draw', '--json');
  assert.deepEqual(draws, summary.draws.map((d) => ({ draw: d.index, label: d.label, warps: d.warps })));

  for (const threshold of [[], ['--threshold', 'syncMinGapNs=500']]) {
    const expected = JSON.parse((await run('stats', syncs, '--format', 'json', ...threshold)).out) as { findings: { id: string; costNs: number }[] };
    const findings = await json('query', syncs, 'SELECT id, cost_ns FROM findings ORDER BY finding', '--json', ...threshold);
    assert.deepEqual(findings, expected.findings.map((f) => ({ id: f.id, cost_ns: f.costNs })), threshold.join(' '));
  }
});

test('query prints a text table (numbers right-aligned, NULL spelled out), or CSV; --max-rows cuts the text and says so', async () => {
  const text = await run('query', aqt, 'SELECT draw, kind, count(*) AS warps, NULL::VARCHAR AS nothing FROM warps JOIN draws USING (draw) GROUP BY ALL ORDER BY draw');
  assert.equal(text.code, 0, text.err);
  const lines = text.out.trimEnd().split('\n');
  assert.match(lines[0]!, /^draw {2}kind {2}warps {2}nothing$/);
  assert.match(lines[1]!, /^-{4} {2}-{4} {2}-{5} {2}-{7}$/);
  assert.equal(lines.length, 2 + 3);
  for (const line of lines.slice(2)) assert.match(line, /^ {3}\d {2}draw {2}[ \d]{5} {2}NULL$/);

  const csv = (await run('query', aqt, 'SELECT label, 1.5 AS ratio FROM draws ORDER BY draw', '--csv')).out.split('\n');
  assert.equal(csv[0], 'label,ratio');
  assert.equal(csv.filter((l) => l !== '').length, 1 + 3);
  assert.match(csv[1]!, /^"?irregular patches .*,1\.5$/);

  const cut = await run('query', aqt, 'SELECT row FROM warps ORDER BY row', '--max-rows', '3');
  assert.equal(cut.code, 0, cut.err);
  assert.deepEqual(cut.out.trimEnd().split('\n'), ['row', '---', '  0', '  1', '  2', '(3 of 68,709 rows shown: --max-rows 0 shows all, --csv and --json print every row)']);
});

test('query runs every statement and prints the last one\'s rows', async () => {
  const rows = await json('query', aqt, "CREATE TABLE fs AS SELECT * FROM warps WHERE stage = 'FS'; SELECT count(*) AS n, count(DISTINCT draw) AS draws FROM fs", '--json');
  assert.deepEqual(rows, [{ n: 64461, draws: 3 }]);
});

test('query errors: DuckDB\'s message in one line (exit 1), a file that is not a trace (exit 1), usage (exit 2)', async () => {
  const cases: [string[], number, RegExp][] = [
    [[aqt, 'SELECT * FORM warps'], 1, /^warptrace query: SQL: Parser Error: syntax error at or near "warps" \(line 1, near "warps"\)$/],
    [[aqt, 'SELECT nope FROM warps'], 1, /^warptrace query: SQL: Binder Error: Referenced column "nope" not found in FROM clause! Candidate bindings: .* \(line 1, near "nope FROM warps"\)$/],
    [[aqt, 'SELECT * FROM wraps'], 1, /^warptrace query: SQL: Catalog Error: Table with name wraps does not exist! Did you mean "warps"\?/],
    [[aqt, "SELECT label::INTEGER FROM draws"], 1, /^warptrace query: SQL: Conversion Error: Could not convert string 'irregular patches/],
    [[repoPath('README.md'), 'SELECT 1'], 1, /^warptrace query: /],
    [[join(dir, 'missing.wtrace'), 'SELECT 1'], 1, /^warptrace query: cannot read .*missing\.wtrace: no such file or directory$/],
    [[aqt], 2, /expected FILE and SQL/],
    [[aqt, '   '], 2, /the SQL is empty/],
    [[aqt, '/* only a comment */'], 2, /the SQL holds no statement/],
    [[aqt, 'SELECT 1', '--csv', '--json'], 2, /--csv and --json exclude each other/],
    [[aqt, 'SELECT 1', '--csv', '--max-rows', '5'], 2, /--max-rows applies to the text table/],
    [[aqt, 'SELECT 1', '--max-rows', 'many'], 2, /--max-rows expects a non-negative integer/],
  ];
  for (const [args, code, message] of cases) {
    const r = await run('query', ...args);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.err}`);
    assert.equal(r.out, '', args.join(' '));
    assert.equal(r.err.trimEnd().split('\n').length, 1, `one line: ${r.err}`);
    assert.match(r.err.trimEnd(), message);
  }
  // SQL that starts like an option goes after --.
  assert.deepEqual(await json('query', '--json', aqt, '--', '-- a comment first\nSELECT 2 AS two'), [{ two: 2 }]);
  // A stored summary is JSON but no trace.
  const summary = join(dir, 'summary.json');
  writeFileSync(summary, (await run('stats', aqt, '--format', 'json')).out);
  const r = await run('query', summary, 'SELECT 1');
  assert.equal(r.code, 1);
  assert.match(r.err, /^warptrace query: /);
});

test('untrusted labels are data: escaped in the text table, exact in JSON, quoted in CSV, never SQL', async () => {
  const evil = "=HYPERLINK(\"x\"),\u001b[31mred\u001b[0m\nnext line'); DROP VIEW warps; --";
  const base = synthesizeTrace({ warps: 3000, seed: 2 });
  const file = join(dir, 'evil.wtrace');
  writeFileSync(file, encodeWtrace({ ...base, draws: base.draws.map((d) => ({ ...d, label: evil })) }));
  const sql = 'SELECT label, count(*) AS draws FROM draws GROUP BY label; ';
  const text = await run('query', file, sql);
  assert.equal(text.code, 0, text.err);
  assert.ok(!text.out.includes('\u001b'), 'no raw escape character reaches the terminal');
  assert.match(text.out, /\\u001b\[31mred\\u001b\[0m\\nnext line'\); DROP VIEW warps; --/);
  assert.deepEqual(await json('query', file, sql, '--json'), [{ label: evil, draws: base.draws.length }]);
  const csv = (await run('query', file, sql, '--csv')).out;
  assert.ok(csv.startsWith(`label,draws\n"'=HYPERLINK(""x""),`), csv.slice(0, 60));
  // The views are intact after reading the label.
  assert.deepEqual(await json('query', file, `${sql} SELECT count(*) AS warps FROM warps`, '--json'), [{ warps: base.warps.count }]);
});

test('DuckDB is loaded by query and --parquet only: other commands start without it', async () => {
  const probe = (args: string[]) => {
    const script = `
      import { createRequire } from 'node:module';
      const { main } = await import(${JSON.stringify(repoPath('dist/cli/main.js'))});
      const code = await main(${JSON.stringify(args)}, { out() {}, err(t) { process.stderr.write(t + '\\n'); } });
      const loaded = Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes('@duckdb'));
      console.log(JSON.stringify({ code, loaded }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { code: number; loaded: boolean };
  };
  assert.deepEqual(probe(['info', aqt]), { code: 0, loaded: false });
  assert.deepEqual(probe(['stats', aqt]), { code: 0, loaded: false });
  assert.deepEqual(probe(['query', aqt, 'SELECT 1']), { code: 0, loaded: true });
});

test('query --csv into a reader that stops early (EPIPE) is a quiet success', () => {
  const bin = repoPath('bin/warptrace.js');
  const r = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" query "${aqt}" "SELECT * FROM warps" --csv | head -c 10 > /dev/null; echo "\${PIPESTATUS[0]}"`], { encoding: 'utf8' });
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '0\n');
});
