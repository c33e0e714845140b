// "Color by" (viewer/model/color-by.ts): the per-warp class columns of the live-lanes and
// branch modes on cases worked out by hand and on the samples, the class pyramids against
// the warps' own times, and the mode's token in view links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MARK_KIND_SHIFT, MarkKind, STAGES, decodeWtrace, traceFromJson, type Trace } from '../../shared-schema/index.js';
import { markLabel } from '../../analysis/marks.js';
import { BranchClass, markIdsOf } from '../../viewer/model/branch-classes.js';
import { classPyramid, laneColoringSteps } from '../../viewer/model/class-occupancy.js';
import { colorByKey, colorByOptions, colorClassSteps, colorClasses, parseColorBy, runSteps, type ColorBy } from '../../viewer/model/color-by.js';
import { PER_INVOCATION, classLanes, laneClass } from '../../viewer/model/lane-classes.js';
import { buildLaneIndex } from '../../viewer/model/lane-index.js';
import { repoPath } from './paths.js';

const sample = (file: string): Trace => decodeWtrace(new Uint8Array(readFileSync(repoPath('samples', file))));
const code = (name: string) => STAGES.find((s) => s.name === name)!.code;
const A = 1;
const B = 2;

/** Eight FS warps of a 32-lane device, with marks A and B (wtMark ids) placed as each case needs. */
function branchTrace(): Trace {
  const full = 0xffffffff;
  const cases: { mask: number; marks: [number, number][] }[] = [
    { mask: full, marks: [[A, full]] }, // 0: every lane reached A: red
    { mask: full, marks: [[A, 0xffff]] }, // 1: half did: yellow
    { mask: full, marks: [[B, full]] }, // 2: no mark A: grey
    { mask: 0xffff, marks: [[A, 0xffff]] }, // 3: a partial warp whose 16 lanes all reached A: red
    { mask: 0xffff, marks: [[A, 0xff], [A, 0xff00]] }, // 4: a loop's mark, lanes 0-7 then 8-15: together all: red
    { mask: 0xffff, marks: [[B, full], [A, 0xffff]] }, // 5: lanes 16-31 returned early, but mark B saw them live: yellow
    { mask: full, marks: [] }, // 6: no marks at all: grey
    { mask: full, marks: [[A, 0x1], [B, full]] }, // 7: one lane: yellow
  ];
  const marks = cases.flatMap((c, row) => c.marks.map(([id, lanes], k) => ({ row, id, lanes, k })));
  return traceFromJson({
    format: 'warptrace-json',
    version: 1,
    device: { name: 'test', subgroupSize: 32, smCount: 1, warpsPerSm: 8, smBuiltins: true },
    capture: { workload: 'branch' },
    draws: [{ label: 'd', kind: 'draw', gpuBeginNs: 0, gpuEndNs: 1000 }],
    warps: {
      startNs: cases.map((_, i) => i * 10),
      endNs: cases.map((_, i) => i * 10 + 100),
      sm: cases.map(() => 0),
      warpSlot: cases.map((_, i) => i),
      stage: cases.map(() => 'FS'),
      draw: cases.map(() => 0),
      customId: cases.map((_, i) => i),
      activeMask: cases.map((c) => c.mask),
    },
    marks: {
      count: marks.length,
      orphans: 0,
      warp: marks.map((m) => m.row),
      id: marks.map((m) => m.id),
      sequence: marks.map((m) => m.k),
      offsetNs: marks.map((m) => 10 + 20 * m.k),
      activeMask: marks.map((m) => m.lanes),
    },
  });
}

test('branch classes: red when all the warp’s lanes reached the mark, yellow when some did, grey when none', () => {
  const t = branchTrace();
  const { classOf } = colorClasses(t, { kind: 'branch', mark: A });
  const { ALL, SOME, NONE } = BranchClass;
  assert.deepEqual([...classOf], [ALL, SOME, NONE, ALL, ALL, SOME, NONE, SOME]);
  // Mark B: warps 2, 5 and 7 had all their lanes there; the others none.
  assert.deepEqual([...colorClasses(t, { kind: 'branch', mark: B }).classOf], [NONE, NONE, ALL, NONE, NONE, ALL, NONE, ALL]);
  // A mark id the trace lacks leaves every warp grey.
  assert.deepEqual([...colorClasses(t, { kind: 'branch', mark: 99 }).classOf], new Array(8).fill(NONE));
  const c = colorClasses(t, { kind: 'branch', mark: A });
  assert.deepEqual([c.counts[NONE], c.counts[SOME], c.counts[ALL]], [2, 3, 3]);
  assert.equal(c.caption, 'branch at mark 1');
  assert.deepEqual(markIdsOf(t.marks), [
    { id: A, warps: 6 },
    { id: B, warps: 3 },
  ]);
});

test('branch classes on the ray-tracing sample: the warps that traced a shadow ray reached the mark before it', () => {
  const t = sample('h100-ray-tracing-marks.wtrace');
  const before = (site: number) => (MarkKind.BEFORE_TRACE << MARK_KIND_SHIFT) | site;
  // samples/index.json: every launch warp (28,800) traces its primary ray, 16,256 also a shadow ray.
  const ids = markIdsOf(t.marks);
  assert.equal(ids.find((m) => m.id === before(0))?.warps, 28_800);
  assert.equal(ids.find((m) => m.id === before(1))?.warps, 16_256);
  const c = colorClasses(t, { kind: 'branch', mark: before(1) });
  assert.equal(c.counts[BranchClass.ALL]! + c.counts[BranchClass.SOME]!, 16_256);
  assert.equal(c.counts[BranchClass.NONE], t.warps.count - 16_256);
  // Each warp's class again, from its own marks gathered in a map.
  const m = t.marks!;
  const byWarp = new Map<number, number[]>();
  for (let k = 0; k < m.count; k++) byWarp.set(m.warp[k]!, [...(byWarp.get(m.warp[k]!) ?? []), k]);
  let diverged = 0;
  for (let row = 0; row < t.warps.count; row++) {
    const mine = byWarp.get(row) ?? [];
    const lanes = mine.reduce((a, k) => (a | m.activeMask[k]!) >>> 0, t.warps.activeMask[row]! >>> 0);
    const at = mine.filter((k) => m.id[k] === before(1));
    const took = at.reduce((a, k) => (a | m.activeMask[k]!) >>> 0, 0);
    const want = at.length === 0 ? BranchClass.NONE : took === lanes ? BranchClass.ALL : BranchClass.SOME;
    assert.equal(c.classOf[row], want, `warp ${row}`);
    if (want === BranchClass.SOME) diverged++;
  }
  // Rays that missed skip the shadow ray: some warps diverged there (31.1 live lanes of 32 on average).
  assert.ok(diverged > 0 && diverged < 16_256, `${diverged} warps diverged`);
});

test('live-lane classes: eighths of the subgroup, full warps apart, one class per lane count', () => {
  for (const size of [4, 8, 16, 32, 64]) {
    for (let n = 1; n <= size; n++) {
      const k = laneClass(n, size);
      if (n === size) {
        assert.equal(k, Math.min(8, size), `a full warp of ${size}`);
        continue;
      }
      const [lo, hi] = classLanes(k, size);
      assert.ok(lo <= n && n <= hi, `${n} of ${size} lanes in class ${k} (${lo}-${hi})`);
    }
  }
  // By hand, subgroups of 32: 1-3 lanes class 0, 4-7 class 1, …, 28-31 class 7, 32 class 8.
  assert.deepEqual([1, 3, 4, 7, 27, 28, 31, 32].map((n) => laneClass(n, 32)), [0, 0, 1, 1, 6, 7, 7, 8]);
  // Subgroups of 8 (lavapipe): one lane count per class.
  assert.deepEqual([1, 2, 7, 8].map((n) => laneClass(n, 8)), [1, 2, 7, 8]);
});

test('live-lane classes on lavapipe: stages without subgroup operations recorded invocations, not warps', () => {
  const t = sample('lavapipe-aqt.wtrace');
  const { classOf, legend } = colorClasses(t, { kind: 'lanes' });
  const w = t.warps;
  const subgroup = new Set(t.device.subgroupStages);
  for (let i = 0; i < w.count; i++) {
    const stage = STAGES[w.stage[i]!]!;
    let lanes = 0;
    for (let m = w.activeMask[i]! >>> 0; m !== 0; m >>>= 1) lanes += m & 1;
    const want = subgroup.has(stage.name) ? (lanes >= 8 ? 8 : lanes) : PER_INVOCATION;
    if (classOf[i] !== want) assert.fail(`warp ${i} (${stage.name}, ${lanes} lanes): class ${classOf[i]}, want ${want}`);
  }
  const labels = legend.map((e) => e.label);
  assert.deepEqual(labels, ['1', '2', '3', '4', '5', '6', '7', '8', 'per invocation']);
  // A capture whose every stage had subgroups has no per-invocation class.
  assert.ok(!colorClasses(sample('h100-aqt.wtrace'), { kind: 'lanes' }).legend.some((e) => e.cls === PER_INVOCATION));
});

test('class pyramids hold each class’s warp time, hidden stages left out', () => {
  const t = sample('h100-aqt.wtrace');
  const index = buildLaneIndex(t);
  const colors = colorClasses(t, { kind: 'lanes' });
  const w = t.warps;
  for (const hidden of [0, 1 << code('FS')]) {
    for (const lane of index.lanes) {
      const pyr = classPyramid(t, lane, colors, hidden);
      const want = new Map<number, number>();
      for (let i = lane.rowBegin; i < lane.rowEnd; i++) {
        if ((hidden >>> w.stage[i]!) & 1) continue;
        want.set(colors.classOf[i]!, (want.get(colors.classOf[i]!) ?? 0) + w.durationNs[i]!);
      }
      assert.deepEqual([...pyr.stages], [...want.keys()].sort((a, b) => a - b), `SM ${lane.sm}: the classes present`);
      pyr.stages.forEach((cls, k) => {
        const level0 = pyr.levels[k]![0]!;
        let got = 0;
        for (const v of level0) got += v * pyr.unit * pyr.binNs;
        const ns = want.get(cls)!;
        // 16-bit bins: at most half a unit off per bin.
        assert.ok(Math.abs(got - ns) <= 0.5 * pyr.unit * pyr.binNs * level0.length + 1e-6 * ns, `SM ${lane.sm} class ${cls}: ${got} ns of ${ns}`);
      });
    }
  }
});

test('computed a slice of rows at a time, as the page does, the classes and pyramids are those computed at once', () => {
  const t = sample('h100-ray-tracing-marks.wtrace');
  const index = buildLaneIndex(t);
  const shadow = (MarkKind.BEFORE_TRACE << MARK_KIND_SHIFT) | 1;
  for (const by of [{ kind: 'lanes' }, { kind: 'branch', mark: shadow }] as ColorBy[]) {
    const whole = colorClasses(t, by);
    // 997 rows a slice: slices end inside SM groups and between a warp's marks' rows.
    let steps = 0;
    const gen = colorClassSteps(t, by, 997);
    for (let r = gen.next(); r.done !== true; r = gen.next()) steps++;
    assert.equal(steps, Math.ceil(t.warps.count / 997) - 1, 'a yield between slices');
    const sliced = runSteps(colorClassSteps(t, by, 997));
    assert.deepEqual(sliced.classOf, whole.classOf, by.kind);
    assert.deepEqual(sliced.counts, whole.counts, `${by.kind} counts`);
    const hidden = 1 << code('MISS');
    const coloring = runSteps(laneColoringSteps(t, index, by, hidden, null, 997));
    index.lanes.forEach((lane, g) => assert.deepEqual(coloring.pyramids[g], classPyramid(t, lane, whole, hidden), `${by.kind}: SM ${lane.sm}'s pyramid`));
  }
});

test('the mode as a token: written and read back, anything else refused', () => {
  const modes: ColorBy[] = [{ kind: 'stage' }, { kind: 'lanes' }, { kind: 'branch', mark: (MarkKind.AFTER_TRACE << MARK_KIND_SHIFT) | 3 }];
  for (const by of modes) assert.deepEqual(parseColorBy(colorByKey(by)), by);
  assert.equal(colorByKey(modes[2]!), 'branch:33554435');
  for (const bad of ['', 'Stage', 'branch', 'branch:', 'branch:-1', 'branch:1e3', 'branch:99999999999', 'lanes ']) assert.equal(parseColorBy(bad), null, bad);
  const options = colorByOptions(markIdsOf(branchTrace().marks), branchTrace());
  // One draw and no regions: no draw or pass mode.
  assert.deepEqual(
    options.map((o) => o.label),
    ['stage', 'live lanes (SIMT efficiency)', 'duration percentile', 'SM', `branch: ${markLabel(A)} (6 warps)`, `branch: ${markLabel(B)} (3 warps)`],
  );
  for (const token of ['draw', 'pass', 'duration', 'sm']) assert.equal(colorByKey(parseColorBy(token)!), token);
});
