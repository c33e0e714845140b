// The SQL tables (analysis/sql-tables.ts through DuckDB) against the analyses' own numbers on every committed sample.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SQL_TABLES, STAGE_ENUM_VALUES } from '../../analysis/sql-schema.js';
import { traceSqlTables, type TraceSqlTable } from '../../analysis/sql-tables.js';
import { warpColumnSources } from '../../analysis/sql-warps.js';
import { openTraceDatabase } from '../../cli/sql/trace-database.js';
import { buildTrace, smIdPerWarp, synthesizeTrace, NO_POSITION, positionX, positionY, STAGES, UNKNOWN_SM } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';
import { assertClose, loadSample, query, sampleFiles } from './sql-helpers.js';

for (const file of sampleFiles()) {
  test(`${file}: warps per stage, draw and SM, and the findings, as the analyses count them`, async () => {
    const { trace, summary } = loadSample(file);
    const db = await openTraceDatabase(traceSqlTables(trace, { summary }));
    try {
      const stages = await query(
        db.connection,
        // A sampled capture's rows are its recorded warps; sampled_every scales them to the analyses' estimates.
        `SELECT stage, sum(sampled_every) AS warps, sum(duration_ns * sampled_every) AS total, min(duration_ns) AS min, max(duration_ns) AS max,
                min(start_ns) AS first, max(end_ns) AS last, avg(live_lanes) AS lanes, count(DISTINCT coalesce(sm, 65535)) AS sms
         FROM warps GROUP BY stage ORDER BY stage`,
      );
      assert.deepEqual(stages.map((s) => s['stage']), summary.stages.map((s) => s.stage));
      stages.forEach((row, k) => {
        const s = summary.stages[k]!;
        assert.equal(row['warps'], s.warps, `${s.stage} warps`);
        assertClose(row['total'], s.totalNs, `${s.stage} warp-time`);
        assert.equal(row['min'], s.minNs, `${s.stage} shortest`);
        assert.equal(row['max'], s.maxNs, `${s.stage} longest`);
        assert.equal(row['first'], s.firstStartNs, `${s.stage} first start`);
        assert.equal(row['last'], s.lastEndNs, `${s.stage} last end`);
        assertClose(row['lanes'], s.meanActiveLanes, `${s.stage} mean live lanes`);
        assert.equal(row['sms'], s.smsUsed, `${s.stage} SMs`);
      });

      const lanes = await query(db.connection, 'SELECT stage, live_lanes, sum(sampled_every) AS n FROM warps GROUP BY ALL');
      for (const s of summary.stages) {
        const counts = new Array<number>(s.activeLaneCounts.length).fill(0);
        for (const r of lanes.filter((r) => r['stage'] === s.stage)) counts[r['live_lanes'] as number] = r['n'] as number;
        assert.deepEqual(counts, s.activeLaneCounts, `${s.stage} warps by live lanes`);
      }

      const draws = await query(
        db.connection,
        `SELECT d.draw, d.label, d.kind, coalesce(sum(w.sampled_every), 0) AS warps, min(w.start_ns) AS first, max(w.end_ns) AS last,
                coalesce(sum(w.duration_ns * w.sampled_every), 0) AS time
         FROM draws d LEFT JOIN warps w USING (draw) GROUP BY ALL ORDER BY d.draw`,
      );
      assert.equal(draws.length, summary.draws.length);
      draws.forEach((row, d) => {
        const s = summary.draws[d]!;
        assert.deepEqual([row['draw'], row['label'], row['kind'], row['warps']], [s.index, s.label, s.kind, s.warps], `draw ${d}`);
        assert.equal(row['first'], s.firstStartNs, `draw ${d} first warp`);
        assert.equal(row['last'], s.lastEndNs, `draw ${d} last end`);
        assertClose(row['time'], s.warpTimeNs, `draw ${d} warp-time`);
      });

      const sms = await query(db.connection, 'SELECT coalesce(sm, 65535) AS sm, sum(sampled_every) AS warps, sum(duration_ns * sampled_every) AS time FROM warps GROUP BY ALL ORDER BY sm');
      assert.deepEqual(sms.map((r) => [r['sm'], r['warps']]), summary.sms.map((s) => [s.sm, s.warps]));
      sms.forEach((r, k) => assertClose(r['time'], summary.sms[k]!.warpTimeNs, `SM ${r['sm']} warp-time`));

      const [frame] = await query(db.connection, 'SELECT count(*) AS warps, min(start_ns) AS first, max(end_ns) AS last FROM warps');
      assert.deepEqual(frame, { warps: summary.trace.warps, first: summary.frame.startNs, last: summary.frame.endNs });

      const findings = await query(db.connection, 'SELECT finding, id, kind, cost_ns, draw, stage, group_id FROM findings ORDER BY finding');
      assert.deepEqual(
        findings.map((f) => [f['id'], f['kind'], f['cost_ns'], f['draw'], f['stage']]),
        summary.findings.map((f) => [f.id, f.kind, f.costNs, f.draw, f.stage]),
      );
      for (const g of summary.findingGroups) {
        assert.deepEqual(findings.filter((f) => f['group_id'] === g.id).map((f) => f['id']).sort(), [...g.findingIds].sort(), `group ${g.id}`);
      }
    } finally {
      db.close();
    }
  });
}

test('positions, SM ids and clocks: NULL exactly where the trace has none, corners inside the draw\'s target', async () => {
  for (const file of ['h100-meshlets.wtrace', 'lavapipe-aqt.wtrace', 'h200-ray-tracing-reorder.wtrace']) {
    const { trace } = loadSample(file);
    const db = await openTraceDatabase(traceSqlTables(trace));
    try {
      const words = trace.warps.position;
      let positioned = 0;
      let sumX = 0;
      let sumY = 0;
      for (let i = 0; i < trace.warps.count; i++) {
        const w = words?.[i] ?? NO_POSITION;
        if (w === NO_POSITION) continue;
        positioned++;
        sumX += positionX(w);
        sumY += positionY(w);
      }
      const sms = smIdPerWarp(trace.warps);
      const unknownSm = sms.filter((s) => s === UNKNOWN_SM).length;
      const [r] = await query(
        db.connection,
        `SELECT count(x_px) AS positioned, coalesce(sum(x_px), 0) AS x, coalesce(sum(y_px), 0) AS y, count(*) - count(sm) AS no_sm,
                count(*) - count(start_cycles) AS no_cycles, count(active_mask_hi) AS hi,
                count(*) FILTER (WHERE x_px >= target_width_px OR y_px >= target_height_px) AS outside,
                count(*) FILTER (WHERE x_px IS NOT NULL AND target_width_px IS NULL) AS untargeted
         FROM warps JOIN draws USING (draw)`,
      );
      assert.deepEqual(r, {
        positioned,
        x: sumX,
        y: sumY,
        no_sm: unknownSm,
        no_cycles: trace.warps.smCycleStart === null ? trace.warps.count : 0,
        hi: 0,
        outside: 0,
        untargeted: 0,
      }, file);
    } finally {
      db.close();
    }
  }
});

test('64-lane subgroups: active_mask_hi and live_lanes count the upper lanes', async () => {
  const base = synthesizeTrace({ warps: 3000, seed: 3 });
  const n = base.warps.count;
  const hi = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0 : (2 ** (i % 32) - 1) >>> 0));
  const trace = buildTrace({
    device: { ...base.device, subgroupSize: 64 },
    capture: base.capture,
    draws: base.draws,
    warps: {
      startNs: base.warps.startNs,
      endNs: Array.from(base.warps.startNs, (s, i) => s + base.warps.durationNs[i]!),
      sm: smIdPerWarp(base.warps),
      warpSlot: base.warps.warpSlot,
      stage: base.warps.stage,
      draw: base.warps.draw,
      customId: base.warps.customId,
      activeMask: base.warps.activeMask,
      activeMaskHi: hi,
    },
  });
  const db = await openTraceDatabase(traceSqlTables(trace));
  try {
    const [r] = await query(db.connection, 'SELECT sum(live_lanes) AS lanes, sum(bit_count(active_mask_hi)) AS hi, count(active_mask_hi) AS rows FROM warps');
    const summary = (await import('../../analysis/index.js')).analyzeTrace(trace);
    const lanes = summary.stages.reduce((sum, s) => sum + s.meanActiveLanes * s.warps, 0);
    assertClose(r!['lanes'], lanes, 'live lanes over all warps');
    assert.equal(r!['hi'], hi.reduce((sum, m) => sum + (m.toString(2).match(/1/g)?.length ?? 0), 0));
    assert.equal(r!['rows'], n);
  } finally {
    db.close();
  }
});

test('regions: depth and top_region follow the parents of a game-like frame', async () => {
  const trace = synthesizeTrace({ warps: 20000, seed: 4, drawsPerPass: 6 });
  assert.ok(trace.regions.some((r) => r.parent !== null) && trace.regions.filter((r) => r.parent === null).length >= 2, 'passes with sub-regions');
  const db = await openTraceDatabase(traceSqlTables(trace));
  try {
    const rows = await query(db.connection, 'SELECT region, label, parent, depth, top_region FROM regions ORDER BY region');
    const top = (i: number): number => (trace.regions[i]!.parent === null ? i : top(trace.regions[i]!.parent!));
    const depth = (i: number): number => (trace.regions[i]!.parent === null ? 0 : 1 + depth(trace.regions[i]!.parent!));
    assert.deepEqual(rows, trace.regions.map((r, i) => ({ region: i, label: r.label, parent: r.parent, depth: depth(i), top_region: top(i) })));
    // Warps per pass: every warp of a draw in a region counted under its top-level pass.
    const passes = await query(db.connection, 'SELECT p.label, count(*) AS warps FROM warps JOIN draws d USING (draw) JOIN regions r ON r.region = d.region JOIN regions p ON p.region = r.top_region GROUP BY ALL');
    const expected = new Map<string, number>();
    for (let i = 0; i < trace.warps.count; i++) {
      const region = trace.draws[trace.warps.draw[i]!]!.region;
      if (region !== null) expected.set(trace.regions[top(region)]!.label, (expected.get(trace.regions[top(region)]!.label) ?? 0) + 1);
    }
    assert.deepEqual(new Map(passes.map((p) => [p['label'] as string, p['warps'] as number])), expected);
  } finally {
    db.close();
  }
});

test('findings: the analyses run only when a query reads the findings table', async () => {
  const trace = synthesizeTrace({ warps: 5000, seed: 6 });
  let analysed = 0;
  const tables: TraceSqlTable[] = traceSqlTables(trace).map((t) =>
    t.doc.name === 'findings' ? { ...t, data: () => (analysed++, t.data()) } : t,
  );
  const db = await openTraceDatabase(tables);
  try {
    await query(db.connection, 'SELECT stage, count(*) FROM warps JOIN draws USING (draw) GROUP BY stage');
    await query(db.connection, 'DESCRIBE findings');
    assert.equal(analysed, 0);
    const [r] = await query(db.connection, 'SELECT count(*) AS n FROM findings');
    assert.ok(analysed > 0);
    assert.ok((r!['n'] as number) > 0, 'the synthetic frame has syncs');
  } finally {
    db.close();
  }
});

test('the tables\' columns and types are the documented ones; stage codes outside the enum are refused', async () => {
  const db = await openTraceDatabase(traceSqlTables(synthesizeTrace({ warps: 100, seed: 1 })));
  try {
    for (const t of SQL_TABLES) {
      const described = await query(db.connection, `DESCRIBE ${t.name}`);
      const enumType = `ENUM(${STAGE_ENUM_VALUES.map((s) => `'${s}'`).join(', ')})`;
      assert.deepEqual(described.map((c) => [c['column_name'], c['column_type']]), t.columns.map((c) => [c.name, c.type === 'STAGE' ? enumType : c.type]), t.name);
    }
  } finally {
    db.close();
  }
  assert.deepEqual(STAGE_ENUM_VALUES, STAGES.map((s) => s.name));
  const warps = synthesizeTrace({ warps: 10, seed: 1 }).warps;
  const bad = { ...warps, stage: Uint8Array.from(warps.stage, (s, i) => (i === 7 ? 200 : s)) };
  assert.throws(() => warpColumnSources(bad), /warps\.stage\[7\]: stage code 200/);
});

test('analysis/README.md documents every column with its type; README.md names every table', () => {
  const readme = readFileSync(repoPath('analysis/README.md'), 'utf8');
  for (const t of SQL_TABLES) {
    assert.ok(readme.includes(`**\`${t.name}\`**: ${t.doc}.`), `${t.name} is introduced`);
    for (const c of t.columns) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${c.name}\` | ${c.type} | `) && l.includes(c.doc));
      assert.ok(row, `${t.name}.${c.name} is in the README table`);
    }
  }
  const user = readFileSync(repoPath('README.md'), 'utf8');
  for (const t of SQL_TABLES) assert.match(user, new RegExp(`^\\| \`${t.name}\` \\|`, 'm'), `${t.name} in README.md's SQL table`);
});
