// Whatever buildTrace (and so JSON import) accepts, both writers write and
// both readers read back unchanged; values just outside the accepted ranges
// are refused when the trace is built, naming the field. Seeded: the same
// cases on every run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAX_CYCLE_START,
  MAX_TIME_NS,
  NO_POSITION,
  STAGES,
  TraceFormatError,
  buildTrace,
  decodeWtrace,
  encodeWtrace,
  makeRandom,
  traceFromJson,
  traceToJson,
  type Trace,
  type TraceInput,
} from '../../shared-schema/index.js';
import { randomInput, storedTicks, type Random } from './round-trip-inputs.js';
import { repoPath } from './paths.js';

const MAX_TICKS = MAX_TIME_NS * 16;

function assertSameTrace(a: Trace, b: Trace, what: string): void {
  assert.deepEqual(b.device, a.device, `${what}: device`);
  assert.deepEqual(b.capture, a.capture, `${what}: capture`);
  assert.deepEqual(b.draws, a.draws, `${what}: draws`);
  assert.deepEqual(b.regions, a.regions, `${what}: regions`);
  const wa = a.warps;
  const wb = b.warps;
  assert.equal(wb.count, wa.count, `${what}: count`);
  for (const key of ['startNs', 'durationNs', 'warpSlot', 'stage', 'draw', 'customId', 'activeMask', 'activeMaskHi', 'smCycleStart', 'smCycleDuration', 'position'] as const) {
    const ca = wa[key];
    const cb = wb[key];
    assert.deepEqual(cb === null ? null : Array.from(cb), ca === null ? null : Array.from(ca), `${what}: column ${key}`);
  }
  assert.deepEqual(Array.from(wb.smGroups.sm), Array.from(wa.smGroups.sm), `${what}: SM groups`);
  assert.deepEqual(Array.from(wb.smGroups.offsets), Array.from(wa.smGroups.offsets), `${what}: group offsets`);
}

/** The input as the JSON import format (the columns as given, before buildTrace quantizes them). */
function jsonOf(input: TraceInput): string {
  const w = input.warps;
  const col = (c: ArrayLike<number> | null | undefined) => (c == null ? undefined : Array.from(c));
  return JSON.stringify({
    format: 'warptrace-json',
    version: 1,
    device: input.device,
    capture: input.capture,
    draws: input.draws,
    regions: input.regions,
    warps: {
      startNs: col(w.startNs),
      endNs: col(w.endNs),
      sm: col(w.sm),
      warpSlot: col(w.warpSlot),
      stage: col(w.stage),
      draw: col(w.draw),
      customId: col(w.customId),
      activeMask: col(w.activeMask),
      activeMaskHi: col(w.activeMaskHi),
      smCycleStart: col(w.smCycleStart),
      smCycleDuration: col(w.smCycleDuration),
      position: col(w.position),
    },
  });
}

const CASES = 400;

test(`accepted traces round-trip through .wtrace and JSON unchanged (${CASES} seeded cases, edges included)`, { timeout: 120_000 }, () => {
  const random: Random = makeRandom(0x5eed);
  let roundUps = 0;
  let atMax = 0;
  for (let c = 0; c < CASES; c++) {
    const { input, expectedRows } = randomInput(random);
    const what = `case ${c}`;
    const trace = buildTrace(input);
    // buildTrace kept every row's quantized times (in some order).
    const rows = Array.from({ length: trace.warps.count }, (_, i) => `${(trace.warps.startNs[i] as number) * 16}+${(trace.warps.durationNs[i] as number) * 16}`);
    assert.deepEqual(rows.sort(), expectedRows.map((r) => `${r.start}+${storedTicks(r.duration)}`).sort(), `${what}: times`);
    roundUps += expectedRows.filter((r) => storedTicks(r.duration) > r.duration).length;
    atMax += expectedRows.filter((r) => r.start + storedTicks(r.duration) === MAX_TICKS).length;

    assertSameTrace(trace, decodeWtrace(encodeWtrace(trace)), `${what} via .wtrace`);
    assertSameTrace(trace, traceFromJson(JSON.stringify(traceToJson(trace))), `${what} via JSON`);
    // JSON import of the very input builds the same trace.
    assertSameTrace(trace, traceFromJson(jsonOf(input)), `${what} imported`);
  }
  // The generator reached the edges it is meant to.
  assert.ok(roundUps > 20, `${roundUps} durations rounding up in float32`);
  assert.ok(atMax > 20, `${atMax} warps ending at the latest time`);
});

/** One row of a valid input pushed just outside a limit: the field buildTrace must name. */
interface OutsideCase {
  readonly name: string;
  readonly field: RegExp;
  mutate(input: Mutable, row: number): void;
}

type Mutable = { -readonly [K in keyof TraceInput]: any };

const outside: readonly OutsideCase[] = [
  { name: 'start after the latest time', field: /^warps\.startNs\[R\]$/, mutate: (t, r) => ((t.warps.startNs[r] = MAX_TIME_NS + 1 / 16), (t.warps.endNs[r] = MAX_TIME_NS + 1 / 16)) },
  { name: 'start before 0', field: /^warps\.startNs\[R\]$/, mutate: (t, r) => (t.warps.startNs[r] = -1 / 16) },
  { name: 'end after the latest time', field: /^warps\.endNs\[R\]$/, mutate: (t, r) => (t.warps.endNs[r] = MAX_TIME_NS + 1 / 16) },
  {
    // 2^48 − 1 ns is a float32 of 2^48: the end the trace would hold is past the limit.
    name: 'duration rounding up in float32 past the latest time',
    field: /^warps\.endNs\[R\]$/,
    mutate: (t, r) => ((t.warps.startNs[r] = 0), (t.warps.endNs[r] = MAX_TIME_NS)),
  },
  { name: 'end before start', field: /^warps\.endNs\[R\]$/, mutate: (t, r) => ((t.warps.startNs[r] = 100), (t.warps.endNs[r] = 99.9)) },
  {
    name: 'SM cycles too far after the SM\'s first warp',
    field: /^warps\.smCycleStart\[R\]$/,
    mutate: (t, r) => {
      const count = t.warps.startNs.length;
      t.warps.smCycleStart = new Array(count).fill(0);
      t.warps.smCycleDuration = new Array(count).fill(0);
      t.warps.sm[r] = t.warps.sm[r === 0 ? 1 : 0];
      t.warps.smCycleStart[r] = MAX_CYCLE_START + 1;
    },
  },
  { name: 'a custom id past 32 bits', field: /^warps\.customId\[R\]$/, mutate: (t, r) => (t.warps.customId[r] = 2 ** 32) },
  { name: 'a draw the trace does not list', field: /^warps\.draw\[R\]$/, mutate: (t, r) => (t.warps.draw[r] = t.draws.length) },
  { name: 'a warp slot past the device\'s', field: /^warps\.warpSlot\[R\]$/, mutate: (t, r) => (t.warps.warpSlot[r] = t.device.warpsPerSm ?? 0x100) },
  { name: 'an SM past the device\'s', field: /^warps\.sm\[R\]$/, mutate: (t, r) => (t.warps.sm[r] = t.device.smCount ?? 0x10000) },
  { name: 'an unknown stage', field: /^warps\.stage\[R\]$/, mutate: (t, r) => (t.warps.stage[r] = STAGES.length) },
  { name: 'no active lane', field: /^warps\.activeMask\[R\]$/, mutate: (t, r) => ((t.warps.activeMask[r] = 0), t.warps.activeMaskHi && (t.warps.activeMaskHi[r] = 0)) },
  { name: 'an implausible number in the metadata', field: /^device\.clocks\.smClockRateHz$/, mutate: (t) => (t.device.clocks.smClockRateHz = Number.POSITIVE_INFINITY) },
  { name: 'a lone surrogate in a string', field: /^device\.name$/, mutate: (t) => (t.device.name = 'GPU \ud800') },
  { name: 'a parameter MessagePack would rename', field: /^capture\.parameters\.__proto__$/, mutate: (t) => (t.capture.parameters = JSON.parse('{"__proto__": 1}')) },
  { name: 'a string too long', field: /^draws\[0\]\.label$/, mutate: (t) => (t.draws[0].label = 'x'.repeat(4097)) },
  {
    // x0 = 8191 is the no-position marker's: only NO_POSITION itself may have it.
    name: 'a position at x0 8191',
    field: /^warps\.position\[R\]$/,
    mutate: (t, r) => {
      t.warps.position = new Array(t.warps.startNs.length).fill(NO_POSITION);
      t.warps.position[r] = 0x1fff;
    },
  },
  { name: 'a position past 32 bits', field: /^warps\.position\[R\]$/, mutate: (t, r) => ((t.warps.position = new Array(t.warps.startNs.length).fill(NO_POSITION)), (t.warps.position[r] = 2 ** 32)) },
  { name: 'a draw target of width 0', field: /^draws\[0\]\.target\.width$/, mutate: (t) => (t.draws[0].target = { width: 0, height: 1 }) },
  { name: 'a draw target taller than 32 bits', field: /^draws\[0\]\.target\.height$/, mutate: (t) => (t.draws[0].target = { width: 1, height: 2 ** 32 }) },
];

test('values just outside the accepted ranges are refused by buildTrace and JSON import, naming the field', () => {
  const random: Random = makeRandom(0x0b5);
  for (const [k, c] of outside.entries()) {
    for (let attempt = 0; attempt < 6; attempt++) {
      const { input } = randomInput(random, { minRows: 2 });
      const mutable = structuredClone({ ...input, warps: Object.fromEntries(Object.entries(input.warps).map(([key, v]) => [key, v == null ? v : Array.from(v as ArrayLike<number>)])) }) as Mutable;
      const row = Math.floor(random() * mutable.warps.startNs.length);
      c.mutate(mutable, row);
      const field = new RegExp(c.field.source.replace('\\[R\\]', `\\[${row}\\]`));
      const named = (e: unknown) => e instanceof TraceFormatError && field.test(e.field) && e.message.startsWith(`${e.field}: `);
      assert.throws(() => buildTrace(mutable as TraceInput), named, `${c.name} (case ${k}.${attempt}): buildTrace should name ${field}`);
      if (Number.isFinite(mutable.device.clocks.smClockRateHz ?? 0)) {
        assert.throws(() => traceFromJson(jsonOf(mutable as TraceInput)), named, `${c.name} (case ${k}.${attempt}): JSON import should name ${field}`);
      }
    }
  }
});

test('the edges themselves are accepted: 0, the latest time, the longest duration, the largest cycle start', () => {
  const { input } = randomInput(makeRandom(7), { minRows: 3 });
  const longest = 2 ** 48 - 2 ** 24; // the float32 below 2^48 (2^48 − 1 rounds up to 2^48)
  const edges = { startNs: [0, MAX_TIME_NS, MAX_TIME_NS - 1000], endNs: [longest, MAX_TIME_NS, MAX_TIME_NS], sm: [0, 0, 0], smCycleStart: [5, 5 + MAX_CYCLE_START, 7], smCycleDuration: [0, 2 ** 32 - 1, 1] };
  const warps = Object.fromEntries(Object.entries({ ...input.warps, ...edges }).map(([key, v]) => [key, v == null ? v : Array.from(v as ArrayLike<number>).slice(0, 3)]));
  const trace = buildTrace({ ...input, capture: { ...input.capture, recordsKept: 3, recordsWritten: 3 }, warps: warps as unknown as TraceInput['warps'] });
  assert.deepEqual(Array.from(trace.warps.startNs), [0, MAX_TIME_NS - 1000, MAX_TIME_NS]);
  assert.deepEqual(Array.from(trace.warps.durationNs), [longest, 1000, 0]);
  assert.deepEqual(Array.from(trace.warps.smCycleStart ?? []), [0, 2, MAX_CYCLE_START]);
  assertSameTrace(trace, decodeWtrace(encodeWtrace(trace)), 'edges via .wtrace');
  assertSameTrace(trace, traceFromJson(JSON.stringify(traceToJson(trace))), 'edges via JSON');
});

test('warptrace convert refuses JSON it could not write readably: exit 1, one line naming the field, no file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-limits-'));
  const twoWarps = (warps: Record<string, unknown>) =>
    JSON.stringify({
      format: 'warptrace-json',
      version: 1,
      device: { name: 'g', subgroupSize: 32 },
      draws: [{ label: 'd' }],
      warps: { startNs: [0, 1], endNs: [1, 2], sm: [0, 0], warpSlot: [0, 0], stage: ['CS', 'CS'], draw: [0, 0], customId: [0, 0], activeMask: [1, 1], ...warps },
    });
  const cases = [
    // Each of these used to convert, and the file then failed to read back.
    { name: 'start at 2^48 ns', json: twoWarps({ startNs: [0, 2 ** 48], endNs: [1, 2 ** 48 + 1] }), field: 'warps.startNs[1]' },
    { name: 'smCycleStart near 2^53', json: twoWarps({ smCycleStart: [0, 2 ** 53 - 1], smCycleDuration: [1, 1] }), field: 'warps.smCycleStart[1]' },
    { name: 'a duration rounding up in float32', json: twoWarps({ startNs: [0, 2 ** 47], endNs: [1, MAX_TIME_NS] }), field: 'warps.endNs[1]' },
  ];
  for (const c of cases) {
    const input = join(dir, `${c.name.replace(/\W+/g, '-')}.json`);
    writeFileSync(input, c.json);
    for (const out of ['out.wtrace', 'out.json']) {
      const output = join(dir, out);
      const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'convert', input, '-o', output], { encoding: 'utf8' });
      assert.equal(r.status, 1, `${c.name} → ${out}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '');
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `${c.name}: one line, got ${r.stderr}`);
      assert.ok(lines[0]!.includes(`${c.field}: `), `${c.name}: ${lines[0]} should name ${c.field}`);
      assert.equal(existsSync(output), false);
    }
  }
});

test('the writers refuse rows that did not come through buildTrace rather than write what cannot be read', () => {
  const { input } = randomInput(makeRandom(11), { minRows: 4 });
  const trace = buildTrace({ ...input, warps: { ...input.warps, smCycleStart: null, smCycleDuration: null } });
  const w = trace.warps;
  const refused = (field: RegExp) => (e: unknown) => e instanceof TraceFormatError && field.test(e.field);
  // A start past the limit (as a calibration gone wrong could place it), and an end past it through float32 rounding.
  const late = { ...trace, warps: { ...w, startNs: w.startNs.map((s, i) => (i === 2 ? 2 ** 48 : s)) } };
  assert.throws(() => encodeWtrace(late), refused(/^warps\.startNs$/));
  assert.throws(() => traceToJson(late), refused(/^warps\.startNs\[2\]$/));
  const long = { ...trace, warps: { ...w, startNs: w.startNs.map((s, i) => (i === 3 ? 1 : s)), durationNs: w.durationNs.map((d, i) => (i === 3 ? 2 ** 48 : d)) } };
  assert.throws(() => encodeWtrace(long), refused(/^warps\.endNs$/));
  assert.throws(() => traceToJson(long), refused(/^warps\.endNs\[3\]$/));
  const cycles = { ...trace, warps: { ...w, smCycleStart: new Float64Array(w.count).fill(2 ** 52), smCycleDuration: new Uint32Array(w.count) } };
  assert.throws(() => encodeWtrace(cycles), refused(/^warps\.smCycleStart$/));
  assert.throws(() => traceToJson(cycles), refused(/^warps\.smCycleStart\[0\]$/));
  const backwards = { ...trace, warps: { ...w, durationNs: w.durationNs.map((d, i) => (i === 1 ? -1 : d)) } };
  assert.throws(() => encodeWtrace(backwards), refused(/^warps\.durationNs$/));
  assert.throws(() => traceToJson(backwards), refused(/^warps\.durationNs\[1\]$/));
  // A y0 of 8191 belongs to NO_POSITION alone: the readers would refuse the word.
  const offScreen = { ...trace, warps: { ...w, position: new Uint32Array(w.count).fill(0x1fff << 13) } };
  assert.throws(() => encodeWtrace(offScreen), refused(/^warps\.position$/));
  assert.throws(() => traceToJson(offScreen), refused(/^warps\.position\[0\]$/));
  const nan = { ...trace, capture: { ...trace.capture, calibration: { ...trace.capture.calibration, perSm: [{ sm: 0, samples: 1, lateSamples: 0, fit: 'linear' as const, nsPerCycle: Number.NaN, offsetNs: 0, residualRmsNs: 0, residualMaxNs: 0, fromNs: 0, toNs: 1 }] } } };
  assert.throws(() => encodeWtrace(nan), refused(/^capture\.calibration\.perSm\[0\]\.nsPerCycle$/));
  assert.throws(() => traceToJson(nan), refused(/^capture\.calibration\.perSm\[0\]\.nsPerCycle$/));
});
