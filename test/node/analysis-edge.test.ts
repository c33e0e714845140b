// Edge cases: empty traces, draws without warps, zero-length warps: no crash, no NaN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace } from '../../analysis/index.js';
import { summaryToJson } from '../../analysis/export/json.js';
import { summaryToMarkdown } from '../../analysis/export/markdown.js';
import { perfettoJsonChunks } from '../../analysis/export/perfetto.js';
import { parseSummary } from '../../analysis/summary-json.js';
import { denseTraffic, traceOf, type TraceSpec, type WarpSpec } from './analysis-fixtures.js';

const cases: [string, TraceSpec][] = [
  ['no warps, no draws', { warps: [], draws: 0 }],
  ['draws without warps', { warps: [], draws: 3 }],
  ['one zero-length warp', { warps: [{ sm: 0, stage: 'VS', draw: 0, start: 5, end: 5 }], draws: 1 }],
  ['identical warps', { warps: Array.from({ length: 40 }, () => ({ sm: 2, slot: 0, stage: 'CS' as const, draw: 0, start: 100, end: 300 })), draws: 1 }],
];

for (const [name, spec] of cases) {
  test(`edge case: ${name}`, () => {
    const trace = traceOf(spec);
    const s = analyzeTrace(trace);
    const text = summaryToJson(s);
    assert.ok(!/NaN|Infinity/.test(JSON.stringify(s, (_, v) => (typeof v === 'number' && !Number.isFinite(v) ? `bad ${v}` : v))), 'finite numbers only');
    parseSummary(JSON.parse(text));
    assert.ok(summaryToMarkdown(s).startsWith('# warptrace: known-answer'));
    const perfetto = JSON.parse([...perfettoJsonChunks(trace, { summary: s })].join(''));
    assert.equal(perfetto.traceEvents.filter((e: { ph: string; cat?: string }) => e.ph === 'X' && e.cat === undefined).length, trace.warps.count);
    if (trace.warps.count === 40) {
      // 40 identical warps stacked on one slot: peak 40 and all percentiles 200 ns.
      assert.equal(s.stages[0]!.occupancy.perSm!.peak, 40);
      assert.equal(s.stages[0]!.medianNs, 200);
      assert.equal(s.stages[0]!.stddevNs, 0);
    }
  });
}

test('a long warp in a stage of zero-length warps: finite factor', () => {
  const warps: WarpSpec[] = Array.from({ length: 50 }, (_, i) => ({ sm: 0, slot: i % 8, stage: 'VS' as const, draw: 0, start: i * 10, end: i * 10 }));
  warps.push(...denseTraffic({ sm: 0, slots: 16, perSlot: 2, stage: 'FS', draw: 0, start: 0, durationNs: 400 }));
  warps.push({ sm: 0, slot: 40, stage: 'VS', draw: 0, start: 1000, end: 9000 });
  const s = analyzeTrace(traceOf({ warps, draws: 1 }));
  assert.equal(s.stages[0]!.medianNs, 0);
  assert.equal(s.stalls.count, 1);
  assert.equal(s.stalls.items[0]!.factor, 8000 * 16);
  parseSummary(JSON.parse(summaryToJson(s)));
});
