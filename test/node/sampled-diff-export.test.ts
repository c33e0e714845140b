// A sampled trace compared and exported (issue 25), on real captures cut
// down with the capture's own warp hash: `warptrace diff` names each side's
// rates in its first warning, marks estimates ≈ and withholds what needs
// every warp instead of reporting the sampled side's zeros as changes (the
// same cut trace not marked as sampled would); the Perfetto exports carry the
// sampling in their metadata and a track of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeTrace } from '../../analysis/index.js';
import { diffSummaries } from '../../analysis/diff.js';
import { isEstimated } from '../../analysis/diff-sampling.js';
import { perfettoJsonChunks } from '../../analysis/export/perfetto.js';
import { decodeTrace, describeSampling, encodeWtrace, type Trace } from '../../shared-schema/index.js';
import { decodePerfetto } from './perfetto/decode-perfetto.js';
import { exportProto } from './section-fixtures.js';
import { repoPath } from './paths.js';
import { sampledTrace } from './sampled-trace.js';

const load = (name: string): Trace | null => {
  const path = repoPath('samples', `${name}.wtrace`);
  return existsSync(path) ? decodeTrace(new Uint8Array(readFileSync(path))) : null;
};
const tess = load('h100-tess-stall');
const positions = load('h100-aqt-positions');
const skipTess = tess === null ? 'samples/h100-tess-stall.wtrace not present' : false;
const skipPositions = positions === null ? 'samples/h100-aqt-positions.wtrace not present' : false;
const SAMPLING_PID = 70003;

function cli(...args: string[]): { out: string; err: string } {
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { out: r.stdout, err: r.stderr };
}

function written(trace: Trace, name: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'wt-sampled-diff-')), name);
  writeFileSync(path, encodeWtrace(trace));
  return path;
}

test('diff of h100-tess-stall full against FS 1 in 8: the sampled side is named, its syncs and stalls are withheld, not changes', { skip: skipTess }, () => {
  const full = analyzeTrace(tess!);
  assert.ok(full.syncs.count > 0 && full.stalls.count > 0, 'the full trace has a sync and stalls');
  const cut = sampledTrace(tess!, { FS: 8 });
  const d = diffSummaries(full, analyzeTrace(cut));
  assert.match(d.warnings[0]!, /^Sampled comparison: A all warps \(full trace\), B FS 1 in 8\./);
  assert.deepEqual(d.sampling?.b, { FS: 8 });
  assert.deepEqual(d.sampling?.a, {});
  for (const x of [d.syncs.count, d.syncs.totalNs, d.idle.totalNs, d.leftovers.count, d.stalls.count, d.stalls.totalNs, d.frame.gpuBusyNs, d.frame.drawBusyNs]) {
    assert.equal(x.b, null);
    assert.equal(x.delta, null);
  }
  assert.equal(d.syncs.count.a, full.syncs.count, "A's own figure stays");
  assert.ok(!d.highlights.some((h) => /syncs|Stalled|idle/.test(h)), d.highlights.join('\n'));
  assert.ok(isEstimated(d.sampling, 'b', ['FS']) && !isEstimated(d.sampling, 'a', ['FS']) && !isEstimated(d.sampling, 'b', ['TES']));
  // The same warps not marked as sampled: the diff reports a change of stalled time that only the missing warps made.
  const naive = diffSummaries(full, analyzeTrace({ ...cut, capture: { ...cut.capture, sampling: null } }));
  assert.equal(naive.sampling, undefined);
  assert.ok(naive.stalls.totalNs.delta !== 0 && naive.highlights.some((h) => h.startsWith('Stalled time')), 'what the rule prevents');
});

test('diff of two rates (FS 1 in 8 against TES 1 in 4, FS 1 in 64) names both; a full pair has no sampling', { skip: skipPositions }, () => {
  const a = analyzeTrace(sampledTrace(positions!, { FS: 8 }));
  const b = analyzeTrace(sampledTrace(positions!, { TES: 4, FS: 64 }, { chosenBy: 'budget', budget: 1.1 }));
  const d = diffSummaries(a, b);
  assert.match(d.warnings[0]!, /^Sampled comparison: A FS 1 in 8, B TES 1 in 4, FS 1 in 64\./);
  assert.equal(d.sampling?.describeB, 'TES 1 in 4, FS 1 in 64, other stages all (chosen by --budget 1.10)');
  assert.ok(isEstimated(d.sampling, 'b', ['TES']) && !isEstimated(d.sampling, 'a', ['TES']));
  assert.equal(d.frame.spanNs.noise?.verdict, 'untested', 'a span of recorded warps has no standard error');
  assert.ok(!d.highlights.some((h) => h.startsWith('Frame span')), 'so it is no finding');
  const plain = diffSummaries(analyzeTrace(positions!), analyzeTrace(positions!));
  assert.equal(plain.sampling, undefined);
  assert.ok(!('sampling' in plain));
  assert.ok(!plain.warnings.some((w) => w.includes('Sampled')));
});

test('warptrace diff (Markdown and JSON): the rates above the tables, ≈ on estimates, "withheld" where the sampled side has nothing', { skip: skipTess }, () => {
  const fullPath = written(tess!, 'full.wtrace');
  const cutPath = written(sampledTrace(tess!, { FS: 8 }), 'fs8.wtrace');
  const { out, err } = cli('diff', fullPath, cutPath);
  const warning = out.indexOf('> **Warning:** Sampled comparison: A all warps (full trace), B FS 1 in 8.');
  assert.ok(warning > 0 && warning < out.indexOf('## Frame'), 'the warning comes before the tables');
  assert.match(out, /fs8\.wtrace\*\*: .* warps recorded \(sampled: FS 1 in 8, other stages all \(chosen by --sample\)\)/);
  assert.match(out, /^\| Syncs \| 1 \| withheld \| – \|$/m);
  assert.match(out, /^\| Stalls \| \d+ \| withheld \| – \|$/m);
  assert.match(out, /^\| FS \| [\d,]+ → ≈ [\d,]+ \| .* \| ≈ [−+±][\d.]+% ± [\d.]+%( \(within sampling noise\))? \|/m);
  assert.match(out, /^\| TES \| [\d,]+ → [\d,]+ \|/m, 'an unsampled stage is exact');
  assert.match(err, /^warning: Sampled comparison: /m);
  const json = JSON.parse(cli('diff', fullPath, cutPath, '--format', 'json').out) as { sampling?: { b: Record<string, number>; withheld: { what: string }[] }; syncs: { count: { b: number | null } } };
  assert.deepEqual(json.sampling?.b, { FS: 8 });
  assert.ok(json.sampling!.withheld.some((w) => w.what === 'syncs'));
  assert.equal(json.syncs.count.b, null);
  const plain = cli('diff', fullPath, fullPath).out;
  assert.doesNotMatch(plain, /Sampled|≈|withheld/);
});

test('Perfetto protobuf: a sampled trace has a "Sampled" process with one slice over its warps, the sampling in its annotations', { skip: skipPositions }, () => {
  const cut = sampledTrace(positions!, { FS: 8 });
  const decoded = decodePerfetto(exportProto(cut).bytes);
  const process = [...decoded.tracks.values()].find((t) => t.pid === SAMPLING_PID && t.kind === 'process');
  assert.equal(process?.name, 'Sampled: FS 1 in 8 (SM tracks hold the recorded warps only)');
  const pidOf = (track: number) => decoded.tracks.get(track)?.pid ?? null;
  const marks = decoded.slices.filter((sl) => pidOf(sl.track) === SAMPLING_PID);
  assert.equal(marks.length, 1);
  const mark = marks[0]!;
  assert.equal(mark.name, 'sampled: FS 1 in 8');
  assert.equal(mark.args.get('debug.sampled'), describeSampling(cut.capture.sampling));
  assert.equal(mark.args.get('debug.every.FS'), 8);
  assert.equal(mark.args.get('debug.chosen_by'), 'flag');
  assert.match(String(mark.args.get('debug.note')), /FS 1 in 8 warps recorded/);
  const warps = decoded.slices.filter((sl) => (pidOf(sl.track) ?? 0) < 70000 && sl.depth === 0);
  assert.equal(warps.length, cut.warps.count, 'the SM tracks hold the recorded warps');
  assert.equal(mark.start, Math.min(...warps.map((sl) => sl.start)));
  assert.equal(mark.end, Math.max(...warps.map((sl) => sl.end)));
  const full = decodePerfetto(exportProto(positions!).bytes);
  assert.ok(![...full.tracks.values()].some((t) => t.pid === SAMPLING_PID), 'a full trace has no sampling track');
});

test('Perfetto JSON (warptrace export --perfetto x.json): otherData says sampled, and the Sampled process holds the mark', { skip: skipPositions }, () => {
  const cut = sampledTrace(positions!, { TES: 4, FS: 64 }, { chosenBy: 'budget', budget: 1.1 });
  const path = written(cut, 'cut.wtrace');
  const out = join(mkdtempSync(join(tmpdir(), 'wt-sampled-json-')), 'cut.json');
  cli('export', path, '--perfetto', out);
  type Event = { ph: string; name: string; pid: number; cat?: string; args: Record<string, unknown> };
  const json = JSON.parse(readFileSync(out, 'utf8')) as { otherData: Record<string, unknown>; traceEvents: Event[] };
  assert.equal(json.otherData['sampled'], 'TES 1 in 4, FS 1 in 64, other stages all (chosen by --budget 1.10)');
  assert.deepEqual(json.otherData['sampling'], { every: { TES: 4, FS: 64 }, chosenBy: 'budget', budget: 1.1 });
  const name = json.traceEvents.find((e) => e.ph === 'M' && e.name === 'process_name' && e.pid === SAMPLING_PID);
  assert.equal(name?.args['name'], 'Sampled: TES 1 in 4, FS 1 in 64 (SM tracks hold the recorded warps only)');
  const mark = json.traceEvents.filter((e) => e.cat === 'sampling');
  assert.equal(mark.length, 1);
  assert.equal(mark[0]!.name, 'sampled: TES 1 in 4, FS 1 in 64');
  assert.equal(mark[0]!.args['budget'], 1.1);
  const plain = JSON.parse([...perfettoJsonChunks(positions!, { summary: null })].join('')) as { otherData: Record<string, unknown>; traceEvents: Event[] };
  assert.ok(!('sampled' in plain.otherData) && !plain.traceEvents.some((e) => e.cat === 'sampling'));
});
