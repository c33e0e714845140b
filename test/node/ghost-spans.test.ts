// The ghost track's baseline spans: taken from the lane index the decode worker built
// (rememberDrawSpans) instead of a scan of the baseline's warps, with the same result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeWtrace, encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import { buildGhostTrack, rememberDrawSpans } from '../../viewer/model/ghost-track.js';
import { buildLaneIndex } from '../../viewer/model/lane-index.js';

test('a baseline whose lane index was remembered gives the same ghost track as one whose warps are scanned', () => {
  const bytes = encodeWtrace(synthesizeTrace({ warps: 120_000, seed: 5, drawsPerPass: 12 }));
  const current = synthesizeTrace({ warps: 110_000, seed: 6, drawsPerPass: 12 });
  const currentFirstNs = buildLaneIndex(current).startNs;
  // Two copies of one baseline: one scanned, one remembered from its index.
  const scanned = decodeWtrace(bytes);
  const remembered = decodeWtrace(bytes);
  const index = buildLaneIndex(remembered);
  rememberDrawSpans(remembered, index.drawSpans);
  const a = buildGhostTrack(current, currentFirstNs, scanned);
  const b = buildGhostTrack(current, currentFirstNs, remembered);
  assert.ok(a.baselineDraw.some((d) => d >= 0), 'draws were paired');
  assert.notEqual(a.offsetNs, 0, 'the two traces start at different times (the offset is exercised)');
  assert.equal(b.offsetNs, a.offsetNs, 'same time offset');
  assert.deepEqual(b.spans, a.spans, 'same ghost spans');
  assert.deepEqual(b.onlyBaselineSpans, a.onlyBaselineSpans, 'same spans of baseline-only draws');
});

test('spans of another trace (a draw count that does not fit) are not remembered', () => {
  const trace = synthesizeTrace({ warps: 20_000, seed: 7 });
  const other = buildLaneIndex(synthesizeTrace({ warps: 40_000, seed: 8 }));
  rememberDrawSpans(trace, other.drawSpans);
  const current = synthesizeTrace({ warps: 20_000, seed: 9 });
  const fresh = decodeWtrace(encodeWtrace(trace));
  assert.deepEqual(buildGhostTrack(current, 0, trace).spans, buildGhostTrack(current, 0, fresh).spans, 'the scan is used, not the misfit spans');
});
