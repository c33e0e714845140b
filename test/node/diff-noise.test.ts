// Telling a change from sampling noise in `warptrace diff` (issue 25): a change
// whose side is an estimate carries its combined standard error and is a
// finding only beyond 2 of them. The rule by hand-computable numbers; then on
// the real H200 captures of one AQT frame (in full, at 1 in 8 and at 1 in 64,
// three GPU runs): the two rates agree within the noise and the diff finds
// nothing, while the full capture's fragment warps (each paid the record,
// 764 against 566 ns) and a different workload are significant changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { analyzeTrace } from '../../analysis/index.js';
import { DIFF_VERSION, diffSummaries, type Delta, type SummaryDiff } from '../../analysis/diff.js';
import { changeText, classifyChange, MIN_RECORDED, withNoise } from '../../analysis/diff-noise.js';
import { countSe, meanSe, timeSe } from '../../analysis/sampled.js';
import { decodeTrace, Stage } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';
import { sampledTrace } from './sampled-trace.js';

import { full, s8, s64, skip } from './h200-aqt-samples.js';

/** Every delta of the diff's frame, stages and draws, with where it is. */
function deltas(d: SummaryDiff): [string, Delta][] {
  const out: [string, Delta][] = [];
  const walk = (path: string, v: unknown): void => {
    if (typeof v !== 'object' || v === null) return;
    if ('delta' in v && 'relative' in v) out.push([path, v as Delta]);
    else for (const [k, x] of Object.entries(v)) walk(`${path}.${k}`, x);
  };
  walk('', { frame: d.frame, stages: d.stages, draws: d.draws });
  return out;
}

test('the rule by hand: combined SE √(1.2² + 1.6²) = 2, so a change of 4 is noise and 4.1 is not; an exact side counts 0, a side without SE leaves it untested', () => {
  assert.deepEqual(classifyChange(3, 1.2, 1.6), { seA: 1.2, seB: 1.6, se: 2, verdict: 'within-noise' });
  assert.equal(classifyChange(4, 1.2, 1.6).verdict, 'within-noise', 'at exactly 2 SE: not beyond');
  assert.equal(classifyChange(-4.1, 1.2, 1.6).verdict, 'significant', 'either direction');
  assert.deepEqual(classifyChange(5, undefined, 2), { seA: 0, seB: 2, se: 2, verdict: 'significant' });
  assert.deepEqual(classifyChange(5, undefined, 3), { seA: 0, seB: 3, se: 3, verdict: 'within-noise' });
  assert.deepEqual(classifyChange(50, 1, null), { seA: 1, seB: null, se: null, verdict: 'untested' });
  const d: Delta = { a: 100, b: 103, delta: 3, relative: 0.03 };
  assert.equal(withNoise(d, undefined, undefined), d, 'two exact sides: the delta as it was, no noise key');
  assert.equal(changeText(withNoise(d, 1.2, 1.6)), '≈ +3.0% ± 2.0% (within sampling noise)');
  assert.equal(changeText(withNoise({ a: 100, b: 110, delta: 10, relative: 0.1 }, 1.2, 1.6)), '≈ +10.0% ± 2.0%');
  assert.equal(changeText(withNoise(d, null, undefined)), '≈ +3.0% (untested)');
  assert.equal(changeText(d), '+3.0%');
});

test('h200 AQT at 1 in 8 against 1 in 64 (one frame, two rates): FS mean, share, warp-time and count within sampling noise, and no highlight', { skip }, () => {
  const a = analyzeTrace(s8!);
  const b = analyzeTrace(s64!);
  const d = diffSummaries(a, b);
  const fs = d.stages.find((s) => s.stage === 'FS')!;
  for (const [name, x] of [['mean', fs.meanNs], ['share', fs.shareOfWarpTime], ['warp-time', fs.totalNs], ['warps', fs.warps]] as const) {
    assert.equal(x.noise?.verdict, 'within-noise', `FS ${name}: ${x.a} → ${x.b} ± ${x.noise?.se}`);
  }
  // The combined SE is that of the two summaries' own estimates.
  const ea = a.sampling!.stages.find((e) => e.stage === 'FS')!;
  const eb = b.sampling!.stages.find((e) => e.stage === 'FS')!;
  assert.equal(fs.meanNs.noise!.se, Math.hypot(ea.meanSeNs, eb.meanSeNs));
  assert.equal(fs.shareOfWarpTime.noise!.se, Math.hypot(ea.shareSe, eb.shareSe));
  assert.equal(d.frame.warpTimeNs.noise?.verdict, 'within-noise');
  assert.equal(d.frame.spanNs.noise?.verdict, 'untested', 'a span of recorded warps has no standard error');
  assert.deepEqual(d.highlights, [], 'no finding between two captures of one frame');
  assert.ok(d.warnings.some((w) => w.includes('within sampling noise')), 'the rule is stated');
});

test(`a mean from fewer than ${MIN_RECORDED} recorded warps is untested: TCS at 1 in 64 recorded 4, whose 893 ns mean 2 SE alone would call a change from 1 in 8's`, { skip }, () => {
  const a = analyzeTrace(s8!);
  const b = analyzeTrace(s64!);
  const ea = a.sampling!.stages.find((e) => e.stage === 'TCS')!;
  const eb = b.sampling!.stages.find((e) => e.stage === 'TCS')!;
  assert.ok(eb.recordedWarps < MIN_RECORDED, `${eb.recordedWarps} TCS warps recorded at 1 in 64`);
  assert.ok(Math.abs(eb.meanNs - ea.meanNs) > 2 * Math.hypot(ea.meanSeNs, eb.meanSeNs), 'what the plain rule would report');
  // The full capture says which is off: its TCS mean is near 1 in 8's, far from 1 in 64's.
  const truth = analyzeTrace(full!).stages.find((s) => s.stage === 'TCS')!.meanNs;
  assert.ok(Math.abs(truth - ea.meanNs) < Math.abs(truth - eb.meanNs) / 4, `TCS ${truth} full, ${ea.meanNs} at 1 in 8, ${eb.meanNs} at 1 in 64`);
  const tcs = diffSummaries(a, b).stages.find((s) => s.stage === 'TCS')!;
  assert.equal(tcs.meanNs.noise?.verdict, 'untested');
  assert.equal(tcs.meanNs.noise?.se, null);
});

test('the full capture against 1 in 8: the FS mean (764 against 566 ns) is significant, its SE that of the estimate alone (an exact side counts 0), and highlighted', { skip }, () => {
  const b = analyzeTrace(s8!);
  const d = diffSummaries(analyzeTrace(full!), b);
  const fs = d.stages.find((s) => s.stage === 'FS')!;
  assert.ok(fs.meanNs.a! > fs.meanNs.b! * 1.3, `${fs.meanNs.a} → ${fs.meanNs.b}`);
  assert.equal(fs.meanNs.noise?.verdict, 'significant');
  assert.equal(fs.meanNs.noise!.seA, 0);
  assert.equal(fs.meanNs.noise!.se, b.sampling!.stages.find((e) => e.stage === 'FS')!.meanSeNs);
  assert.ok(d.highlights.some((h) => /^FS mean warp duration ≈ −[\d.]+% ± [\d.]+% \(764 ns → ≈ 566 ns\)$/.test(h)), d.highlights.join('\n'));
  assert.ok(!d.highlights.some((h) => h.startsWith('Frame span')), 'a span of recorded warps is no finding');
  // Every draw's warp-time fell with the record's cost: tested, significant, and the draws are named by it.
  for (const x of d.draws) assert.equal(x.warpTimeNs.noise?.verdict, 'significant', `draw ${x.index}`);
  assert.ok(d.highlights.some((h) => /^Draw \d+ ".*" warp-time ≈ −/.test(h)), d.highlights.join('\n'));
});

test("a draw's stage: its SEs are sampled.ts's formulas over that draw's recorded warps, counted from the trace", { skip }, () => {
  const d = diffSummaries(analyzeTrace(full!), analyzeTrace(s8!));
  const every = s8!.capture.sampling!.every.FS!;
  const w = s8!.warps;
  for (const x of d.draws) {
    let n = 0;
    let sum = 0;
    let sumSq = 0;
    for (let i = 0; i < w.count; i++) {
      if (w.draw[i] !== x.indexB || w.stage[i] !== Stage.FS) continue;
      n++;
      sum += w.durationNs[i]!;
      sumSq += w.durationNs[i]! ** 2;
    }
    assert.ok(n >= MIN_RECORDED, `draw ${x.index}: ${n} FS warps recorded`);
    const stddev = Math.sqrt(Math.max(0, sumSq / n - (sum / n) ** 2));
    const fs = x.stages.find((s) => s.stage === 'FS')!;
    const near = (got: number | null | undefined, want: number, what: string) => assert.ok(got != null && Math.abs(got - want) <= 1e-6 * want, `draw ${x.index} FS ${what}: ${got} vs ${want}`);
    near(fs.warps.noise?.seB, countSe(n, every), 'count SE');
    near(fs.totalNs.noise?.seB, timeSe(sumSq, every), 'warp-time SE');
    near(fs.meanNs.noise?.seB, meanSe(n, stddev, every), 'mean SE');
    assert.equal(fs.medianNs.noise?.verdict, 'untested', 'a percentile has no SE');
  }
});

test('different workloads, both sampled (h100 AQT and AQT heavy, FS 1 in 8): the FS mean is significant; two full traces carry no noise at all', () => {
  const sample = (name: string) => decodeTrace(new Uint8Array(readFileSync(repoPath('samples', `${name}.wtrace`))));
  const aqt = sample('h100-aqt');
  const heavy = sample('h100-aqt-heavy');
  const d = diffSummaries(analyzeTrace(sampledTrace(aqt, { FS: 8 })), analyzeTrace(sampledTrace(heavy, { FS: 8 })));
  assert.equal(d.stages.find((s) => s.stage === 'FS')!.meanNs.noise?.verdict, 'significant');
  assert.equal(d.stages.find((s) => s.stage === 'TES')!.meanNs.noise, undefined, 'TES is exact on both sides');
  const plain = diffSummaries(analyzeTrace(aqt), analyzeTrace(heavy));
  assert.deepEqual(deltas(plain).filter(([, x]) => x.noise !== undefined), []);
});

test('warptrace diff on the real captures: Markdown shows the ± and "(within sampling noise)", no highlights; JSON carries se and verdict', { skip }, () => {
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'diff', repoPath('samples/h200-aqt-sampled-8.wtrace'), repoPath('samples/h200-aqt-sampled-64.wtrace'), ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const md = cli();
  const fsRow = md.split('\n').find((l) => l.startsWith('| FS |'))!;
  assert.match(fsRow, /\| ≈ [−+][\d.]+% ± [\d.]+% \(within sampling noise\) \|/, fsRow);
  assert.doesNotMatch(md, /## Highlights/);
  const json = JSON.parse(cli('--format', 'json')) as SummaryDiff;
  assert.equal(json.schemaVersion, DIFF_VERSION);
  const fs = json.stages.find((s) => s.stage === 'FS')!;
  assert.equal(fs.meanNs.noise?.verdict, 'within-noise');
  assert.ok(typeof fs.meanNs.noise.se === 'number' && fs.meanNs.noise.se > 0);
  assert.equal(json.frame.spanNs.noise?.se, null, 'untested: null in JSON');
  const help = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'diff', '--help'], { encoding: 'utf8' });
  assert.match(help.stdout, /only beyond 2 of\s+them/, 'the help states the rule');
});
