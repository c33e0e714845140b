// End to end on a real Vulkan device (lavapipe in CI): every reference
// workload traced twice, with the hand-instrumented shaders (warptrace.glsl)
// and with the plain shaders instrumented by the SPIR-V instrumenter. The
// decoder must see the same warps: per draw and stage the same counts, and
// the same (draw, stage, custom id, active mask, screen position) multiset.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeWtrace, decodeWtraw, type Trace } from '../../shared-schema/index.js';
import { autoInstrumentOptions, autoInstrumentSet } from '../../capture/capture-run/auto-instrument.js';
import { probeDevice, runCapture, type ProbedDevice } from '../../capture/capture-run/harness.js';
import { buildNative } from '../../capture/capture-run/native.js';
import { PLAIN, TRACED, compileShaderSet } from '../../capture/capture-run/shaders.js';
import { workDir } from './spirv-tools.js';
import { repoPath } from './paths.js';

const WORKLOADS = ['aqt', 'tess-stall', 'syncs', 'compute-graphics', 'busy-loop'];
const SMALL = [['width', 320], ['height', 180]] as const;

let harness: { binary: string; device: ProbedDevice; hand: string; auto: string } | null = null;
let unavailable = '';
before(async () => {
  try {
    const binary = await buildNative();
    const device = await probeDevice(binary);
    const plain = await compileShaderSet(device, PLAIN);
    const hand = await compileShaderSet(device, TRACED);
    harness = { binary, device, hand, auto: autoInstrumentSet(plain, autoInstrumentOptions(device), join(workDir, 'auto')) };
  } catch (error) {
    // CI installs lavapipe (scripts/install-system-deps.sh): there a missing device is a failure.
    if (process.env['CI']) throw error;
    unavailable = error instanceof Error ? error.message : String(error);
  }
});

function signature(trace: Trace): { perDrawStage: Map<string, number>; warps: Map<string, number> } {
  const w = trace.warps;
  const perDrawStage = new Map<string, number>();
  const warps = new Map<string, number>();
  for (let i = 0; i < w.count; i++) {
    const ds = `draw ${w.draw[i]} stage ${w.stage[i]}`;
    perDrawStage.set(ds, (perDrawStage.get(ds) ?? 0) + 1);
    const key = `${ds} id ${w.customId[i]} mask ${w.activeMask[i]}/${w.activeMaskHi?.[i] ?? 0} position ${w.position?.[i] ?? 'none'}`;
    warps.set(key, (warps.get(key) ?? 0) + 1);
  }
  return { perDrawStage, warps };
}

const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

for (const workload of WORKLOADS) {
  test(`${workload}: auto-instrumented shaders give the hand-instrumented warp structure`, async (t) => {
    if (harness === null) return t.skip(`no Vulkan device: ${unavailable}`);
    const traces: Trace[] = [];
    for (const [name, dir] of [['hand', harness.hand], ['auto', harness.auto]] as const) {
      const out = join(workDir, `${workload}-${name}.wtraw`);
      const report = await runCapture(harness.binary, { workload, tracedShaders: dir, plainShaders: null, out, params: SMALL, overheadFrames: 0 });
      assert.equal(report.counter, report.records, `${name}: nothing dropped`);
      traces.push(decodeWtraw(new Uint8Array(readFileSync(out))));
    }
    const [hand, auto] = traces.map(signature);
    assert.ok(traces[0]!.warps.count > 0);
    // Fragment warps carry positions (the GLSL library's default, and the instrumenter's): the comparison covers them.
    const fs = traces.map((tr) => Array.from({ length: tr.warps.count }, (_, i) => i).filter((i) => tr.warps.stage[i] === 4));
    if (fs[0]!.length > 0) for (const [k, tr] of traces.entries()) assert.ok(tr.warps.position !== null && fs[k]!.every((i) => tr.warps.position![i] !== 0xffffffff), `${k === 0 ? 'hand' : 'auto'}: every FS warp has a position`);
    assert.deepEqual(sorted(auto!.perDrawStage), sorted(hand!.perDrawStage));
    assert.deepEqual(sorted(auto!.warps), sorted(hand!.warps));
    assert.equal(traces[1]!.capture.calibration.method, traces[0]!.capture.calibration.method);
    assert.deepEqual(traces[1]!.draws.map((d) => d.label), traces[0]!.draws.map((d) => d.label));
    t.diagnostic(`${traces[0]!.warps.count} warps; ${sorted(hand!.perDrawStage).map(([k, n]) => `${k}: ${n}`).join(', ')}`);
  });
}

test('warptrace capture --instrument auto writes a calibrated trace of the workload', (t) => {
  if (harness === null) return t.skip(`no Vulkan device: ${unavailable}`);
  const out = join(workDir, 'auto.wtrace');
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'capture', '--workload', 'compute-graphics', '--instrument', 'auto', '-o', out, '--overhead-frames', '2', ...SMALL.flatMap(([k, v]) => ['--param', `${k}=${v}`])], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /warps \(VS [\d,]+, GS [\d,]+, FS [\d,]+, CS [\d,]+\)/);
  assert.match(r.stdout, /overhead \d+\.\d+x/);
  assert.ok(existsSync(out));
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  assert.ok(trace.capture.overhead !== null);
  const bad = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'capture', '--workload', 'aqt', '--instrument', 'manual', '-o', join(workDir, 'never.wtrace')], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--instrument takes auto, not "manual"/);
});
