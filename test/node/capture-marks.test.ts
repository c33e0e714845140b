// Marks end to end (`warptrace capture --workload aqt --marks loops`) on this machine's Vulkan
// device (CI: lavapipe, which has no ray tracing: loops only), read from the raw dump
// independently of the decoder: every mark names a warp record (same SM, slot, flags and draw,
// CLOCK_START == WARP_START), counts from 0 and at most 16 per invocation, and the irregular
// draw's TCS marks follow a CPU model of aqt_irregular.tesc: each invocation walks
// burn(tcsWork × depth), depth = 1 + (hash32(patch) & 3), whose loop header runs tcsWork × depth + 1
// times, then exits. WARPTRACE_SKIP_GPU_TESTS=1 skips.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MARK_KIND_SHIFT, MARK_STAGE, MAX_MARKS, MarkKind, MarkWord } from '../../shared-schema/mark-layout.js';
import { PackedIds, RecordFlag, RecordWord } from '../../shared-schema/raw-layout.js';
import { Stage } from '../../shared-schema/stages.js';
import { WTRAW_SECTION_ALIGN, WtrawHeaderWord } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';
import { patchIterations } from './aqt-model.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-marks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const GRID = 8;
/** The irregular draw's patches: grid × max(2, grid / 4) (workloads.cpp AqtFrame); its draw id is 0. */
const PATCHES = GRID * Math.max(2, GRID / 4);
const HEAD = MarkKind.LOOP_HEAD << MARK_KIND_SHIFT;
const EXIT = MarkKind.LOOP_EXIT << MARK_KIND_SHIFT;

/** The raw dump's records, 8 words each (header, metadata and timestamps skipped as the header says). */
function rawRecords(path: string): Uint32Array[] {
  const raw = new Uint8Array(readFileSync(path));
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const word = (w: number) => view.getUint32(w * 4, true);
  const padded = (n: number) => Math.ceil(n / WTRAW_SECTION_ALIGN) * WTRAW_SECTION_ALIGN;
  const first = word(WtrawHeaderWord.HEADER_BYTES) + padded(word(WtrawHeaderWord.METADATA_BYTES)) + word(WtrawHeaderWord.TIMESTAMP_COUNT) * 16;
  const records: Uint32Array[] = [];
  for (let r = 0; r < word(WtrawHeaderWord.RECORD_COUNT); r++) records.push(new Uint32Array(Array.from({ length: 8 }, (_, k) => view.getUint32(first + r * 32 + k * 4, true))));
  return records;
}

const stageOf = (r: Uint32Array) => (r[RecordWord.PACKED_IDS]! >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
const smSlot = (r: Uint32Array) => r[RecordWord.PACKED_IDS]! & 0xffffff;
const flagsOf = (r: Uint32Array) => r[RecordWord.PACKED_IDS]! >>> PackedIds.FLAGS_SHIFT;

/** The record's live lanes (word 3 holds a position, not lanes 32..63, under RecordFlag.POSITION). */
function lanes(r: Uint32Array): number {
  const bits = (v: number) => v.toString(2).replaceAll('0', '').length;
  return bits(r[RecordWord.ACTIVE_MASK_LO]!) + ((flagsOf(r) & RecordFlag.POSITION) === 0 ? bits(r[RecordWord.ACTIVE_MASK_HI]!) : 0);
}

interface Group {
  readonly warps: Uint32Array[];
  readonly marks: Uint32Array[];
}

/** Marks and warp records by (draw, SM and slot, start clock): the invocations a mark may belong to. */
function capture(tcsWork: number): Map<string, Group> {
  const raw = join(dir, `aqt-${tcsWork}.wtraw`);
  const args = ['capture', '--workload', 'aqt', '--marks', 'loops', '--param', `grid=${GRID}`, '--param', `tcsWork=${tcsWork}`, '--param', 'shading=0', '--param', 'tesWork=0'];
  const run = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args, '--overhead-frames', '0', '-o', join(dir, `aqt-${tcsWork}.wtrace`), '--raw', raw], { encoding: 'utf8', timeout: 600_000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const groups = new Map<string, Group>();
  const group = (draw: number, ids: number, start: number) => {
    const key = `${draw}/${ids}/${start}`;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { warps: [], marks: [] }));
    return g;
  };
  for (const r of rawRecords(raw)) {
    if (stageOf(r) === MARK_STAGE) group(r[MarkWord.DRAW_ID]!, smSlot(r), r[MarkWord.WARP_START]!).marks.push(r);
    else group(r[RecordWord.DRAW_ID]!, smSlot(r), r[RecordWord.CLOCK_START]!).warps.push(r);
  }
  return groups;
}

/** Per sequence number, how many marks of each id: the marks of k invocations sharing a start clock, pooled. */
function bySequence(marks: readonly Uint32Array[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of marks) {
    const key = `${m[MarkWord.SEQUENCE]}:${m[MarkWord.ID]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The expected pooled counts of `invocations` TCS invocations of these patches, capped at MAX_MARKS each. */
function modelBySequence(patches: readonly number[], tcsWork: number): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const patch of patches) {
    const heads = patchIterations(patch, tcsWork) + 1;
    const ids = [...Array<number>(heads).fill(HEAD), EXIT].slice(0, MAX_MARKS);
    ids.forEach((id, sequence) => add(`${sequence}:${id}`));
  }
  return counts;
}

function checkGroups(groups: Map<string, Group>, tcsWork: number): { tcsInvocations: number; marks: number } {
  let tcsInvocations = 0;
  let marks = 0;
  for (const [key, g] of groups) {
    if (g.marks.length === 0) continue;
    marks += g.marks.length;
    assert.ok(g.warps.length > 0, `marks ${key} name a warp record (draw/SM and slot/start clock)`);
    for (const m of g.marks) {
      // The warp's flags but POSITION (a mark's word 3 holds lanes 32..63).
      assert.ok(g.warps.some((w) => (flagsOf(w) & ~RecordFlag.POSITION) === flagsOf(m)), `marks ${key}: the warp's flags`);
      assert.ok(m[MarkWord.SEQUENCE]! < MAX_MARKS, `marks ${key}: sequence ${m[MarkWord.SEQUENCE]}`);
      assert.ok(m[MarkWord.ID] === HEAD || m[MarkWord.ID] === EXIT || m[MarkWord.ID] === (HEAD | 1) || m[MarkWord.ID] === (EXIT | 1), `marks ${key}: loop ids, not 0x${m[MarkWord.ID]!.toString(16)}`);
      assert.ok(((m[MarkWord.CLOCK]! - m[MarkWord.WARP_START]!) >>> 0) < 2 ** 31, `marks ${key}: the mark's clock follows its warp's start`);
    }
    // k invocations: each sequence number at most k times, and never more often than the one before it.
    const perSequence = Array.from({ length: MAX_MARKS }, (_, s) => g.marks.filter((m) => m[MarkWord.SEQUENCE] === s).length);
    const k = g.warps.reduce((sum, w) => sum + lanes(w), 0);
    perSequence.forEach((n, s) => {
      assert.ok(n <= k, `marks ${key}: ${n} of sequence ${s}`);
      if (s > 0) assert.ok(n <= perSequence[s - 1]!, `marks ${key}: sequences count from 0 (${perSequence.join(',')})`);
    });
    // The irregular draw's TCS: every invocation of the start clock against the CPU model (pooled where clocks coincide).
    const tcs = g.warps.filter((w) => stageOf(w) === Stage.TCS && w[RecordWord.DRAW_ID] === 0);
    if (tcs.length === 0 || tcs.length !== g.warps.length) continue;
    const perInvocation = tcs.every((w) => (flagsOf(w) & RecordFlag.PER_INVOCATION) !== 0);
    if (!perInvocation) continue;
    tcsInvocations += tcs.length;
    const patches = tcs.map((w) => w[RecordWord.CUSTOM_ID]!);
    assert.deepEqual(bySequence(g.marks), modelBySequence(patches, tcsWork), `TCS marks at start ${key} (patches ${patches.join(',')})`);
    if (tcs.length === 1) {
      const ordered = [...g.marks].sort((a, b) => a[MarkWord.SEQUENCE]! - b[MarkWord.SEQUENCE]!);
      const offsets = ordered.map((m) => (m[MarkWord.CLOCK]! - m[MarkWord.WARP_START]!) >>> 0);
      assert.deepEqual(offsets, [...offsets].sort((a, b) => a - b), `TCS marks at ${key}: clocks in sequence order`);
    }
  }
  return { tcsInvocations, marks };
}

test('aqt --marks loops: marks name their warps; the irregular TCS loop heads and exits follow the CPU model (under the bound)', { skip }, () => {
  const tcsWork = 2;
  const { tcsInvocations, marks } = checkGroups(capture(tcsWork), tcsWork);
  // Where the device has no subgroup operations in TCS (lavapipe), every invocation of the draw (32 a patch) is checked.
  assert.ok(marks > 0);
  assert.ok(tcsInvocations === 0 || tcsInvocations === PATCHES * 32, `${tcsInvocations} TCS invocations checked`);
});

test('aqt --marks loops: a loop of more than 16 iterations stops at 16 marks per invocation, all heads', { skip }, () => {
  const tcsWork = 48;
  const { tcsInvocations } = checkGroups(capture(tcsWork), tcsWork);
  assert.ok(tcsInvocations === 0 || tcsInvocations === PATCHES * 32, `${tcsInvocations} TCS invocations checked`);
});
