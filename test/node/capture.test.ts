// The real capture, end to end, on whatever Vulkan device the machine has (CI:
// lavapipe, software Vulkan): build the harness, compile the shaders, run each
// reference workload, decode its trace. Asserts only what is guaranteed on any
// device: every draw has warps of each of its stages, ids and stages are valid,
// nothing is dropped at the default buffer size, and a busy loop's measured
// duration follows its work knob (the clocks are not moved around the work).
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PackedIds,
  RecordFlag,
  RecordWord,
  RECORD_WORDS,
  STAGES,
  Stage,
  WtrawHeaderWord,
  WTRAW_SECTION_ALIGN,
  decodeWtrace,
  popcount32,
  smIdPerWarp,
  type Trace,
  decodeWtraw,
} from '../../shared-schema/index.js';
import { buildNative } from '../../capture/capture-run/native.js';
import { probeDevice } from '../../capture/capture-run/harness.js';
import { TRACED, compileShaderSet } from '../../capture/capture-run/shaders.js';
import { repoPath } from './paths.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-capture-'));

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

function run(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

interface Captured {
  readonly trace: Trace;
  readonly raw: Uint8Array;
  readonly metadata: Record<string, unknown>;
}

function rawMetadata(raw: Uint8Array): Record<string, unknown> {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const headerBytes = view.getUint32(WtrawHeaderWord.HEADER_BYTES * 4, true);
  const length = view.getUint32(WtrawHeaderWord.METADATA_BYTES * 4, true);
  return JSON.parse(new TextDecoder().decode(raw.subarray(headerBytes, headerBytes + length))) as Record<string, unknown>;
}

async function capture(name: string, workload: string, params: readonly string[], extra: readonly string[] = []): Promise<Captured> {
  const out = join(dir, `${name}.wtrace`);
  const rawPath = join(dir, `${name}.wtraw`);
  const args = ['capture', '--workload', workload, '-o', out, '--raw', rawPath, ...params.flatMap((p) => ['--param', p]), ...extra];
  const r = await run(args);
  assert.equal(r.code, 0, `warptrace ${args.join(' ')}\n${r.err}`);
  assert.match(r.out, /wrote .*: \S+ on /);
  const raw = new Uint8Array(readFileSync(rawPath));
  return { trace: decodeWtrace(new Uint8Array(readFileSync(out))), raw, metadata: rawMetadata(raw) };
}

const SMALL = ['width=96', 'height=64'];
const WORKLOADS: readonly { workload: string; params: readonly string[] }[] = [
  { workload: 'aqt', params: [...SMALL, 'grid=4', 'tess=3'] },
  { workload: 'tess-stall', params: [...SMALL, 'grid=6', 'spikes=2', 'spikeCost=8', 'tess=2'] },
  { workload: 'syncs', params: [...SMALL, 'draws=3', 'shading=4'] },
  { workload: 'compute-graphics', params: [...SMALL, 'groups=6', 'grid=6', 'csWork=8'] },
];
const captures = new Map<string, Captured>();

after(() => rmSync(dir, { recursive: true, force: true }));

before(async () => {
  if (skip) return;
  // The first capture also builds the harness (cmake) and compiles the shaders.
  for (const w of WORKLOADS) captures.set(w.workload, await capture(w.workload, w.workload, w.params, ['--overhead-frames', '3']));
});

function stageName(code: number): string {
  return STAGES[code]?.name ?? `?${code}`;
}

test('every draw of every workload has warps of each of its stages, and only those', { skip }, () => {
  for (const [workload, { trace, metadata }] of captures) {
    const expected = metadata['drawStages'] as string[][];
    assert.equal(trace.draws.length, expected.length, `${workload}: draws`);
    const seen = trace.draws.map(() => new Set<string>());
    const w = trace.warps;
    for (let i = 0; i < w.count; i++) seen[w.draw[i] as number]!.add(stageName(w.stage[i] as number));
    trace.draws.forEach((d, k) => {
      assert.deepEqual([...seen[k]!].sort(), [...expected[k]!].sort(), `${workload} draw ${k} "${d.label}"`);
      assert.ok(d.label.length > 0 && d.gpuBeginNs !== null && d.gpuEndNs !== null, `${workload} draw ${k} has a label and timestamps`);
    });
  }
  const all = new Set<string>();
  for (const { trace } of captures.values()) for (let i = 0; i < trace.warps.count; i++) all.add(stageName(trace.warps.stage[i] as number));
  assert.deepEqual([...all].sort(), ['CS', 'FS', 'GS', 'TCS', 'TES', 'VS'], 'the workloads cover every graphics and compute stage');
});

test('nothing is dropped at the default buffer size; the overhead was measured', { skip }, () => {
  for (const [workload, { trace }] of captures) {
    const c = trace.capture;
    assert.ok(c.recordsKept > 0, `${workload}: records`);
    assert.equal(c.recordsWritten, c.recordsKept, `${workload}: dropped records`);
    assert.equal(c.bufferCapacity, 2 ** 21);
    assert.ok(c.overhead !== null && c.overhead.plainFrameNs > 0 && c.overhead.tracedFrameNs > 0 && c.overhead.frames === 3, `${workload}: overhead`);
  }
});

test('ids, masks and flags follow what the device offers', { skip }, () => {
  for (const [workload, { trace, raw }] of captures) {
    const d = trace.device;
    const w = trace.warps;
    const perInvocationStages = new Set(['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'].filter((s) => !d.subgroupStages.includes(s as never)));
    const sms = smIdPerWarp(w);
    for (let i = 0; i < w.count; i++) {
      const stage = stageName(w.stage[i] as number);
      const lanes = popcount32(w.activeMask[i] as number);
      if (perInvocationStages.has(stage)) assert.equal(w.activeMask[i], 1, `${workload}: ${stage} records once per invocation`);
      else assert.ok(lanes >= 1 && lanes <= d.subgroupSize, `${workload}: ${stage} mask ${w.activeMask[i]}`);
      if (!d.smBuiltins) assert.equal(sms[i], 0xffff, `${workload}: SM unknown without SM builtins`);
      else assert.ok(sms[i]! < (d.smCount ?? 0xffff), `${workload}: SM id`);
    }
    // Raw flags: clocks as the device offers, PER_INVOCATION exactly in stages without subgroup ops.
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const count = view.getUint32(WtrawHeaderWord.RECORD_COUNT * 4, true);
    const recordsAt = raw.length - count * RECORD_WORDS * 4;
    for (let r = 0; r < count; r++) {
      const ids = view.getUint32(recordsAt + (r * RECORD_WORDS + RecordWord.PACKED_IDS) * 4, true);
      const flags = (ids >>> PackedIds.FLAGS_SHIFT) & PackedIds.FLAGS_MASK;
      const stage = stageName((ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK);
      assert.equal((flags & RecordFlag.SM_CLOCK) !== 0, d.clocks.smClock);
      assert.equal((flags & RecordFlag.PER_INVOCATION) !== 0, perInvocationStages.has(stage), `${workload}: ${stage} flags ${flags}`);
    }
    assert.ok(view.getUint32(WtrawHeaderWord.TIMESTAMP_COUNT * 4, true) === trace.draws.length);
    assert.equal(raw.length % WTRAW_SECTION_ALIGN, 0);
  }
});

test('custom ids are the documented defaults (CS: flattened workgroup id, TCS: primitive id)', { skip }, () => {
  const cg = captures.get('compute-graphics')!.trace;
  const groups = 6;
  let cs = 0;
  for (let i = 0; i < cg.warps.count; i++) {
    if (cg.warps.stage[i] !== Stage.CS) continue;
    cs++;
    assert.ok((cg.warps.customId[i] as number) < groups, `workgroup id ${cg.warps.customId[i]}`);
  }
  assert.ok(cs >= 2 * groups, 'each dispatch has at least one warp per workgroup');
  const aqt = captures.get('aqt')!.trace;
  const patches = [4 * 2, 2 * 1, 4 * 2]; // grid=4: 4 x 1 bands (rows = max(2, grid / 4) = 2), quartets halve both
  for (let i = 0; i < aqt.warps.count; i++) {
    if (aqt.warps.stage[i] !== Stage.TCS) continue;
    assert.ok((aqt.warps.customId[i] as number) < patches[aqt.warps.draw[i] as number]!, `TCS primitive id ${aqt.warps.customId[i]}`);
  }
});

test('warps lie inside their draw on the device clock: calibrated against the timestamps', { skip }, () => {
  for (const [workload, { trace, metadata }] of captures) {
    assert.equal(trace.capture.calibration.method, trace.device.clocks.smClock ? 'per-sm-fit' : 'device-clock');
    const check = metadata['clockCheck'] as { timestampMinusDeviceNs: [number, number]; fit: string } | undefined;
    assert.ok(check !== undefined, `${workload}: the harness checked the device clock against timestamps`);
    assert.notEqual(check.fit, 'disagree', `${workload}: the clock check's brackets agree on one line`);
    // The time bases are matched within the clock check's bracket; allow that much.
    const slack = Math.max(50_000, 2 * (check.timestampMinusDeviceNs[1] - check.timestampMinusDeviceNs[0]));
    const w = trace.warps;
    for (let i = 0; i < w.count; i++) {
      const d = trace.draws[w.draw[i] as number]!;
      const start = w.startNs[i] as number;
      const end = start + (w.durationNs[i] as number);
      assert.ok(start >= -slack + d.gpuBeginNs! - 0 && end <= d.gpuEndNs! + slack, `${workload}: warp ${i} [${start}, ${end}] outside draw ${d.index} [${d.gpuBeginNs}, ${d.gpuEndNs}] ± ${slack}`);
    }
  }
});

function medianDuration(trace: Trace, stage: number): number {
  const d: number[] = [];
  for (let i = 0; i < trace.warps.count; i++) if (trace.warps.stage[i] === stage) d.push(trace.warps.durationNs[i] as number);
  d.sort((a, b) => a - b);
  return d[d.length >> 1] ?? NaN;
}

test('an instrumented busy loop lasts longer with more work: the clocks are not moved around the work', { skip }, async () => {
  const params = ['width=64', 'height=64', 'groups=16'];
  const light = await capture('busy-light', 'busy-loop', [...params, 'work=32'], ['--overhead-frames', '0']);
  const heavy = await capture('busy-heavy', 'busy-loop', [...params, 'work=512'], ['--overhead-frames', '0']);
  for (const stage of [Stage.CS, Stage.FS]) {
    const a = medianDuration(light.trace, stage);
    const b = medianDuration(heavy.trace, stage);
    // 16x the iterations: the loop must dominate; at least 4x longer on any device.
    assert.ok(b > 4 * a, `${STAGES[stage]!.name}: median warp ${a.toFixed(0)} ns at work=32, ${b.toFixed(0)} ns at work=512`);
  }
});

test('epoch-scale timestamps (NVIDIA: ns since 1970) decode the same as small ones', { skip }, () => {
  // Move a real capture's timestamps to ~1.8e18 ticks and its device-clock low words with them.
  const { raw } = captures.get('syncs')!;
  const moved = raw.slice();
  const view = new DataView(moved.buffer);
  const shift = 1_795_238_398_714_022_400n;
  const headerBytes = view.getUint32(WtrawHeaderWord.HEADER_BYTES * 4, true);
  const metaBytes = view.getUint32(WtrawHeaderWord.METADATA_BYTES * 4, true);
  const stamps = view.getUint32(WtrawHeaderWord.TIMESTAMP_COUNT * 4, true);
  const count = view.getUint32(WtrawHeaderWord.RECORD_COUNT * 4, true);
  const tsAt = headerBytes + Math.ceil(metaBytes / 8) * 8;
  for (let k = 0; k < 2 * stamps; k++) view.setBigUint64(tsAt + k * 8, view.getBigUint64(tsAt + k * 8, true) + shift, true);
  const low = Number(shift % 2n ** 32n);
  const recordsAt = tsAt + stamps * 16;
  for (let r = 0; r < count; r++) {
    const at = recordsAt + (r * RECORD_WORDS + RecordWord.DEVICE_CLOCK) * 4;
    view.setUint32(at, (view.getUint32(at, true) + low) >>> 0, true);
  }
  const meta = rawMetadata(moved);
  const start = BigInt(meta['captureStartTicks'] as string) + shift;
  const text = new TextDecoder().decode(moved.subarray(headerBytes, headerBytes + metaBytes));
  const patched = text.replace(`"captureStartTicks": "${meta['captureStartTicks'] as string}"`, `"captureStartTicks": "${start}"`);
  const path = join(dir, 'epoch.wtraw');
  // Rebuild the file with the longer metadata (the container pads it to 8 bytes).
  const metaOut = new TextEncoder().encode(patched);
  const tsBytes = moved.subarray(tsAt, recordsAt);
  const recBytes = moved.subarray(recordsAt);
  const metaPadded = Math.ceil(metaOut.length / 8) * 8;
  const out = new Uint8Array(headerBytes + metaPadded + tsBytes.length + recBytes.length).fill(0x20, headerBytes, headerBytes + metaPadded);
  out.set(moved.subarray(0, headerBytes));
  new DataView(out.buffer).setUint32(WtrawHeaderWord.METADATA_BYTES * 4, metaOut.length, true);
  out.set(metaOut, headerBytes);
  out.set(tsBytes, headerBytes + metaPadded);
  out.set(recBytes, headerBytes + metaPadded + tsBytes.length);
  writeFileSync(path, out);
  const a = decodeWtraw(raw);
  const b = decodeWtraw(new Uint8Array(readFileSync(path)));
  assert.equal(b.warps.count, a.warps.count);
  for (let i = 0; i < a.warps.count; i++) assert.ok(Math.abs((a.warps.startNs[i] as number) - (b.warps.startNs[i] as number)) < 1e-3);
  assert.deepEqual(b.draws.map((d) => d.gpuEndNs), a.draws.map((d) => d.gpuEndNs));
});

test('without an SM clock, or without a device clock, the shaders fall back and the decoder says how times were placed', { skip }, async () => {
  const probed = await probeDevice(await buildNative());
  const cases = [
    { name: 'no-sm-clock', profile: { ...probed, subgroupClock: false }, method: 'device-clock', aligned: true },
    { name: 'no-device-clock', profile: { ...probed, deviceClock: false }, method: 'sm-clock-rebased', aligned: false },
  ] as const;
  for (const c of cases) {
    const shaders = await compileShaderSet(c.profile, TRACED, join(dir, `spv-${c.name}`));
    const { trace } = await capture(c.name, 'busy-loop', ['width=32', 'height=32', 'groups=4', 'work=16'], ['--shaders', shaders, '--overhead-frames', '0']);
    assert.equal(trace.capture.calibration.method, c.method, c.name);
    assert.equal(trace.capture.calibration.alignedAcrossSms, c.aligned, c.name);
    assert.ok(trace.warps.count > 0 && trace.capture.recordsWritten === trace.capture.recordsKept);
  }
});

test('no Vulkan driver: one clear line and exit 1', { skip }, async () => {
  const r = await run(['capture', '--workload', 'aqt', '-o', join(dir, 'none.wtrace')], {
    ...process.env,
    VK_DRIVER_FILES: '/nonexistent/icd.json',
    VK_ICD_FILENAMES: '/nonexistent/icd.json',
  });
  assert.equal(r.code, 1);
  assert.match(r.err, /^warptrace capture: no Vulkan device: .+\n$/);
});

test('unknown workloads and knobs are named in the error', { skip }, async () => {
  const unknown = await run(['capture', '--workload', 'nope', '-o', join(dir, 'x.wtrace')]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /unknown workload "nope" \(known: aqt, tess-stall, syncs, compute-graphics, busy-loop, divergence, ray-tracing, ray-tracing-reorder, meshlets\)/);
  const knob = await run(['capture', '--workload', 'syncs', '-o', join(dir, 'y.wtrace'), '--param', 'bogus=1']);
  assert.equal(knob.code, 1);
  assert.match(knob.err, /unknown parameter "bogus"/);
  const usage = await run(['capture', '--workload', 'syncs']);
  assert.equal(usage.code, 2);
});

test('tracing off compiles wtBegin/wtEnd to nothing; tracing on reads clocks and appends with one atomic', { skip }, () => {
  const shader = repoPath('capture/workloads/shaders/shade.frag');
  const spv = join(dir, 'shade.spv');
  const dis = (defines: string[]) => {
    const c = spawnSync('glslangValidator', ['-V', '--target-env', 'vulkan1.2', `-I${repoPath('capture/shaders')}`, ...defines, shader, '-o', spv], { encoding: 'utf8' });
    assert.equal(c.status, 0, c.stdout + c.stderr);
    const d = spawnSync('spirv-dis', [spv], { encoding: 'utf8' });
    assert.equal(d.status, 0, d.stderr);
    return d.stdout;
  };
  const plain = dis([]);
  assert.doesNotMatch(plain, /OpReadClockKHR|OpAtomicIAdd|ShaderClockKHR|WarpTraceBuffer/);
  const traced = dis(['-DWT_ENABLE', '-DWT_SM_BUILTINS=1']);
  assert.equal(traced.match(/OpReadClockKHR/g)?.length, 3, 'SM clock at start and end, device clock at the end');
  assert.equal(traced.match(/OpAtomicIAdd/g)?.length, 1);
  assert.match(traced, /BuiltIn SMIDNV/);
  assert.match(traced, /DescriptorSet 7/);
});

test('the clock-check SPIR-V embedded in warptrace_clocks.h is capture/host/clockcheck.comp', { skip }, () => {
  const spv = join(dir, 'clockcheck.spv');
  const stripped = join(dir, 'clockcheck-stripped.spv');
  const c = spawnSync('glslangValidator', ['-V', '--target-env', 'vulkan1.1', repoPath('capture/host/clockcheck.comp'), '-o', spv], { encoding: 'utf8' });
  assert.equal(c.status, 0, c.stdout);
  const s = spawnSync('spirv-opt', ['--strip-debug', spv, '-o', stripped], { encoding: 'utf8' });
  assert.equal(s.status, 0, s.stderr);
  const bytes = readFileSync(stripped);
  const words = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readUInt32LE(i * 4));
  const header = readFileSync(repoPath('capture/host/warptrace_clocks.h'), 'utf8');
  const block = /wtClockCheckSpirv_\[\] = \{([^}]*)\}/.exec(header);
  assert.ok(block !== null);
  const embedded = block[1]!.split(',').map((t) => t.trim()).filter((t) => t !== '').map((t) => Number.parseInt(t, 16));
  assert.deepEqual(embedded, words);
});
