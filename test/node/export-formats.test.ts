// JSON (round trip through the summary reader), CSV and Markdown exports, and A/B diffs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace } from '../../analysis/index.js';
import { diffSummaries } from '../../analysis/diff.js';
import { drawsCsv, findingsCsv, stagesCsv, drawStagesCsv } from '../../analysis/export/csv.js';
import { csvField, mdText } from '../../analysis/export/escape.js';
import { drawReport, summaryToJson } from '../../analysis/export/json.js';
import { diffToMarkdown, summaryToMarkdown } from '../../analysis/export/markdown.js';
import { parseSummary, SummaryFormatError } from '../../analysis/summary-json.js';
import { SUMMARY_VERSION } from '../../analysis/summary.js';
import { synthesizeTrace } from '../../shared-schema/index.js';
import { denseTraffic, traceOf, type WarpSpec } from './analysis-fixtures.js';

const synthetic = analyzeTrace(synthesizeTrace({ warps: 30000, seed: 3 }));

test('JSON summary round-trips through the checked reader, with no NaN or Infinity', () => {
  const text = summaryToJson(synthetic);
  assert.ok(!/NaN|Infinity/.test(text));
  const back = parseSummary(JSON.parse(text));
  assert.deepEqual(back, JSON.parse(JSON.stringify(synthetic)));
  assert.equal(back.schema, 'warptrace-summary');
  assert.equal(back.schemaVersion, SUMMARY_VERSION);
});

test('the summary reader names the bad field and refuses newer versions', () => {
  const value = JSON.parse(summaryToJson(synthetic));
  value.stages[1].medianNs = 'slow';
  assert.throws(() => parseSummary(value), (e: unknown) => e instanceof SummaryFormatError && e.field === 'summary.stages[1].medianNs');
  assert.throws(() => parseSummary({ ...JSON.parse(summaryToJson(synthetic)), schemaVersion: 99 }), /newer than this warptrace reads/);
  assert.throws(() => parseSummary({ ...JSON.parse(summaryToJson(synthetic)), schemaVersion: SUMMARY_VERSION - 1 }), /older than this warptrace reads/);
});

test('draw report holds one draw and its findings', () => {
  const d = synthetic.findings.find((f) => f.draw !== null)!.draw!;
  const r = drawReport(synthetic, d);
  assert.equal(r.schema, 'warptrace-draw-summary');
  assert.equal(r.draw.index, d);
  assert.ok(r.findings.length > 0 && r.findings.every((f) => f.draw === d));
  assert.throws(() => drawReport(synthetic, 10_000), /no draw 10000/);
});

test('CSV tables: one header, equal column counts, escaped labels', () => {
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
  assert.equal(csvField(-5), '-5');
  assert.equal(csvField(null), '');
  const trace = traceOf({ warps: [{ sm: 0, slot: 0, stage: 'VS', draw: 0, start: 0, end: 80 }], draws: [{ label: '=cmd|"x",\nnext' }] });
  const s = analyzeTrace(trace);
  const draws = drawsCsv(s);
  assert.match(draws, /^draw,label,kind,warps,/);
  assert.ok(draws.includes(`0,"'=cmd|""x"",\nnext",draw,1,`));
  for (const csv of [stagesCsv(synthetic), drawsCsv(synthetic), drawStagesCsv(synthetic), findingsCsv(synthetic)]) {
    const rows = parseCsv(csv);
    assert.ok(rows.length > 1);
    for (const r of rows) assert.equal(r.length, rows[0]!.length);
  }
  const stages = parseCsv(stagesCsv(synthetic));
  const tcs = stages.find((r) => r[0] === 'TCS')!;
  const col = (name: string) => stages[0]!.indexOf(name);
  assert.equal(Number(tcs[col('median_ns')]), synthetic.stages.find((x) => x.stage === 'TCS')!.medianNs);
  assert.equal(tcs[col('sms')], '0 1 48 49');
});

test('Markdown report: "at most 12 TCS warps ran at once on an SM" is in the text; labels cannot inject', () => {
  const warps: WarpSpec[] = denseTraffic({ sm: 0, slots: 12, perSlot: 30, stage: 'TCS', draw: 0, start: 0, durationNs: 2000 });
  const s = analyzeTrace(traceOf({ warps, draws: [{ label: '<img src=x onerror=alert(1)> | *bold*' }] }));
  const md = summaryToMarkdown(s);
  assert.match(md, /at most 12 TCS warps ran at once on an SM \(SM 0 at /);
  assert.match(md, /TCS occupancy capped at 12 warps per SM/);
  assert.ok(!md.includes('<img'));
  assert.ok(md.includes('&lt;img src=x onerror=alert(1)&gt; \\| \\*bold\\*'));
  assert.equal(mdText('a|b\nc'), 'a\\|b c');
  const one = summaryToMarkdown(s, { draw: 0 });
  assert.match(one, /## Draw 0/);
  assert.match(one, /\| TCS \| 360 \|/);
});

test('diff: 15% longer TCS warps, yet a shorter draw (2016 Stirling, sorted patches)', () => {
  // A: 64 TCS warps of 1000 ns, 4 at a time (16 rounds). B: 1150 ns each but 16 at a time (4 rounds).
  const frame = (duration: number, parallel: number): WarpSpec[] =>
    Array.from({ length: 64 }, (_, i) => {
      const round = Math.floor(i / parallel);
      return { sm: 0, slot: i % parallel, stage: 'TCS', draw: 0, start: round * (duration + 10), end: round * (duration + 10) + duration };
    });
  const a = analyzeTrace(traceOf({ warps: frame(1000, 4), draws: [{ label: 'patches' }] }));
  const b = analyzeTrace(traceOf({ warps: frame(1150, 16), draws: [{ label: 'patches' }] }));
  const d = diffSummaries(a, b);
  const tcs = d.stages.find((s) => s.stage === 'TCS')!;
  assert.ok(Math.abs(tcs.meanNs.relative! - 0.15) < 1e-9);
  assert.equal(tcs.peakPerSm.a, 4);
  assert.equal(tcs.peakPerSm.b, 16);
  assert.ok(d.draws[0]!.spanNs.relative! < -0.7);
  assert.deepEqual(d.warnings, []);
  assert.ok(d.highlights.includes('TCS mean warp duration +15.0% (1.00 µs → 1.15 µs)'), d.highlights.join('; '));
  assert.ok(d.highlights.some((h) => /^Draw 0 "patches" span −7\d\.\d%/.test(h)), d.highlights.join('; '));
  const md = diffToMarkdown(d, { a: 'before.wtrace', b: 'after.wtrace' });
  assert.match(md, /\| TCS \| 64 → 64 \| 1\.00 µs → 1\.15 µs \| \+15\.0% \|/);
});

/** Minimal RFC 4180 reader for the tests. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  return rows;
}

test('Markdown report with every one of 150,000 draws (maxDraws: Infinity)', () => {
  const template = synthetic.draws.find((d) => d.warps > 0)!;
  const draws = Array.from({ length: 150_000 }, (_, i) => ({ ...template, index: i, label: `d${i}` }));
  const md = summaryToMarkdown({ ...synthetic, draws }, { maxDraws: Infinity });
  assert.match(md, /\n\| [^|\n]*149999[^|\n]* \|/);
  assert.doesNotMatch(md, /longest of/);
});
