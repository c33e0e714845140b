// Footprints their lanes fill little of (analysis/screen-spread.ts): the H100 ray-tracing capture's
// ray-generation tiles fill theirs (no note); the same capture with its hit, miss and intersection warps
// given the positions such warps record (the box of lanes from rays of pixels far apart) gets one note
// per stage, with the share and the 128 px footprints counted by brute force here; `warptrace export
// --screen --stage` shows one ray-tracing stage, warns, picks that stage's target, and refuses a stage
// without positions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from 'fast-png';
import { drawSet, screenColumns, stageSet } from '../../analysis/screen-columns.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { screenImage } from '../../analysis/screen-raster.js';
import { SPARSE_FILL, fill, footprintSpread, spreadNotes } from '../../analysis/screen-spread.js';
import { NO_POSITION, Stage, activeLaneCount, decodeTrace, encodeWtrace, packPosition, synthesizeTrace, unpackPosition, type Trace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-spread-'));
const sample = decodeTrace(new Uint8Array(readFileSync(repoPath('samples', 'h100-ray-tracing.wtrace'))));
const HIT_STAGES: readonly number[] = [Stage.ANY_HIT, Stage.CLOSEST_HIT, Stage.MISS, Stage.INTERSECTION];

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/**
 * `t` with the warps of `stages` (in `draws`, when given) positioned as a hit or miss warp of rays from all over a
 * `width` × `height` launch would be: the box of one pixel per live lane, scattered; one warp in four coherent (its
 * lanes in one 8 × 4 tile, as rays of neighbouring pixels that hit the same thing).
 */
function spread(t: Trace, stages: readonly number[], width: number, height: number, draws: ReadonlySet<number> | null = null): Trace {
  const w = t.warps;
  const position = w.position === null ? new Uint32Array(w.count).fill(NO_POSITION) : w.position.slice();
  for (let i = 0; i < w.count; i++) {
    if (!stages.includes(w.stage[i]!) || (draws !== null && !draws.has(w.draw[i]!))) continue;
    const lanes = activeLaneCount(w, i);
    let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
    for (let k = 0; k < lanes; k++) {
      const coherent = i % 4 === 0;
      const x = coherent ? ((i * 8) % (width - 8)) + (k & 7) : (i * 7919 + k * 104729) % width;
      const y = coherent ? ((i * 4) % (height - 4)) + (k >> 3) : (i * 31 + k * 613) % height;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
    position[i] = packPosition(x0, y0, x1, y1);
  }
  return { ...t, warps: { ...w, position } };
}

/** Per stage, by brute force from the model: warps, lanes, footprint pixels, footprints 128 px wide or high. */
function bruteForce(t: Trace, stage: number) {
  let [warps, lanes, pixels, capped] = [0, 0, 0, 0];
  for (let i = 0; i < t.warps.count; i++) {
    const f = unpackPosition(t.warps.position![i]!);
    if (f === null || t.warps.stage[i] !== stage) continue;
    warps++;
    lanes += activeLaneCount(t.warps, i);
    pixels += f.width * f.height;
    if (f.width === 128 || f.height === 128) capped++;
  }
  return { warps, lanes, pixels, capped };
}

test('the H100 capture\'s ray-generation tiles fill their footprints: the spread says so, and no note', () => {
  const cols = screenColumns(sample.warps)!;
  const spreads = footprintSpread(cols, screenOrder(cols, null).rows);
  assert.deepEqual(spreads.map((s) => s.stage), [Stage.RAYGEN], 'only ray generation has positions in this capture');
  const { warps, lanes, pixels, capped } = bruteForce(sample, Stage.RAYGEN);
  assert.deepEqual(spreads[0], { stage: Stage.RAYGEN, warps, lanes, pixels, capped });
  // Every launch pixel is in exactly one ray-generation record.
  assert.equal(lanes, 1280 * 720);
  assert.ok(fill(spreads[0]!) > SPARSE_FILL);
  assert.deepEqual(spreadNotes(spreads), []);
});

test('hit, miss and intersection warps from pixels far apart: one note per stage, the share and the 128 px footprints as counted', () => {
  const t = spread(sample, HIT_STAGES, 1280, 720);
  const cols = screenColumns(t.warps)!;
  const spreads = footprintSpread(cols, screenOrder(cols, null).rows);
  assert.deepEqual(spreads.map((s) => s.stage), [Stage.RAYGEN, Stage.ANY_HIT, Stage.CLOSEST_HIT, Stage.MISS, Stage.INTERSECTION]);
  const notes = spreadNotes(spreads);
  assert.equal(notes.length, HIT_STAGES.length, notes.join('\n'));
  for (const stage of HIT_STAGES) {
    const name = Object.keys(Stage).find((k) => Stage[k as keyof typeof Stage] === stage)!;
    const b = bruteForce(t, stage);
    assert.deepEqual(spreads.find((s) => s.stage === stage), { stage, ...b }, name);
    assert.ok(b.lanes / b.pixels < SPARSE_FILL && b.capped > 0, `${name}: the warps are spread`);
    const note = notes.find((n) => n.startsWith(`${name} warps' lanes fill `));
    assert.ok(note !== undefined, name);
    const share = Number(/fill ([\d.]+)% of their footprints/.exec(note)![1]);
    assert.ok(Math.abs(share - (100 * b.lanes) / b.pixels) <= 0.5, `${name}: ${share}%`);
    assert.match(note, new RegExp(`; ${b.capped.toLocaleString('en-US')} of ${b.warps.toLocaleString('en-US')} footprints are 128 px wide or high`));
  }
});

test('export --screen lanes --stage CLOSEST_HIT: the stage\'s image and the note as a warning; a stage without positions is refused', () => {
  const t = spread(sample, HIT_STAGES, 1280, 720);
  const file = join(dir, 'hits.wtrace');
  writeFileSync(file, encodeWtrace(t));
  const out = join(dir, 'chit-lanes.png');
  const r = run('export', file, '--screen', 'lanes', '--stage', 'closest_hit', '-o', out);
  assert.equal(r.code, 0, r.err);
  const cols = screenColumns(t.warps)!;
  const want = screenImage(cols, screenOrder(cols, drawSet(t.draws, 0, true), stageSet([Stage.CLOSEST_HIT])), { metric: 'lanes', size: { width: 1280, height: 720 }, subgroupSize: 32 });
  assert.equal(want.shown, bruteForce(t, Stage.CLOSEST_HIT).warps);
  assert.match(r.out, new RegExp(`: ${want.shown.toLocaleString('en-US')} warps of draws 0 \\(CLOSEST_HIT only\\)`));
  assert.match(r.out, /legend: active lanes \(SIMT efficiency\): 0% .* → 100% /);
  const png = decode(readFileSync(out));
  for (let p = 0; p < want.width * want.height; p++) for (let c = 0; c < 3; c++) if (png.data[p * 3 + c] !== want.rgba[p * 4 + c]) assert.fail(`pixel ${p} channel ${c}`);
  assert.match(r.err, /warning: CLOSEST_HIT warps' lanes fill [\d.]+% of their footprints/);
  assert.doesNotMatch(r.err, /warning: (MISS|RAYGEN)/, 'only the stage shown');
  const raygen = run('export', file, '--screen', 'lanes', '--stage', 'raygen', '-o', join(dir, 'rgen-lanes.png'));
  assert.equal(raygen.code, 0, raygen.err);
  assert.doesNotMatch(raygen.err, /warning/);

  const plainFile = join(dir, 'sample.wtrace');
  writeFileSync(plainFile, encodeWtrace(sample));
  const refused = run('export', plainFile, '--screen', 'lanes', '--stage', 'MISS', '-o', join(dir, 'miss.png'));
  assert.equal(refused.code, 1);
  assert.match(refused.err, /--stage MISS: no warp of that stage has a screen position \(stages with positions: RAYGEN\)/);
});

test('export --screen --stage without --draw: the busiest target of that stage (a half-size ray-traced pass), not the frame\'s raster target', () => {
  const base = synthesizeTrace({ warps: 30000, seed: 5, warpsPerDraw: 2500, positions: true });
  const rt = base.warps.draw[base.warps.stage.indexOf(Stage.FS)]!;
  const rtDraws = new Set([rt]);
  // That draw's fragment warps become closest hits of a 640 × 360 launch.
  const stage = Uint8Array.from(base.warps.stage, (s, i) => (s === Stage.FS && base.warps.draw[i] === rt ? Stage.CLOSEST_HIT : s));
  const relabelled: Trace = { ...base, draws: base.draws.map((d, i) => (i === rt ? { ...d, target: { width: 640, height: 360 } } : d)), warps: { ...base.warps, stage } };
  const t = spread(relabelled, [Stage.CLOSEST_HIT], 640, 360, rtDraws);
  const file = join(dir, 'hybrid.wtrace');
  writeFileSync(file, encodeWtrace(t));
  const hits = bruteForce(t, Stage.CLOSEST_HIT).warps;
  assert.ok(hits > 0 && hits < bruteForce(t, Stage.FS).warps, 'the raster target has more positioned warps');
  const out = join(dir, 'hybrid.png');
  const r = run('export', file, '--screen', 'duration', '--stage', 'CLOSEST_HIT', '-o', out);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`PNG 640 x 360\\): ${hits.toLocaleString('en-US')} warps of draws ${rt} \\(CLOSEST_HIT only\\)`));
  const fs = run('export', file, '--screen', 'duration', '-o', join(dir, 'hybrid-all.png'));
  assert.match(fs.out, /PNG 1280 x 720\)/, 'every stage: the raster target');
});
