// Color by draw, pass, duration percentile and SM (viewer/model/draw-classes.ts,
// duration-classes.ts, sm-classes.ts) on the samples and a game-like frame of 2,025 draws in
// 23 passes: each warp's class against this file's own reading of the trace (its draw's
// order, its pass, the exact percentiles of its stage by sorting, its SM), the legends
// against sums made here, and the duration classes' cuts against the analysis's own p50 / p90
// / p99.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STAGES, UNKNOWN_SM, decodeWtrace, smOfWarp, traceFromJson, type Trace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/analyze.js';
import { colorClasses, colorClassSteps, runSteps, type ColorBy } from '../../viewer/model/color-by.js';
import { CATEGORICAL_RGB, OUTSIDE_RGB } from '../../viewer/model/class-palette.js';
import { LEGEND_TOP, OUTSIDE_PASS, passDepth } from '../../viewer/model/draw-classes.js';
import { DURATION_CUTS } from '../../viewer/model/duration-classes.js';
import { GAME_DRAWS_PER_PASS, GAME_PASSES, gameFrameTrace } from './game-frame.js';
import { repoPath } from './paths.js';

const sample = (file: string): Trace => decodeWtrace(new Uint8Array(readFileSync(repoPath('samples', file))));
const game = gameFrameTrace();

/** Warps and warp-time per key, from the warp columns. */
function sums(t: Trace, keyOf: (row: number) => number | string): Map<number | string, { warps: number; ns: number }> {
  const out = new Map<number | string, { warps: number; ns: number }>();
  for (let i = 0; i < t.warps.count; i++) {
    const k = keyOf(i);
    const s = out.get(k) ?? { warps: 0, ns: 0 };
    s.warps++;
    s.ns += t.warps.durationNs[i]!;
    out.set(k, s);
  }
  return out;
}

test('draw: neighbouring draws never share a color; the legend names the draws with most warp-time', () => {
  const c = colorClasses(game, { kind: 'draw' });
  const w = game.warps;
  const classOfDraw = new Map<number, number>();
  for (let i = 0; i < w.count; i++) {
    const seen = classOfDraw.get(w.draw[i]!);
    assert.ok(seen === undefined || seen === c.classOf[i], `draw ${w.draw[i]}'s warps share one color`);
    classOfDraw.set(w.draw[i]!, c.classOf[i]!);
  }
  for (let d = 1; d < game.draws.length; d++) assert.notEqual(classOfDraw.get(d), classOfDraw.get(d - 1), `draws ${d - 1} and ${d}`);
  assert.ok(c.legend.length === LEGEND_TOP && c.note?.startsWith('2,025 draws in 16 colors'), c.note);
  const byDraw = sums(game, (i) => w.draw[i]!);
  const top = [...byDraw].sort((a, b) => b[1].ns - a[1].ns).slice(0, LEGEND_TOP);
  assert.deepEqual(
    c.legend.map((e) => [e.label, e.warps, e.rgb]),
    top.map(([d, s]) => [`#${d} ${game.draws[d as number]!.label}`, s.warps, CATEGORICAL_RGB[classOfDraw.get(d as number)!]]),
  );
  assert.equal(c.warpLabel!(0), `#${w.draw[0]} ${game.draws[w.draw[0]!]!.label}`);
});

test('pass: a draw’s top-level pass; 23 passes cycle 15 colors, neighbours differ; the legend names the passes with most warp-time', () => {
  assert.equal(passDepth(game), 0);
  const c = colorClasses(game, { kind: 'pass' });
  const w = game.warps;
  const topOf = (d: number) => {
    let r = game.draws[d]!.region!;
    while (game.regions[r]!.parent !== null) r = game.regions[r]!.parent!;
    return game.regions[r]!.label;
  };
  const classOfPass = new Map<string, number>();
  for (let i = 0; i < w.count; i++) {
    const p = topOf(w.draw[i]!);
    const seen = classOfPass.get(p);
    assert.ok(seen === undefined || seen === c.classOf[i], `pass ${p}'s warps share one color`);
    classOfPass.set(p, c.classOf[i]!);
  }
  assert.equal(classOfPass.size, GAME_PASSES.length);
  GAME_PASSES.forEach((p, k) => k > 0 && assert.notEqual(classOfPass.get(p), classOfPass.get(GAME_PASSES[k - 1]!), `${GAME_PASSES[k - 1]} then ${p}`));
  assert.ok(c.note?.startsWith('23 passes in 15 colors'), c.note);
  const byPass = sums(game, (i) => topOf(w.draw[i]!));
  const top = [...byPass].sort((a, b) => b[1].ns - a[1].ns).slice(0, LEGEND_TOP);
  assert.deepEqual(
    c.legend.map((e) => [e.label, e.warps, e.rgb]),
    top.map(([p, s]) => [p, s.warps, CATEGORICAL_RGB[classOfPass.get(p as string)!]]),
  );
  assert.equal(c.warpLabel!(w.count - 1), topOf(w.draw[w.count - 1]!));
  assert.equal(GAME_DRAWS_PER_PASS * GAME_PASSES.length + 1, game.draws.length);
});

test('pass: a frame wrapped in one region is colored by the passes inside it; draws outside them are grey', () => {
  const draw = (label: string, region: number) => ({ label, kind: 'draw', gpuBeginNs: 0, gpuEndNs: 100, region });
  const t = traceFromJson({
    format: 'warptrace-json',
    version: 1,
    device: { name: 'test', subgroupSize: 32, smCount: 1, warpsPerSm: 8, smBuiltins: true },
    capture: { workload: 'wrapped' },
    regions: [
      { label: 'Frame', parent: null, source: 'debug-label' },
      { label: 'Shadows', parent: 0, source: 'debug-label' },
      { label: 'GBuffer', parent: 0, source: 'debug-label' },
      { label: 'GBuffer/Opaque', parent: 2, source: 'debug-label' },
    ],
    draws: [draw('a', 1), draw('b', 3), draw('c', 0), draw('d', 2)],
    warps: { startNs: [0, 10, 20, 30], endNs: [5, 15, 25, 35], sm: [0, 0, 0, 0], warpSlot: [0, 1, 2, 3], stage: ['FS', 'FS', 'FS', 'FS'], draw: [0, 1, 2, 3], customId: [0, 1, 2, 3], activeMask: [1, 1, 1, 1] },
  });
  assert.equal(passDepth(t), 1);
  const c = colorClasses(t, { kind: 'pass' });
  assert.deepEqual([...c.classOf], [0, 1, OUTSIDE_PASS, 1]);
  assert.deepEqual(c.legend.map((e) => [e.label, e.warps, e.rgb]), [['Shadows', 1, CATEGORICAL_RGB[0]], ['GBuffer', 2, CATEGORICAL_RGB[1]], ['outside passes', 1, OUTSIDE_RGB]]);
});

/** Exact nearest-rank percentile p of sorted values. */
const rankOf = (sorted: Float32Array, p: number) => sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1]!;

for (const file of ['h100-aqt.wtrace', 'h100-ray-tracing.wtrace']) {
  test(`duration percentile on ${file}: each warp against its stage's exact percentiles (sorted here), whole and in slices`, () => {
    const t = sample(file);
    const w = t.warps;
    const byStage = new Map<number, number[]>();
    for (let i = 0; i < w.count; i++) (byStage.get(w.stage[i]!) ?? byStage.set(w.stage[i]!, []).get(w.stage[i]!)!).push(w.durationNs[i]!);
    const cuts = new Map([...byStage].map(([s, ds]) => [s, DURATION_CUTS.map((p) => rankOf(Float32Array.from(ds).sort(), p))]));
    const whole = colorClasses(t, { kind: 'duration' });
    const sliced = runSteps(colorClassSteps(t, { kind: 'duration' }, 997));
    for (let i = 0; i < w.count; i++) {
      const want = cuts.get(w.stage[i]!)!.filter((c) => w.durationNs[i]! >= c).length;
      if (whole.classOf[i] !== want || sliced.classOf[i] !== want) assert.fail(`warp ${i}: class ${whole.classOf[i]} (sliced ${sliced.classOf[i]}), want ${want}`);
    }
    // The cuts are the Statistics panel's percentiles: its p50, p90 and p99 open classes 2, 4 and 6.
    for (const st of analyzeTrace(t).stages) {
      const rows = Array.from({ length: w.count }, (_, i) => i).filter((i) => w.stage[i] === st.stageCode);
      const shortestFrom = (k: number) => Math.min(...rows.filter((i) => whole.classOf[i]! >= k).map((i) => w.durationNs[i]!));
      assert.deepEqual([shortestFrom(2), shortestFrom(4), shortestFrom(6)], [st.medianNs, st.p90Ns, st.p99Ns], `${st.stage}: p50, p90, p99`);
    }
    assert.equal(whole.legend.length, 7);
    assert.ok(whole.warpLabel!(0).includes(`of ${STAGES.find((s) => s.code === w.stage[0])!.label} warps`), whole.warpLabel!(0));
  });
}

test('SM: up to 16 SMs a color each; 132 SMs in 16 runs of neighbouring ids; warps without an SM id grey', () => {
  const few = sample('h100-aqt.wtrace');
  const fewSms = [...few.warps.smGroups.sm];
  assert.ok(fewSms.length <= 16);
  const c = colorClasses(few, { kind: 'sm' });
  for (let i = 0; i < few.warps.count; i += 101) assert.equal(c.classOf[i], fewSms.indexOf(smOfWarp(few.warps.smGroups, i)));
  assert.deepEqual(c.legend.map((e) => e.label), fewSms.map((s) => `SM ${s}`));

  const g = colorClasses(game, { kind: 'sm' });
  const smsOf = new Map<number, Set<number>>();
  for (let i = 0; i < game.warps.count; i++) (smsOf.get(g.classOf[i]!) ?? smsOf.set(g.classOf[i]!, new Set()).get(g.classOf[i]!)!).add(smOfWarp(game.warps.smGroups, i));
  assert.equal(smsOf.size, 16);
  const runs = [...smsOf].sort((a, b) => a[0] - b[0]).map(([, s]) => [...s].sort((a, b) => a - b));
  for (let k = 1; k < runs.length; k++) assert.ok(runs[k]![0]! > runs[k - 1]!.at(-1)!, `run ${k} starts after run ${k - 1} ends`);
  assert.ok(runs.every((r) => r.length >= 8 && r.length <= 9), `runs of 132 / 16 SMs: ${runs.map((r) => r.length).join(' ')}`);
  assert.equal(g.legend[0]!.label, `SM ${runs[0]![0]}–${runs[0]!.at(-1)}`);

  const lavapipe = sample('lavapipe-aqt.wtrace');
  assert.ok(lavapipe.warps.smGroups.sm.includes(UNKNOWN_SM));
  const l = colorClasses(lavapipe, { kind: 'sm' });
  assert.ok(l.classOf.every((k) => k === 15));
  assert.deepEqual(l.legend.map((e) => [e.label, e.rgb]), [['SM unknown', OUTSIDE_RGB]]);
});

test('each new mode in slices of 997 rows gives the classes of one pass', () => {
  for (const kind of ['draw', 'pass', 'sm'] as const) {
    const by: ColorBy = { kind };
    assert.deepEqual(runSteps(colorClassSteps(game, by, 997)).classOf, colorClasses(game, by).classOf, kind);
  }
});
