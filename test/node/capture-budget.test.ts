// `warptrace capture --budget B`: the choice of the next run's sampling rates (capture/capture-run/app-budget.ts) on
// the recorded warps of real captures (samples/), checked against the model it states: the excess (ratio − 1) spread
// over the stages by warps × N^(−0.22), each stage's share falling as (N/n)^(−0.22).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STAGES, Stage, decodeWtrace, type StageName, type Trace } from '../../shared-schema/index.js';
import { chooseRates, describeRates, recordedWarpsByStage, type BudgetInput } from '../../capture/capture-run/app-budget.js';
import type { SampleRates } from '../../cli/commands/capture-sample.js';
import { repoPath } from './paths.js';

const load = (name: string): Trace => decodeWtrace(new Uint8Array(readFileSync(repoPath('samples', `${name}.wtrace`))));
const recordedOf = (trace: Trace) => recordedWarpsByStage(trace.warps.stage, trace.warps.count);

/** The H100 AQT capture: FS-dominated (94% of the warps), TES 5.5%, VS and TCS 0.3% each. */
const aqt = recordedOf(load('h100-aqt'));
/** Compute and graphics: CS 24%, FS 75%, VS and GS under 1%. */
const computeGraphics = recordedOf(load('h100-compute-graphics'));

/**
 * The ratio the model predicts at `next` for a run measured at `input` (written out here from the model's statement):
 * above the floor, a stage's part of the excess is proportional to its warps (recorded × N) times N^(−0.22), and
 * falls as (N'/N)^(−0.22).
 */
function modelled(input: BudgetInput, next: SampleRates): number {
  const floor = input.floor ?? 0;
  const weight = (s: (typeof STAGES)[number]) => (input.recorded[s.code] ?? 0) * (input.rates[s.name] ?? 1) * Math.pow(input.rates[s.name] ?? 1, -0.22);
  let total = 0;
  for (const s of STAGES) total += weight(s);
  let ratio = 1 + floor;
  for (const s of STAGES) {
    const part = ((input.ratio - 1 - floor) * weight(s)) / total;
    ratio += part * Math.pow((next[s.name] ?? 1) / (input.rates[s.name] ?? 1), -0.22);
  }
  return ratio;
}

const share = (recorded: ArrayLike<number>, name: StageName) => {
  let total = 0;
  for (const s of STAGES) total += recorded[s.code] ?? 0;
  return (recorded[Stage[name]] ?? 0) / total;
};

test('recordedWarpsByStage counts the trace\'s warps by stage; ray generation after a reorder point counts as ray generation', () => {
  const trace = load('h200-ray-tracing-reorder');
  const counts = recordedOf(trace);
  let reordered = 0;
  let raygen = 0;
  for (let i = 0; i < trace.warps.count; i++) {
    if (trace.warps.stage[i] === Stage.RAYGEN_REORDERED) reordered++;
    if (trace.warps.stage[i] === Stage.RAYGEN) raygen++;
  }
  assert.ok(reordered > 0, 'the sample has reordered ray generation warps');
  assert.equal(counts[Stage.RAYGEN], raygen + reordered);
  assert.equal(counts[Stage.RAYGEN_REORDERED], 0);
  assert.equal(counts.reduce((a, b) => a + b, 0), trace.warps.count);
});

test('an FS-dominated frame (the AQT capture) at 1.52x, budget 1.25: the fragment stage is sampled, the least the model needs', () => {
  assert.ok(share(aqt, 'FS') > 0.9, 'the sample is FS-dominated');
  const input: BudgetInput = { rates: {}, ratio: 1.52, budget: 1.25, recorded: aqt };
  const choice = chooseRates(input);
  assert.equal(choice.raised, true);
  const fs = choice.rates.FS ?? 1;
  assert.ok(fs > 1, `FS sampled: ${describeRates(choice.rates)}`);
  for (const name of Object.keys(choice.rates) as StageName[]) assert.ok((choice.rates[name] ?? 1) <= fs, `FS is the most sampled: ${describeRates(choice.rates)}`);
  assert.ok(Math.abs(choice.predicted - modelled(input, choice.rates)) < 1e-12, 'predicted by the stated model');
  assert.ok(choice.predicted <= 1.25, `within budget by the model: ${choice.predicted}`);
  // The least: undoing any one doubling puts the model over the budget.
  for (const name of Object.keys(choice.rates) as StageName[]) {
    const less = { ...choice.rates, [name]: (choice.rates[name] ?? 1) / 2 };
    assert.ok(modelled(input, less) > 1.25, `${name} at half its rate would do: ${describeRates(less)}`);
  }
  // VS and TCS hold under 1% of the warps: left alone.
  assert.equal(choice.rates.VS, undefined);
  assert.equal(choice.rates.TCS, undefined);
});

test('a budget a little under the ratio raises only the stage carrying the most excess', () => {
  const choice = chooseRates({ rates: {}, ratio: 1.52, budget: 1.45, recorded: aqt });
  assert.deepEqual(Object.keys(choice.rates), ['FS'], describeRates(choice.rates));
  assert.ok(choice.predicted <= 1.45);
});

test('two large stages: both are raised, the larger at least as far; the rates are powers of two', () => {
  assert.ok(share(computeGraphics, 'CS') > 0.1 && share(computeGraphics, 'FS') > 0.5);
  const input: BudgetInput = { rates: {}, ratio: 2.0, budget: 1.4, recorded: computeGraphics };
  const choice = chooseRates(input);
  const [fs, cs] = [choice.rates.FS ?? 1, choice.rates.CS ?? 1];
  assert.ok(cs > 1 && fs >= cs, describeRates(choice.rates));
  for (const n of Object.values(choice.rates)) assert.ok(Number.isInteger(Math.log2(n as number)), `${n} is a power of two`);
  assert.ok(choice.predicted <= 1.4 && Math.abs(choice.predicted - modelled(input, choice.rates)) < 1e-12);
});

test('a frame already within budget: no change', () => {
  const rates = { FS: 8 };
  const choice = chooseRates({ rates, ratio: 1.07, budget: 1.1, recorded: aqt });
  assert.equal(choice.raised, false);
  assert.deepEqual(choice.rates, rates);
  assert.deepEqual(chooseRates({ rates: {}, ratio: 1.1, budget: 1.1, recorded: aqt }).rates, {}, 'at the budget is within it');
});

test('rates measured while sampled are raised from there, relative to the rate measured at', () => {
  const input: BudgetInput = { rates: { FS: 64, VS: 2 }, ratio: 1.3, budget: 1.1, recorded: aqt };
  const choice = chooseRates(input);
  assert.ok((choice.rates.FS ?? 1) > 64, describeRates(choice.rates));
  assert.equal(choice.rates.VS, 2, 'a rate the user gave stays (VS is under 1%, never raised)');
  assert.ok(choice.predicted <= 1.1 && Math.abs(choice.predicted - modelled(input, choice.rates)) < 1e-12);
  assert.deepEqual(input.rates, { FS: 64, VS: 2 }, 'the input is not changed');
});

test('a stage under 1% of the recorded warps is sampled only once every other stage is at its ceiling', () => {
  assert.ok(share(aqt, 'VS') < 0.01 && share(aqt, 'TCS') < 0.01);
  const tight = chooseRates({ rates: {}, ratio: 1.52, budget: 1.2, recorded: aqt });
  assert.equal(tight.rates.VS, undefined, describeRates(tight.rates));
  assert.equal(tight.rates.TCS, undefined, describeRates(tight.rates));
  assert.ok(tight.predicted <= 1.2);
  // Four large stages share the excess and can meet the budget between them: the small VS (0.99% of the warps),
  // which sampling would also lower, is left alone.
  const four = new Float64Array(15);
  for (const code of [Stage.VS, Stage.TES, Stage.FS, Stage.CS, Stage.MESH]) four[code] = code === Stage.VS ? 4000 : 100_000;
  const input: BudgetInput = { rates: {}, ratio: 2, budget: 1.3, recorded: four };
  const spread = chooseRates(input);
  assert.equal(spread.rates.VS, undefined, describeRates(spread.rates));
  assert.ok(spread.predicted <= 1.3 && modelled(input, { ...spread.rates, VS: 2 }) < modelled(input, spread.rates), 'sampling VS would have lowered it');
});

test('no stage is sampled below 128 recorded warps or past 1 in 32768: a budget out of reach is predicted over, and at those rates nothing is left to raise', () => {
  const input: BudgetInput = { rates: {}, ratio: 5, budget: 1.001, recorded: aqt };
  const all = chooseRates(input);
  assert.equal(all.raised, true);
  assert.ok(all.predicted > 1.001);
  for (const s of STAGES) {
    const n = aqt[s.code] ?? 0;
    if (n === 0) continue;
    const every = all.rates[s.name] ?? 1;
    assert.ok(n / every >= 128, `${s.name}: ${n} warps at 1 in ${every}`);
    assert.ok(n / (every * 2) < 128, `${s.name} raised as far as 128 recorded warps allow: 1 in ${every}`);
  }
  // VS and TCS (234 warps each) cannot be halved: left at every warp.
  assert.equal(all.rates.VS, undefined);
  // The next run records each stage's warps over its rate: measured there, nothing is left to raise.
  const then = new Float64Array(15);
  for (const s of STAGES) then[s.code] = (aqt[s.code] ?? 0) / (all.rates[s.name] ?? 1);
  const again = chooseRates({ ...input, rates: all.rates, recorded: then });
  assert.equal(again.raised, false);
  assert.deepEqual(again.rates, all.rates);
  // A stage that recorded nothing carries no excess: it is never raised.
  assert.equal(all.rates.CS, undefined);
  // 1 in 32768 is the most, however many warps a stage has.
  const huge = new Float64Array(15);
  huge[Stage.FS] = 1e9;
  assert.equal(chooseRates({ rates: {}, ratio: 5, budget: 1.001, recorded: huge }).rates.FS, 32768);
});

test('no recorded warps: nothing to raise', () => {
  const choice = chooseRates({ rates: {}, ratio: 2, budget: 1.1, recorded: new Float64Array(15) });
  assert.equal(choice.raised, false);
  assert.deepEqual(choice.rates, {});
});

test('the choice is deterministic; ties go to the lower stage code', () => {
  const input: BudgetInput = { rates: {}, ratio: 1.52, budget: 1.1, recorded: aqt };
  assert.deepEqual(chooseRates(input), chooseRates(input));
  const even = new Float64Array(15);
  even[Stage.VS] = 1000;
  even[Stage.FS] = 1000;
  const tie = chooseRates({ rates: {}, ratio: 1.2, budget: 1.19, recorded: even });
  assert.deepEqual(tie.rates, { VS: 2 });
});

test('describeRates: the most sampled first, or every warp', () => {
  assert.equal(describeRates({ VS: 2, FS: 8 }), 'FS 1 in 8, VS 1 in 2');
  assert.equal(describeRates({}), 'every warp');
});
