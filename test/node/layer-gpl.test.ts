// The capture layer on graphics pipeline libraries (VK_EXT_graphics_pipeline_library, as
// DXVK and vkd3d-proton build every pipeline) and on shaders passed inline (no shader
// module), on our own harness as an ordinary app (CI: lavapipe). `wt-capture-vk --app
// --libraries` builds each graphics pipeline from four library parts (vertex input,
// pre-rasterization, fragment shader, fragment output) and links them; the layer must
// trace the linked pipelines' draws with nothing skipped, record the same warps (draw,
// stage, custom id, mask, position) as for the same frame built from complete pipelines,
// and leave the frame's image byte-identical to an untraced run's.
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES, decodeWtraw, type Trace } from '../../shared-schema/index.js';
import { prepareHarnessApp, runWithLayer, type HarnessApp, type Run } from './harness-app.js';
import { repoPath } from './paths.js';
import { signatureDifferences, sortedEntries, warpSignature } from './warp-signature.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-gpl-'));
/** Hard limit on one run: a hang fails the test. */
const RUN_LIMIT_MS = 120_000;
/** `--app` submits: 0 sets up, 1 + i is frame i. The traced submit is the last frame, whose image --image writes. */
const FRAMES = 2;
const SUBMIT = 2;

const WORKLOADS: readonly { workload: string; params: readonly (readonly [string, number])[] }[] = [
  // Pre-rasterization libraries with tessellation (VS, TCS, TES) and a fragment library.
  { workload: 'aqt', params: [['width', 320], ['height', 180], ['grid', 8], ['tess', 4]] },
  // Eight draws of one linked pipeline (VS, FS).
  { workload: 'syncs', params: [['width', 320], ['height', 180]] },
];

const VARIANTS: readonly { name: string; flags: readonly string[] }[] = [
  { name: 'linked pipeline libraries', flags: ['--libraries'] },
  { name: 'link-time-optimized libraries with inline shaders', flags: ['--libraries', '--link-time-optimization', '--inline-shaders'] },
  { name: 'libraries with independent-set layouts (the fragment library\'s set 0 null)', flags: ['--libraries', '--independent-sets'] },
  { name: 'complete pipelines with inline shaders', flags: ['--inline-shaders'] },
];

let setup: HarnessApp | null = null;
before(async () => {
  if (skip) return;
  setup = await prepareHarnessApp();
});

after(() => rmSync(dir, { recursive: true, force: true }));

function run(command: string, args: readonly string[]): Promise<Run> {
  return runWithLayer(command, args, { dir, layerDir: setup?.layerDir ?? '', limitMs: RUN_LIMIT_MS });
}

const describe = (what: string, r: Run) => `${what}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;

function appArgs(workload: string, params: readonly (readonly [string, number])[], flags: readonly string[], image: string): string[] {
  assert.ok(setup !== null);
  return ['--app', '--workload', workload, '--plain-shaders', setup.plain, '--frames', String(FRAMES), ...params.flatMap(([k, v]) => ['--param', `${k}=${v}`]), ...flags, '--image', image];
}

/** The app through `warptrace capture --submits`: its trace and the image of the traced frame. */
async function traced(label: string, workload: string, params: readonly (readonly [string, number])[], flags: readonly string[]): Promise<{ trace: Trace; image: Buffer }> {
  assert.ok(setup !== null);
  const image = join(dir, `${label}-traced.ppm`);
  const raw = join(dir, `${label}.wtraw`);
  const args = [bin, 'capture', '--submits', `${SUBMIT}..${SUBMIT}`, '--overhead-runs', '0', '-o', join(dir, `${label}.wtrace`), '--raw', raw, '--timeout', '100', '--', setup.binary, ...appArgs(workload, params, flags, image)];
  const r = await run(process.execPath, args);
  assert.equal(r.code, 0, describe(`warptrace ${args.slice(1).join(' ')}`, r));
  assert.ok(existsSync(raw) && existsSync(image), describe('the capture wrote no trace or image', r));
  return { trace: decodeWtraw(new Uint8Array(readFileSync(raw))), image: readFileSync(image) };
}

/** The same app run alone (no layer): its last frame's image. */
async function untracedImage(label: string, workload: string, params: readonly (readonly [string, number])[], flags: readonly string[]): Promise<Buffer> {
  assert.ok(setup !== null);
  const image = join(dir, `${label}-untraced.ppm`);
  const r = await run(setup.binary, appArgs(workload, params, flags, image));
  assert.equal(r.code, 0, describe('the untraced app', r));
  return readFileSync(image);
}

const stageNames = (trace: Trace) => new Set<string>(Array.from(trace.warps.stage, (s) => STAGES[s]?.name ?? `stage ${s}`));

for (const { workload, params } of WORKLOADS) {
  // The frame built from complete pipelines and shader modules: what every variant must record.
  let reference: Promise<Trace> | null = null;
  const referenceTrace = () => (reference ??= traced(`${workload}-complete`, workload, params, []).then((r) => r.trace));

  for (const { name, flags } of VARIANTS) {
    test(`${workload}, ${name}: traced, nothing skipped, the complete pipelines' warps, the untraced image`, { skip }, async (t) => {
      const label = `${workload}-${flags.join('').replace(/-+/g, '-')}`;
      const { trace, image } = await traced(label, workload, params, flags);
      const layer = trace.capture.layer;
      assert.ok(layer !== null, 'the trace carries the layer record');
      assert.deepEqual(layer.skipped, [], `layer skipped: ${JSON.stringify(layer.skipped)}`);
      assert.equal(trace.capture.recordsWritten, trace.capture.recordsKept, 'nothing dropped');
      for (const stage of ['VS', 'FS']) assert.ok(stageNames(trace).has(stage), `${stage} warps: ${[...stageNames(trace)].join(', ')}`);
      // Every draw ran a pipeline the layer knows (the linked one: libraries are never bound).
      assert.ok(trace.draws.length > 0 && trace.draws.every((d) => d.pipeline !== null && /^0x[0-9a-f]+$/.test(d.pipeline)), JSON.stringify(trace.draws.map((d) => d.pipeline)));

      const complete = await referenceTrace();
      assert.deepEqual(trace.draws.map((d) => [d.kind, d.call, d.label]), complete.draws.map((d) => [d.kind, d.call, d.label]), 'the same draws');
      const a = warpSignature(complete);
      const b = warpSignature(trace);
      assert.deepEqual(sortedEntries(b.perDrawStage), sortedEntries(a.perDrawStage), `warps per draw and stage: ${signatureDifferences(a.perDrawStage, b.perDrawStage, ['complete', name])}`);
      assert.deepEqual(sortedEntries(b.warps), sortedEntries(a.warps), `(draw, stage, custom id, mask, position): ${signatureDifferences(a.warps, b.warps, ['complete', name])}`);

      const plain = await untracedImage(label, workload, params, flags);
      assert.ok(plain.length > 100 && image.equals(plain), `the traced frame's image (${image.length} bytes) is byte-identical to the untraced run's (${plain.length} bytes)`);
      t.diagnostic(`${trace.draws.length} draws, ${trace.warps.count} warps (${sortedEntries(b.perDrawStage).map(([k, n]) => `${k}: ${n}`).join(', ')})`);
    });
  }
}
