// Warp sampling decided in the prologue, on lavapipe (issue 25; the instrumenter's
// side is spirv-sample.test.ts). The harness's `--sample STAGE=N` writes each
// draw's sampling words (shared-schema/sample-layout.ts) into the draw-id
// table; the auto-instrumented workloads then record: at CS 1 in 8, exactly
// the compute warps warpSampled predicts from their workgroup and subgroup;
// at FS 1 in 8, ~1/8 of fragment warps per draw and screen quadrant, each one
// the hash picks; every warp of the other stages. A harness without the flag
// skips these tests and says so.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { warpSampled, workgroupKey } from '../../shared-schema/sample-layout.js';
import { decodeWtraw, Stage, type Trace } from '../../shared-schema/index.js';
import { autoInstrumentOptions, autoInstrumentSet } from '../../capture/capture-run/auto-instrument.js';
import { runCapture } from '../../capture/capture-run/harness.js';
import type { InstrumentOptions } from '../../instrument/options.js';
import { plainHarness, type PlainHarness } from './plain-harness.js';
import { workDir } from './spirv-tools.js';
import { computeWarpKeys } from './compute-warp-keys.js';

const SMALL = [['width', 320], ['height', 180]] as const;
let harness: PlainHarness | null = null;
let unavailable = '';
/** Why the harness cannot set sampling rates (its `--sample STAGE=N`); '' when it can. */
let noSampleFlag = '';
before(async () => {
  ({ harness, unavailable } = await plainHarness());
  if (harness !== null) {
    const help = spawnSync(harness.binary, ['--help'], { encoding: 'utf8' });
    if (!`${help.stdout}${help.stderr}`.includes('--sample')) noSampleFlag = `${harness.binary} --help lists no --sample STAGE=N (the harness flag that writes the draw-id block's sampling words)`;
  }
});

function skipWhy(): string | null {
  if (harness === null) return `no Vulkan device: ${unavailable}`;
  return noSampleFlag === '' ? null : noSampleFlag;
}

async function capture(workload: string, name: string, options: InstrumentOptions, params: readonly (readonly [string, number])[], sample: readonly (readonly [string, number])[] = []): Promise<Trace> {
  const h = harness!;
  const shaders = autoInstrumentSet(h.plain, options, join(workDir, `sample-${workload}-${name}`));
  const out = join(workDir, `sample-${workload}-${name}.wtraw`);
  const report = await runCapture(h.binary, { workload, tracedShaders: shaders, plainShaders: null, out, params, overheadFrames: 0, sample });
  assert.equal(report.counter, report.records, `${name}: nothing dropped`);
  return decodeWtraw(new Uint8Array(readFileSync(out)));
}

/** Warps per key. */
function count(trace: Trace, key: (i: number) => string | null): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < trace.warps.count; i++) {
    const k = key(i);
    if (k !== null) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

/** Warps per draw and stage, `except` left out. */
const perDrawStage = (trace: Trace, except: number) => [...count(trace, (i) => (trace.warps.stage[i] === except ? null : `draw ${trace.warps.draw[i]} stage ${trace.warps.stage[i]}`))].sort();

/** `kept` of `n` is within 5 standard deviations of n / 8 (a binomial count at rate 1/8). */
function nearEighth(kept: number, n: number): boolean {
  const p = 1 / 8;
  return Math.abs(kept - n * p) <= 5 * Math.sqrt(n * p * (1 - p));
}

test('compute-graphics on lavapipe, --sample CS=8: the compute warps recorded are exactly the predicted ones (workgroup, subgroup, draw), other stages all', async (t) => {
  const why = skipWhy();
  if (why !== null) return t.skip(why);
  // CS records carry their position (gl_GlobalInvocationID.xy's box): its x is workgroup * 64 + subgroup * size (100 groups: x < 8190).
  const auto = autoInstrumentOptions(harness!.device);
  const options: InstrumentOptions = { ...auto, positionStages: [...auto.positionStages, 'CS'] };
  const params = [...SMALL, ['groups', 100]] as const;
  const all = await capture('compute-graphics', 'cs-all', options, params);
  const sampled = await capture('compute-graphics', 'cs-8', options, params, [['CS', 8]]);
  const cs = Stage.CS;
  const every = computeWarpKeys(all);
  assert.equal(new Set(every).size, every.length, 'one warp per (draw, workgroup, subgroup)');
  assert.ok(every.length >= 1000, `${every.length} CS warps`);
  const predicted = every.filter((k) => {
    const [draw, workgroup, subgroup] = k.split(' ').map(Number) as [number, number, number];
    return warpSampled(workgroupKey(workgroup, subgroup), draw, cs, 3);
  });
  assert.deepEqual(computeWarpKeys(sampled), predicted, 'the recorded CS warps are exactly the predicted ones');
  assert.ok(nearEighth(predicted.length, every.length), `${predicted.length} of ${every.length}`);
  assert.deepEqual(perDrawStage(sampled, cs), perDrawStage(all, cs), 'other stages: every warp, per draw');
  t.diagnostic(`CS ${predicted.length} of ${every.length} warps recorded, each the predicted one`);
});

for (const workload of ['aqt', 'compute-graphics']) {
  test(`${workload} on lavapipe, --sample FS=8: ~1/8 of FS warps per draw and screen quadrant, each a warp the hash picks; other stages all`, async (t) => {
    const why = skipWhy();
    if (why !== null) return t.skip(why);
    // frag-coord ids place each FS record on the screen, and are its warp key when lane 0 is in the record.
    const auto = autoInstrumentOptions(harness!.device);
    const options: InstrumentOptions = { ...auto, customIds: { ...auto.customIds, FS: 'frag-coord' } };
    const all = await capture(workload, 'fs-all', options, SMALL);
    const sampled = await capture(workload, 'fs-8', options, SMALL, [['FS', 8]]);
    const fs = Stage.FS;
    assert.deepEqual(perDrawStage(sampled, fs), perDrawStage(all, fs), 'other stages: every warp, per draw');
    const w = sampled.warps;
    let checked = 0;
    for (let i = 0; i < w.count; i++) {
      if (w.stage[i] !== fs || (w.activeMask[i]! & 1) === 0) continue;
      // Lane 0 recorded: it was the first active lane, whose pixel every lane took as the key.
      assert.ok(warpSampled(w.customId[i]!, w.draw[i]!, fs, 3), `warp ${i}: pixel ${w.customId[i]!.toString(16)} draw ${w.draw[i]} is not one the hash picks`);
      checked++;
    }
    assert.ok(checked >= 100, `${checked} sampled FS warps checked against the hash`);
    const groups = (trace: Trace) =>
      count(trace, (i) => {
        if (trace.warps.stage[i] !== fs) return null;
        const id = trace.warps.customId[i]!;
        return `draw ${trace.warps.draw[i]} ${(id & 0xffff) < 160 ? 'left' : 'right'} ${id >>> 16 < 90 ? 'top' : 'bottom'}`;
      });
    const perDraw = (trace: Trace) => count(trace, (i) => (trace.warps.stage[i] === fs ? `draw ${trace.warps.draw[i]}` : null));
    const lines: string[] = [];
    for (const group of [perDraw, groups]) {
      const kept = group(sampled);
      for (const [key, n] of group(all)) {
        if (n < 400) continue;
        const k = kept.get(key) ?? 0;
        lines.push(`${key}: ${k}/${n}`);
        assert.ok(nearEighth(k, n), `${key}: ${k} of ${n}`);
      }
    }
    assert.ok(lines.length >= 5, lines.join(', '));
    t.diagnostic(lines.join(', '));
  });
}
