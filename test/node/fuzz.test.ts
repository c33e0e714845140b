// Untrusted input: mutated and truncated files must give either a clean
// TraceFormatError or a valid trace — never another exception, never a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  H100_CLOCKS,
  TraceFormatError,
  decodeTrace,
  decodeWtrace,
  encodeWtrace,
  encodeWtraw,
  makeRandom,
  rawCaptureOf,
  synthesizeTrace,
  traceFromJson,
  traceToJson,
} from '../../shared-schema/index.js';
import { checkInvariants, traceWithRowIds, withPassHierarchy } from './fixtures.js';

const CASES_PER_FORMAT = 4000;

type Mutation = (bytes: Uint8Array, random: () => number) => Uint8Array;

const pick = (random: () => number, n: number) => Math.floor(random() * n);

const mutations: Mutation[] = [
  // Truncate anywhere.
  (b, r) => b.slice(0, pick(r, b.length)),
  // Flip a few random bytes.
  (b, r) => {
    const out = b.slice();
    for (let k = 1 + pick(r, 8); k > 0; k--) out[pick(r, out.length)] = pick(r, 256);
    return out;
  },
  // Overwrite an aligned u32 with an extreme value (sizes, counts, lengths).
  (b, r) => {
    const out = b.slice();
    const at = pick(r, Math.max(1, out.length >> 2)) * 4;
    const extremes = [0, 1, 0x7fffffff, 0xffffffff, 0x80000000, out.length, pick(r, 2 ** 32)];
    if (at + 4 <= out.length) new DataView(out.buffer).setUint32(at, extremes[pick(r, extremes.length)]!, true);
    return out;
  },
  // Delete or duplicate a span, shifting everything after it.
  (b, r) => {
    const at = pick(r, b.length);
    const len = 1 + pick(r, 64);
    if (r() < 0.5) return Uint8Array.from([...b.subarray(0, at), ...b.subarray(at + len)]);
    return Uint8Array.from([...b.subarray(0, at + len), ...b.subarray(at)]);
  },
  // Flip bits in the first 256 bytes, where headers and lengths live.
  (b, r) => {
    const out = b.slice();
    const at = pick(r, Math.min(256, out.length));
    out[at] = (out[at] as number) ^ (1 << pick(r, 8));
    return out;
  },
];

function fuzz(name: string, valid: Uint8Array, seed: number, cases = CASES_PER_FORMAT): void {
  const random = makeRandom(seed);
  let rejected = 0;
  let accepted = 0;
  for (let c = 0; c < cases; c++) {
    const mutated = mutations[c % mutations.length]!(valid, random);
    let trace;
    try {
      trace = decodeTrace(mutated);
    } catch (error) {
      if (!(error instanceof TraceFormatError)) {
        assert.fail(`${name} case ${c} (seed ${seed}): ${error instanceof Error ? error.stack : String(error)}`);
      }
      assert.ok(error.message.startsWith(`${error.field}: `), 'messages name their field');
      rejected++;
      continue;
    }
    // What a reader accepts, the writers write and the readers read back.
    checkInvariants(trace);
    checkInvariants(decodeWtrace(encodeWtrace(trace)));
    checkInvariants(traceFromJson(JSON.stringify(traceToJson(trace))));
    accepted++;
  }
  assert.equal(rejected + accepted, cases);
  assert.ok(rejected > cases / 2, `${name}: only ${rejected} rejections`);
}

const truth = traceWithRowIds(300, 31);
// The same warps as a capture layer records them: regions, call details, the layer's record.
const layered = withPassHierarchy(truth);

test(`fuzz .wtrace (${CASES_PER_FORMAT} cases)`, { timeout: 120_000 }, () => {
  fuzz('wtrace', encodeWtrace(truth), 101);
});

test(`fuzz .wtrace with regions and call details (${CASES_PER_FORMAT / 4} cases)`, { timeout: 120_000 }, () => {
  fuzz('wtrace', encodeWtrace(layered), 105, CASES_PER_FORMAT / 4);
});

// Fragment warps with screen positions, graphics draws with render targets.
const screen = synthesizeTrace({ warps: 300, seed: 9, warpsPerDraw: 60, positions: true });

test(`fuzz .wtrace with screen positions and targets (${CASES_PER_FORMAT / 4} cases)`, { timeout: 120_000 }, () => {
  assert.ok(screen.warps.position !== null && screen.draws.some((d) => d.target !== null), 'the trace has positions and targets');
  fuzz('wtrace', encodeWtrace(screen), 106, CASES_PER_FORMAT / 4);
});

test(`fuzz JSON with screen positions and targets (${CASES_PER_FORMAT / 4} cases)`, { timeout: 120_000 }, () => {
  fuzz('json', new TextEncoder().encode(JSON.stringify(traceToJson(screen))), 306, CASES_PER_FORMAT / 4);
});

test(`fuzz .wtraw (${CASES_PER_FORMAT} cases)`, { timeout: 120_000 }, () => {
  fuzz('wtraw', encodeWtraw(rawCaptureOf(layered, H100_CLOCKS).raw), 202);
});

test(`fuzz JSON bytes (${CASES_PER_FORMAT} cases)`, { timeout: 120_000 }, () => {
  fuzz('json', new TextEncoder().encode(JSON.stringify(traceToJson(truth))), 303);
});

test('fuzz JSON structure: random values in random places', { timeout: 120_000 }, () => {
  const random = makeRandom(404);
  const weird: unknown[] = [null, -1, 0, 1.5, 2 ** 40, 'x', '0xzz', [], {}, true, NaN, '__proto__', [1, 2], { a: 1 }];
  const base = traceToJson(layered) as Record<string, unknown>;
  let rejected = 0;
  for (let c = 0; c < CASES_PER_FORMAT; c++) {
    const doc = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
    // Walk to a random leaf or container and replace it.
    let node: Record<string, unknown> | unknown[] = doc;
    for (let depth = 0; depth < 4; depth++) {
      const keys = Object.keys(node);
      if (keys.length === 0) break;
      const key = keys[pick(random, keys.length)]!;
      const child = (node as Record<string, unknown>)[key];
      if (depth === 3 || typeof child !== 'object' || child === null || random() < 0.3) {
        (node as Record<string, unknown>)[key] = weird[pick(random, weird.length)];
        break;
      }
      node = child as Record<string, unknown>;
    }
    let trace;
    try {
      trace = decodeTrace(new TextEncoder().encode(JSON.stringify(doc)));
    } catch (error) {
      if (!(error instanceof TraceFormatError)) assert.fail(`json structure case ${c}: ${String(error)}`);
      rejected++;
      continue;
    }
    checkInvariants(trace);
    checkInvariants(decodeWtrace(encodeWtrace(trace)));
    checkInvariants(traceFromJson(JSON.stringify(traceToJson(trace))));
  }
  assert.ok(rejected > 0);
});
