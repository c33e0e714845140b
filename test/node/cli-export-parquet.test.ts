// `warptrace export --parquet DIR`: the files read back equal the query tables, carry the analyses' numbers, and are written like every output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL_TABLES, SQL_TABLES_VERSION } from '../../analysis/sql-schema.js';
import { traceSqlTables } from '../../analysis/sql-tables.js';
import { main } from '../../cli/main.js';
import { openTraceDatabase } from '../../cli/sql/trace-database.js';
import { assertClose, loadSample, query } from './sql-helpers.js';
import { repoPath } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'warptrace-parquet-'));

async function run(...args: string[]) {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), write: (t) => (out += t) });
  return { code, out, err };
}

/** A path as an SQL string literal. */
const literal = (path: string) => `'${path.replace(/'/g, "''")}'`;

// Positions, unknown SMs and slots (NULLs), regions and call details, findings of every kind between them.
for (const file of ['h100-meshlets.wtrace', 'lavapipe-aqt.wtrace', 'h100-raytracingreflections-blocks.wtrace', 'h100-tess-stall.wtrace']) {
  test(`${file}: the Parquet files hold the query tables row for row, and the analyses' numbers`, async () => {
    const out = join(dir, `${file} it's`);
    const r = await run('export', repoPath('samples', file), '--parquet', out);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(readdirSync(out).sort(), SQL_TABLES.map((t) => `${t.name}.parquet`).sort(), 'the four files, no temporary one left');
    const { trace, summary } = loadSample(file);
    const db = await openTraceDatabase(traceSqlTables(trace, { summary }));
    try {
      for (const t of SQL_TABLES) {
        const path = literal(join(out, `${t.name}.parquet`));
        assert.match(r.out, new RegExp(`wrote .*${t.name}\\.parquet \\([\\d.]+ (B|KiB|MiB), [\\d,]+ rows?\\)`));
        // Every column of every row, both ways (EXCEPT ALL keeps duplicates), in the same order.
        const [diff] = await query(
          db.connection,
          `SELECT (SELECT count(*) FROM (SELECT * FROM ${t.name} EXCEPT ALL SELECT * FROM read_parquet(${path}))) AS missing,
                  (SELECT count(*) FROM (SELECT * FROM read_parquet(${path}) EXCEPT ALL SELECT * FROM ${t.name})) AS extra,
                  (SELECT count(*) FROM read_parquet(${path})) AS rows, (SELECT count(*) FROM ${t.name}) AS expected`,
        );
        assert.deepEqual(diff, { missing: 0, extra: 0, rows: diff!['expected'], expected: diff!['expected'] }, t.name);
        const order = await query(db.connection, `SELECT * FROM (SELECT ${t.columns[0]!.name} AS k, row_number() OVER () - 1 AS n FROM read_parquet(${path})) WHERE k <> n`);
        assert.deepEqual(order, [], `${t.name} rows in order`);
        const columns = await query(db.connection, `SELECT name FROM parquet_schema(${path}) WHERE name <> 'duckdb_schema'`);
        assert.deepEqual(columns.map((c) => c['name']), t.columns.map((c) => c.name), `${t.name} columns`);
        const meta = await query(db.connection, `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${path}) ORDER BY key`);
        assert.deepEqual(meta, [{ key: 'warptrace_sql_tables_version', value: String(SQL_TABLES_VERSION) }, { key: 'warptrace_table', value: t.name }]);
      }
      // The analyses' numbers, from the files alone.
      const warps = literal(join(out, 'warps.parquet'));
      const stages = await query(db.connection, `SELECT stage, count(*) AS warps, sum(duration_ns) AS time, max(end_ns) AS last FROM read_parquet(${warps}) GROUP BY stage`);
      assert.equal(stages.length, summary.stages.length);
      for (const s of summary.stages) {
        const row = stages.find((x) => x['stage'] === s.stage)!;
        assert.equal(row['warps'], s.warps, s.stage);
        assertClose(row['time'], s.totalNs, `${s.stage} warp-time`);
        assert.equal(row['last'], s.lastEndNs, `${s.stage} last end`);
      }
      const findings = await query(db.connection, `SELECT id, cost_ns FROM read_parquet(${literal(join(out, 'findings.parquet'))}) ORDER BY finding`);
      assert.deepEqual(findings, summary.findings.map((f) => ({ id: f.id, cost_ns: f.costNs })));
    } finally {
      db.close();
    }
  });
}

test('--parquet makes DIR, refuses existing files without --force and a DIR that is a file; --force replaces', async () => {
  const trace = repoPath('samples/h100-syncs.wtrace');
  const out = join(dir, 'made');
  const first = await run('export', trace, '--parquet', out, '--json', join(dir, 'syncs.json'));
  assert.equal(first.code, 0, first.err);
  assert.match(first.out, /wrote .*syncs\.json/);
  const before = statSync(join(out, 'warps.parquet'));
  const bytes = readFileSync(join(out, 'warps.parquet'));

  const again = await run('export', trace, '--parquet', out);
  assert.equal(again.code, 1);
  assert.match(again.err, /^warptrace export: .*made\/warps\.parquet already exists \(use --force to replace it\)\n$/);
  assert.equal(statSync(join(out, 'warps.parquet')).mtimeMs, before.mtimeMs, 'untouched');

  const forced = await run('export', trace, '--parquet', out, '--force');
  assert.equal(forced.code, 0, forced.err);
  assert.deepEqual(readFileSync(join(out, 'warps.parquet')), bytes, 'the same bytes for the same trace');
  assert.deepEqual(readdirSync(out).sort(), ['draws.parquet', 'findings.parquet', 'regions.parquet', 'warps.parquet']);

  const file = join(dir, 'a-file');
  writeFileSync(file, 'not a directory');
  const notDir = await run('export', trace, '--parquet', file);
  assert.equal(notDir.code, 1);
  assert.match(notDir.err, /--parquet .*a-file: not a directory/);
  const deep = await run('export', trace, '--parquet', join(dir, 'no', 'such'));
  assert.equal(deep.code, 1);
  assert.match(deep.err, /--parquet .*no\/such: no such directory .*\/no\n$/);
  const bad = await run('export', repoPath('README.md'), '--parquet', join(dir, 'never'));
  assert.equal(bad.code, 1);
  assert.throws(() => statSync(join(dir, 'never')), 'nothing made for an input that is not a trace');
});
