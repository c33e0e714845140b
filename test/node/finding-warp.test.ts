// The warp a finding names (viewer/model/finding-warp.ts), on the H100 and
// lavapipe samples: a stall's long warp, and none for syncs, idle windows and caps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { analyzeTrace } from '../../analysis/analyze.js';
import { decodeTrace, formatNs, parseStageName, smOfWarp, type Trace } from '../../shared-schema/index.js';
import { buildLaneIndex } from '../../viewer/model/lane-index.js';
import { culpritWarp } from '../../viewer/model/finding-warp.js';
import { repoPath } from './paths.js';

const skip = (name: string) => (existsSync(repoPath('samples', `${name}.wtrace`)) ? false : `samples/${name}.wtrace not present`);
const sample = (name: string): Trace => decodeTrace(new Uint8Array(readFileSync(repoPath('samples', `${name}.wtrace`))));

for (const name of ['h100-tess-stall', 'lavapipe-aqt']) {
  test(`${name}: each stall names the warp its text describes`, { skip: skip(name) }, () => {
    const trace = sample(name);
    const index = buildLaneIndex(trace);
    const w = trace.warps;
    const stalls = analyzeTrace(trace).findings.filter((f) => f.kind === 'stall');
    assert.ok(stalls.length > 0);
    for (const f of stalls) {
      const row = culpritWarp(trace, index, f);
      assert.ok(row >= 0, f.id);
      assert.equal(smOfWarp(w.smGroups, row), f.sm, `${f.id}: its SM`);
      assert.equal(w.draw[row], f.draw, `${f.id}: its draw`);
      if (f.stage !== null) assert.equal(w.stage[row], parseStageName(f.stage), `${f.id}: its stage`);
      // "… (custom id N) ran D, …"
      assert.ok(f.detail.includes(`(custom id ${w.customId[row]}) ran ${formatNs(w.durationNs[row]!)},`), `${f.id}: ${f.detail.slice(0, 160)}`);
      // An id that points elsewhere is not trusted: the warp is then looked up by place.
      const other = (row + 1) % w.count;
      const looked = culpritWarp(trace, index, { ...f, id: `stall-${smOfWarp(w.smGroups, other) === f.sm ? w.count : other}` });
      assert.ok(looked >= 0 && smOfWarp(w.smGroups, looked) === f.sm && w.draw[looked] === f.draw, `${f.id}: found by place`);
      assert.ok(w.startNs[looked]! >= f.startNs && w.startNs[looked]! <= f.endNs, `${f.id}: inside the finding's span`);
    }
  });
}

test('h100-syncs and compute-graphics: syncs, idle windows and occupancy caps name no warp', { skip: skip('h100-syncs') || skip('h100-compute-graphics') }, () => {
  for (const name of ['h100-syncs', 'h100-compute-graphics']) {
    const trace = sample(name);
    const index = buildLaneIndex(trace);
    const findings = analyzeTrace(trace).findings;
    assert.ok(findings.length > 0, name);
    for (const f of findings) assert.equal(culpritWarp(trace, index, f), -1, `${name} ${f.id}`);
  }
});

test('a leftover on one SM names its last warp: the one ending at the finding\'s end', { skip: skip('h100-aqt') }, () => {
  const trace = sample('h100-aqt');
  const index = buildLaneIndex(trace);
  const w = trace.warps;
  // The last warp of draw 0 on SM 48, described as a leftover would describe it.
  const lane = index.lanes.find((l) => l.sm === 48)!;
  let last = -1;
  for (let i = lane.rowBegin; i < lane.rowEnd; i++) if (w.draw[i] === 0 && (last < 0 || w.startNs[i]! + w.durationNs[i]! > w.startNs[last]! + w.durationNs[last]!)) last = i;
  const endNs = w.startNs[last]! + w.durationNs[last]!;
  const stage = ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'].find((s) => parseStageName(s) === w.stage[last])!;
  const row = culpritWarp(trace, index, { id: 'leftover-0', kind: 'leftover', startNs: w.startNs[last]! - 100, endNs, sm: 48, draw: 0, stage });
  assert.equal(row, last);
});
