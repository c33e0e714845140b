// Warp sampling in the GLSL library (capture/shaders/warptrace_sampling.glsl), on lavapipe: the
// harness's `--sample CS=8` writes the draw's rates (the host header's wtSetSampling), and the
// library's compute warps decide in wtBegin on their workgroup and subgroup. The warps recorded
// must be exactly the ones shared-schema's warpSampled predicts: the shader hashes with lowbias32
// less its last step (it reads the top bits only), the CPU with the whole of it, and the two must
// agree. The instrumenter's side of the same contract is spirv-sample-run.test.ts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { warpSampled, workgroupKey } from '../../shared-schema/sample-layout.js';
import { decodeWtraw, Stage, type Trace } from '../../shared-schema/index.js';
import { TRACED, compileShaderSet } from '../../capture/capture-run/shaders.js';
import { runCapture } from '../../capture/capture-run/harness.js';
import { plainHarness, type PlainHarness } from './plain-harness.js';
import { workDir } from './spirv-tools.js';
import { computeWarpKeys } from './compute-warp-keys.js';

const PARAMS = [['width', 320], ['height', 180], ['groups', 100]] as const;
let harness: PlainHarness | null = null;
let unavailable = '';
let tracedShaders = '';
before(async () => {
  ({ harness, unavailable } = await plainHarness());
  // Compute warps record their gl_GlobalInvocationID box too: its x gives the subgroup within the workgroup.
  if (harness !== null) tracedShaders = await compileShaderSet(harness.device, { ...TRACED, extraDefines: ['-DWT_POSITION_COMPUTE=1'] });
});

async function capture(name: string, sample: readonly (readonly [string, number])[]): Promise<Trace> {
  const out = join(workDir, `glsl-sample-${name}.wtraw`);
  const report = await runCapture(harness!.binary, { workload: 'compute-graphics', tracedShaders, plainShaders: null, out, params: PARAMS, overheadFrames: 0, sample });
  assert.equal(report.counter, report.records, `${name}: nothing dropped`);
  return decodeWtraw(new Uint8Array(readFileSync(out)));
}

test('the GLSL library on lavapipe, --sample CS=8: the compute warps recorded are exactly the ones warpSampled predicts', async (t) => {
  if (harness === null) return t.skip(`no Vulkan device: ${unavailable}`);
  const every = computeWarpKeys(await capture('cs-all', []));
  assert.equal(new Set(every).size, every.length, 'one warp per (draw, workgroup, subgroup)');
  assert.ok(every.length >= 1000, `${every.length} CS warps`);
  const predicted = every.filter((key) => {
    const [draw, workgroup, subgroup] = key.split(' ').map(Number) as [number, number, number];
    return warpSampled(workgroupKey(workgroup, subgroup), draw, Stage.CS, 3);
  });
  const recorded = computeWarpKeys(await capture('cs-8', [['CS', 8]]));
  assert.deepEqual(recorded, predicted, 'the recorded CS warps are exactly the predicted ones');
  // A binomial count at 1/8, within 5 standard deviations.
  assert.ok(Math.abs(predicted.length - every.length / 8) <= 5 * Math.sqrt((every.length * 7) / 64), `${predicted.length} of ${every.length}`);
  t.diagnostic(`CS ${predicted.length} of ${every.length} warps recorded, each the predicted one`);
});
