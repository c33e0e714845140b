// The screen position of a warp (position.ts) and its draw's render target
// in the model and the .wtrace / JSON formats: packing, the synthetic
// screen layout, chunked encoding, and traces without positions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_POSITION_COORD,
  NO_POSITION,
  Stage,
  buildTrace,
  decodeWtrace,
  encodeWtrace,
  makeRandom,
  packPosition,
  synthesizeTrace,
  traceFromJson,
  traceToJson,
  unpackPosition,
  type Trace,
} from '../../shared-schema/index.js';
import { readFileSync, readdirSync } from 'node:fs';
import { decodeTrace } from '../../shared-schema/index.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';
import { repoPath } from './paths.js';
import { chunkHeads, encodeColumnsChunk } from '../../shared-schema/column-chunks.js';
import { FILE_START } from '../../shared-schema/warp-encoder.js';
import { shapeOfTrace, wtraceFile } from '../../shared-schema/wtrace-writer.js';

test('a position word holds the lanes\' bounding box, rounded up to powers of two, or NO_POSITION', () => {
  const random = makeRandom(15);
  for (let k = 0; k < 2000; k++) {
    const x = Math.floor(random() * 9000);
    const y = Math.floor(random() * 9000);
    const w = 1 + Math.floor(random() * 200);
    const h = 1 + Math.floor(random() * 200);
    const word = packPosition(x, y, x + w - 1, y + h - 1);
    if (x > MAX_POSITION_COORD || y > MAX_POSITION_COORD) {
      assert.equal(word, NO_POSITION, `${x},${y} lies past the largest target`);
      continue;
    }
    const f = unpackPosition(word)!;
    assert.deepEqual([f.x, f.y], [x, y]);
    // Covers every lane up to 128 px, at most twice the span.
    assert.ok(f.width >= Math.min(w, 128) && f.width < 2 * Math.min(w, 128) + 1 && f.width <= 128, `width ${f.width} for span ${w}`);
    assert.ok(f.height >= Math.min(h, 128) && f.height < 2 * Math.min(h, 128) + 1 && f.height <= 128, `height ${f.height} for span ${h}`);
  }
  assert.deepEqual(unpackPosition(packPosition(0, 0, 1, 1)), { x: 0, y: 0, width: 2, height: 2 });
  assert.equal(unpackPosition(NO_POSITION), null);
});

const screen = synthesizeTrace({ warps: 20_000, seed: 3, warpsPerDraw: 400, positions: true });

test('synthetic fragment warps tile their draw\'s rectangle inside its target; other warps have no position', () => {
  const w = screen.warps;
  assert.ok(w.position !== null);
  const seen = new Map<number, Set<string>>();
  let fragments = 0;
  for (let i = 0; i < w.count; i++) {
    const word = w.position[i] as number;
    const draw = screen.draws[w.draw[i] as number]!;
    if (w.stage[i] !== Stage.FS) {
      assert.equal(word, NO_POSITION, `row ${i}: a ${w.stage[i]} warp has no position`);
      continue;
    }
    fragments++;
    const f = unpackPosition(word)!;
    assert.ok(draw.target !== null, `draw ${draw.index} of a fragment warp has a target`);
    assert.deepEqual([f.width, f.height], [8, 4], 'eight 2x2 quads');
    assert.ok(f.x + f.width <= draw.target.width && f.y + f.height <= draw.target.height, `row ${i} inside the target`);
    const key = `${f.x},${f.y}`;
    const tiles = seen.get(draw.index) ?? new Set<string>();
    assert.ok(!tiles.has(key), `draw ${draw.index}: two warps at ${key}`);
    seen.set(draw.index, tiles.add(key));
  }
  assert.ok(fragments > 1000, `${fragments} fragment warps`);
  for (const d of screen.draws) assert.equal(d.target !== null, d.kind === 'draw', `draw ${d.index}: targets on graphics draws only`);
});

function assertSameScreen(a: Trace, b: Trace, what: string): void {
  assert.deepEqual(b.draws, a.draws, `${what}: draws`);
  assert.deepEqual(b.warps.position === null ? null : Array.from(b.warps.position), a.warps.position === null ? null : Array.from(a.warps.position), `${what}: positions`);
}

test('positions and targets round-trip through .wtrace, JSON and the streaming JSON writer', () => {
  assertSameScreen(screen, decodeWtrace(encodeWtrace(screen)), '.wtrace');
  assertSameScreen(screen, traceFromJson(JSON.stringify(traceToJson(screen))), 'JSON');
  const streamed = Buffer.concat([...traceJsonChunks(screen, 4096)]).toString('utf8');
  assert.equal(streamed, JSON.stringify(traceToJson(screen)), 'the streaming writer writes the same text');
  const json = traceToJson(screen) as { warps: { position: (number | null)[] }; draws: { target?: unknown }[] };
  assert.ok(json.warps.position.includes(null), 'warps without a position are null in JSON');
  assert.deepEqual(json.draws.find((d) => d.target !== undefined)?.target, { width: 1280, height: 720 });
});

test('positions encoded in chunks split anywhere join into the bytes of one chunk', () => {
  const shape = shapeOfTrace(screen);
  const whole = encodeWtrace(screen);
  const random = makeRandom(77);
  for (let k = 0; k < 20; k++) {
    const cuts = [0, ...Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * screen.warps.count)).sort((a, b) => a - b), screen.warps.count];
    const chunks = cuts.slice(1).map((end, j) => encodeColumnsChunk(screen.warps, cuts[j]!, end, shape.chunk, cuts[j] === 0 ? FILE_START : null));
    assert.equal(chunkHeads(chunks, shape.chunk).length, chunks.length);
    assert.deepEqual(wtraceFile(shape, chunks), whole, `cuts ${cuts.join(',')}`);
  }
});

test('a trace without positions writes no position column and reads back null; position bytes per warp measured', () => {
  const plain = synthesizeTrace({ warps: 20_000, seed: 3, warpsPerDraw: 400 });
  assert.equal(plain.warps.position, null);
  assert.ok(plain.draws.every((d) => d.target === null));
  const bytes = encodeWtrace(plain);
  assert.equal(Buffer.from(bytes).includes(Buffer.from('position')), false);
  assert.equal(Buffer.from(bytes).includes(Buffer.from('target')), false);
  assert.equal(decodeWtrace(bytes).warps.position, null);
  // Same warps, same times: what the positions cost.
  const withPositions = encodeWtrace(screen);
  const fragments = screen.warps.stage.filter((s) => s === Stage.FS).length;
  const extra = withPositions.length - bytes.length;
  const others = screen.warps.count - fragments;
  console.log(`position column: ${(extra / screen.warps.count).toFixed(2)} B/warp over all warps; ${((extra - others) / fragments).toFixed(2)} B per fragment warp, 1 B per other warp`);
  // An input of only NO_POSITION is the model's "none".
  const none = buildTrace({
    device: plain.device,
    capture: plain.capture,
    draws: plain.draws,
    warps: { ...columnsOf(plain), position: new Uint32Array(plain.warps.count).fill(NO_POSITION) },
  });
  assert.equal(none.warps.position, null);
});

/** Samples captured with positions (the ray-tracing and meshlet workloads, those with block profiles): they have them, and targets. */
const SAMPLES_WITH_POSITIONS = new Set(['h100-aqt-positions', 'h100-ray-tracing', 'h100-meshlets', 'h200-ray-tracing-reorder', 'h100-aqt-blocks', 'h100-raytracingreflections-blocks', 'h100-ray-tracing-marks', 'h200-ray-tracing-rays', 'h200-ray-tracing-rays-fence-behind', 'h200-ray-tracing-hit-positions', 'h200-aqt-pixel-id', 'h200-aqt-sampled-8', 'h200-aqt-sampled-64']);
/** Captured since every ray-tracing stage records positions by default: its hit, miss and intersection warps have them too. */
const SAMPLES_WITH_HIT_POSITIONS = new Set(['h200-ray-tracing-hit-positions']);
const HIT_STAGES: ReadonlySet<number> = new Set([Stage.ANY_HIT, Stage.CLOSEST_HIT, Stage.MISS, Stage.INTERSECTION, Stage.CALLABLE]);

test('samples captured with positions have them on every ray-generation and fragment warp, and their draws have targets', () => {
  for (const folder of ['samples', 'samples/raw']) {
    for (const name of readdirSync(repoPath(folder)).filter((f) => SAMPLES_WITH_POSITIONS.has(f.replace(/\.wtr(ace|aw)$/, '')))) {
      const trace = decodeTrace(new Uint8Array(readFileSync(repoPath(`${folder}/${name}`))));
      assert.ok(trace.warps.position !== null, `${name}: positions`);
      for (let i = 0; i < trace.warps.count; i++) {
        const st = trace.warps.stage[i]!;
        const positioned = st === Stage.FS || st === Stage.RAYGEN || st === Stage.RAYGEN_REORDERED || (HIT_STAGES.has(st) && SAMPLES_WITH_HIT_POSITIONS.has(name.replace(/\.wtr(ace|aw)$/, '')));
        assert.equal(trace.warps.position[i] !== NO_POSITION, positioned, `${name}: warp ${i} (stage ${trace.warps.stage[i]})`);
      }
      // The ray-event samples are launches of 320 x 180 (`--param width=320 height=180`); the others the workloads' 1280 x 720.
      const [width, height] = name.includes('-rays') ? [320, 180] : [1280, 720];
      assert.ok(trace.draws.every((d) => d.target !== null && d.target.width === width && d.target.height === height), `${name}: targets`);
    }
  }
});

test('files written before positions (samples, their raw dumps, older files) decode without positions or targets and re-encode to their bytes', () => {
  let files = 0;
  for (const folder of ['samples', 'samples/raw', 'test/node/older-files']) {
    const before = (f: string) => !SAMPLES_WITH_POSITIONS.has(f.replace(/\.wtr(ace|aw)$/, ''));
    for (const name of readdirSync(repoPath(folder)).filter((f) => (f.endsWith('.wtrace') || f.endsWith('.wtraw')) && before(f))) {
      const bytes = new Uint8Array(readFileSync(repoPath(`${folder}/${name}`)));
      const trace = decodeTrace(bytes);
      assert.ok(trace.warps.count > 0, name);
      assert.equal(trace.warps.position, null, `${name}: no positions`);
      assert.ok(trace.draws.every((d) => d.target === null), `${name}: no targets`);
      if (name.endsWith('.wtrace')) assert.equal(Buffer.compare(Buffer.from(encodeWtrace(trace)), Buffer.from(bytes)), 0, `${name}: the same bytes`);
      files++;
    }
  }
  assert.ok(files >= 10, `${files} files`);
});

function columnsOf(t: Trace) {
  const w = t.warps;
  const sm = new Uint16Array(w.count);
  for (let g = 0; g < w.smGroups.sm.length; g++) sm.fill(w.smGroups.sm[g]!, w.smGroups.offsets[g], w.smGroups.offsets[g + 1]);
  return {
    startNs: w.startNs,
    endNs: Float64Array.from(w.startNs, (s, i) => s + w.durationNs[i]!),
    sm,
    warpSlot: w.warpSlot,
    stage: w.stage,
    draw: w.draw,
    customId: w.customId,
    activeMask: w.activeMask,
  };
}
