// The statistics exports (summary JSON, draw report, Markdown, CSV) carry
// block profiles, phases between marks and ray events when the trace has
// them: their numbers are the analyses' own (analysis/blocks.ts, marks.ts,
// the ray-event model), and a trace without them exports as it did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace, type AnalysisSummary } from '../../analysis/index.js';
import { blockTable } from '../../analysis/blocks.js';
import { phaseTable } from '../../analysis/marks.js';
import { BLOCK_TOP_OVERALL, BLOCK_TOP_PER_DRAW, RAY_EVENT_KEYS, withTraceSections } from '../../analysis/trace-sections.js';
import { CSV_TABLES, summaryCsv } from '../../analysis/export/csv.js';
import { drawReport, summaryToJson } from '../../analysis/export/json.js';
import { summaryToMarkdown } from '../../analysis/export/markdown.js';
import { parseSummary, SummaryFormatError } from '../../analysis/summary-json.js';
import { RAY_EVENTS } from '../../shared-schema/index.js';
import { BLOCK_SAMPLES, cellNumber, csvRecords, MARK_SAMPLE, plainSamples, RAY_SAMPLES, rayTrace, sample, stripped } from './section-fixtures.js';

const SECTION_KEYS = ['blocks', 'phases', 'rays'] as const;
const OLD_TABLES = CSV_TABLES.filter((t) => t !== 'blocks' && t !== 'phases' && t !== 'rays');

/** The summary without its sections, keys in their order. */
function withoutSections(s: AnalysisSummary): AnalysisSummary {
  const { blocks: _b, phases: _p, rays: _r, ...rest } = s;
  return rest as AnalysisSummary;
}

for (const name of BLOCK_SAMPLES) {
  test(`${name}: the block section is blocks.ts's table by line, the ${BLOCK_TOP_OVERALL} hottest overall and ${BLOCK_TOP_PER_DRAW} per draw`, () => {
    const trace = sample(name);
    const profile = trace.blocks!;
    const s = analyzeTrace(trace);
    const b = s.blocks!;
    assert.ok(b !== undefined && s.phases === undefined && s.rays === undefined);
    const all = blockTable(profile, trace.device.clocks, { draws: null, by: 'line' });
    assert.deepEqual(b.overall.top, all.stats.slice(0, BLOCK_TOP_OVERALL));
    assert.equal(b.overall.entries, all.stats.length);
    assert.deepEqual(b.overall.totalTicks, all.totalTicks);
    assert.deepEqual(b.draws.map((d) => d.draw), profile.rows.map((r) => r.draw));
    for (const scope of b.draws) {
      const own = blockTable(profile, trace.device.clocks, { draws: new Set([scope.draw!]), by: 'line' });
      assert.deepEqual(scope.top, own.stats.slice(0, BLOCK_TOP_PER_DRAW), `draw ${scope.draw}`);
      assert.equal(scope.entries, own.stats.length);
      assert.ok(scope.top.length <= BLOCK_TOP_PER_DRAW && scope.top.length > 0);
    }
    assert.ok(b.overall.entries > BLOCK_TOP_OVERALL || b.overall.top.length === b.overall.entries);

    // JSON: through the checked reader unchanged.
    const back = parseSummary(JSON.parse(summaryToJson(s)));
    assert.deepEqual(back.blocks, JSON.parse(JSON.stringify(b)));
    // CSV: each draw's rows, then the overall ones, numbers as the table has them.
    const rows = csvRecords(summaryCsv(s, 'blocks'));
    const expected = [...b.draws, b.overall].flatMap((scope) => scope.top.map((stat, k) => ({ scope, stat, rank: k + 1 })));
    assert.equal(rows.length, expected.length);
    rows.forEach((r, i) => {
      const { scope, stat, rank } = expected[i]!;
      assert.equal(r['scope'], scope.draw === null ? 'all' : 'draw');
      assert.equal(cellNumber(r['draw']!), scope.draw);
      assert.equal(Number(r['rank']), rank);
      assert.equal(r['module'], stat.moduleName);
      assert.equal(r['blocks'], stat.blocks.join(' '));
      assert.equal(cellNumber(r['line']!), stat.line);
      assert.equal(Number(r['executions']), stat.executions);
      assert.equal(Number(r['ticks']), stat.ticks);
      assert.equal(Number(r['tick_share']), stat.tickShare);
      assert.equal(cellNumber(r['simt_efficiency']!), stat.simtEfficiency);
      assert.equal(cellNumber(r['ns']!), stat.ns);
      assert.equal(Number(r['scope_sm_ticks']), scope.totalTicks.sm);
    });
    // --draw: that draw's rows only.
    const d = b.draws[1]!.draw!;
    assert.deepEqual(csvRecords(summaryCsv(s, 'blocks', d)).map((r) => r['module']), b.draws[1]!.top.map((x) => x.moduleName));
    const report = drawReport(s, d);
    assert.deepEqual(report.blocks!.draws, [b.draws[1]]);
    // Markdown: the section, its hottest line's executions as the table counts them.
    const md = summaryToMarkdown(s);
    assert.match(md, /\n## Block profile\n/);
    assert.ok(md.includes(`| ${b.overall.top[0]!.executions.toLocaleString('en-US')} |`));
    assert.match(summaryToMarkdown(s, { draw: d }), /\n### Block profile\n\nThe \d+ hottest of \d+ lines this draw ran/);
  });
}

test(`${MARK_SAMPLE}: the phases section is marks.ts's table; the draw report counts the draw's marks`, () => {
  const trace = sample(MARK_SAMPLE);
  const s = analyzeTrace(trace);
  const table = phaseTable(trace, { draws: null, stage: null });
  assert.deepEqual(s.phases, table);
  assert.equal(s.blocks, undefined);
  assert.equal(table.marks, trace.marks!.count);
  const back = parseSummary(JSON.parse(summaryToJson(s)));
  assert.deepEqual(back.phases, JSON.parse(JSON.stringify(table)));
  // CSV: the columns of `warptrace phases --csv`, a row per phase, exact numbers.
  const rows = csvRecords(summaryCsv(s, 'phases'));
  assert.equal(rows.length, table.phases.length);
  rows.forEach((r, i) => {
    const p = table.phases[i]!;
    assert.deepEqual(
      [Number(r['draw']), r['stage'], cellNumber(r['from']!), cellNumber(r['to']!), r['phase'], Number(r['warps']), Number(r['occurrences'])],
      [p.draw, p.stageName, p.from, p.to, p.label, p.warps, p.occurrences],
    );
    assert.deepEqual([Number(r['total_ns']), Number(r['mean_ns']), Number(r['p50_ns']), Number(r['max_ns']), Number(r['mean_live_lanes']), Number(r['share'])], [p.totalNs, p.meanNs, p.p50Ns, p.maxNs, p.meanLiveLanes, p.share]);
  });
  // A draw's report: its phases, and its marks and marked warps as phaseTable counts them for that draw.
  for (const d of new Set(table.phases.map((p) => p.draw))) {
    const own = phaseTable(trace, { draws: new Set([d]), stage: null });
    const report = drawReport(s, d).phases!;
    assert.deepEqual(report.phases, own.phases);
    assert.equal(report.marks, own.marks);
    assert.equal(report.warpsWithMarks, own.warpsWithMarks);
  }
  const md = summaryToMarkdown(s);
  assert.ok(md.includes(`\n## Phases\n\n${table.marks.toLocaleString('en-US')} marks on ${table.warpsWithMarks.toLocaleString('en-US')} warps.`));
  for (const p of table.phases) assert.ok(md.includes(`| ${p.draw} | ${p.stageName} | ${p.label} | ${p.warps.toLocaleString('en-US')} |`), p.label);
});

test('ray events: per trace-rays call, launches, size and the row totals, in JSON, CSV, Markdown and the draw report', () => {
  const trace = rayTrace();
  const s = analyzeTrace(trace);
  const rays = s.rays!;
  assert.ok(s.blocks === undefined && s.phases === undefined);
  const profile = trace.rayEvents!;
  assert.deepEqual(
    rays.rows.map((r) => [r.draw, r.launches, r.launchWidth, r.launchHeight, r.launchDepth, r.mixedSizes]),
    profile.rows.map((r) => [r.draw, r.launches, r.launchWidth, r.launchHeight, r.launchDepth, r.mixedSizes]),
  );
  for (const [i, row] of profile.rows.entries()) {
    for (const e of RAY_EVENTS) assert.equal(rays.rows[i]!.totals[e], row.totals[e], e);
  }
  // The first row's totals are its cells' sums (the model's invariant, made so by the fixture).
  assert.equal(rays.rows[0]!.totals.traceCalls, profile.rows[0]!.counts.traceCalls.reduce((a, b) => a + b, 0));
  assert.deepEqual([rays.dropped, rays.uncountedTraversals, rays.unprofiledLaunches, rays.cellsPerRow], [3, 2, 1, 16]);
  assert.deepEqual(parseSummary(JSON.parse(summaryToJson(s))).rays, rays);

  const rows = csvRecords(summaryCsv(s, 'rays'));
  assert.deepEqual(rows.map((r) => [Number(r['draw']), r['label'], Number(r['launches']), r['mixed_sizes']]), [[1, 'shadow rays', 2, 'false'], [2, 'reflections', 2, 'true']]);
  for (const [i, r] of rows.entries()) {
    for (const e of RAY_EVENTS) assert.equal(Number(r[RAY_EVENT_KEYS[e]]), profile.rows[i]!.totals[e], `${e} of row ${i}`);
  }
  assert.equal(csvRecords(summaryCsv(s, 'rays', 2)).length, 1);
  assert.deepEqual(drawReport(s, 1).rays!.rows, [rays.rows[0]]);
  assert.deepEqual(drawReport(s, 0).rays!.rows, []);

  const md = summaryToMarkdown(s);
  assert.ok(md.includes('\n## Ray events\n\n2 trace-rays calls profiled; 3 events dropped; 2 traversals without useless any-hits counted; 1 trace-rays call without a row (the table was full).'));
  const t = profile.rows[0]!.totals;
  assert.ok(md.includes(`| 1 "shadow rays" | 2 | 8×4 | ${RAY_EVENTS.map((e) => t[e].toLocaleString('en-US')).join(' | ')} |`));
  assert.ok(md.includes('| 2 "reflections" | 2 | 64×32 (mixed) |'));
  // A stored summary with a bad section field is refused by name.
  const bad = JSON.parse(summaryToJson(s));
  bad.rays.rows[1].totals.misses = -1;
  assert.throws(() => parseSummary(bad), (e: unknown) => e instanceof SummaryFormatError && e.field === 'summary.rays.rows[1].totals.misses');
});

test('traces with the new data: everything else in the exports is what the trace without it exports', () => {
  for (const [name, trace] of [...BLOCK_SAMPLES, MARK_SAMPLE, ...RAY_SAMPLES].map((n) => [n, sample(n)] as const).concat([['rays', rayTrace()]])) {
    const full = analyzeTrace(trace);
    const plain = analyzeTrace(stripped(trace));
    assert.equal(summaryToJson(withoutSections(full)), summaryToJson(plain), name);
    for (const table of OLD_TABLES) assert.equal(summaryCsv(full, table), summaryCsv(plain, table), `${name} ${table}`);
    // Markdown: the sections come in one piece between the draws and the thresholds.
    const md = summaryToMarkdown(full);
    const at = md.search(/\n\n## (Block profile|Phases|Ray events)\n/);
    const end = md.indexOf('\n\n<details><summary>Thresholds');
    assert.ok(at > 0 && end > at, name);
    assert.equal(md.slice(0, at) + md.slice(end), summaryToMarkdown(plain), name);
    const d = full.blocks?.draws[0]!.draw ?? full.rays?.rows[0]!.draw ?? full.phases!.phases[0]!.draw;
    const { blocks: _b, phases: _p, rays: _r, ...report } = drawReport(full, d);
    assert.ok(_b !== undefined || _p !== undefined || _r !== undefined);
    assert.equal(summaryToJson(report), summaryToJson(drawReport(plain, d)), name);
    const drawMd = summaryToMarkdown(full, { draw: d });
    assert.equal(drawMd.slice(0, drawMd.search(/\n\n### (Block profile|Phases|Ray events)\n/)) + drawMd.slice(drawMd.indexOf('\n\n<details>')), summaryToMarkdown(plain, { draw: d }), name);
  }
});

test('samples without block profiles, marks or ray events: no sections, and nothing to add', () => {
  const names = plainSamples();
  assert.ok(names.length >= 8, names.join(' '));
  for (const name of names) {
    const trace = sample(name);
    assert.ok(trace.blocks == null && trace.marks == null && trace.rayEvents == null, name);
    const s = analyzeTrace(trace);
    for (const key of SECTION_KEYS) assert.ok(!(key in s), `${name}: no ${key}`);
    assert.equal(withTraceSections(s, trace), s, 'the same summary object');
    const md = summaryToMarkdown(s);
    assert.doesNotMatch(md, /## (Block profile|Phases|Ray events)/);
    for (const key of SECTION_KEYS) assert.ok(!(key in drawReport(s, 0)));
    // The section tables of such a summary are their header alone.
    for (const table of ['blocks', 'phases', 'rays'] as const) assert.equal(summaryCsv(s, table).split('\n').length, 2, `${name} ${table}`);
  }
});

test('withTraceSections adds only what a summary lacks, in one key order', () => {
  const trace = { ...sample(MARK_SAMPLE), rayEvents: rayTrace().rayEvents };
  const full = analyzeTrace(trace);
  assert.deepEqual(Object.keys(full).slice(-2), ['phases', 'rays']);
  // A summary made without the trace's data (the viewer's worker has no block profile) gets it added.
  const partial = withoutSections(full);
  const added = withTraceSections(partial, trace, { phases: full.phases });
  assert.equal(summaryToJson(added), summaryToJson(full));
  assert.equal(added.phases, full.phases, 'the phase table given is used');
});
