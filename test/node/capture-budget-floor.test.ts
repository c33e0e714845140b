// `warptrace capture --budget B`: the floor (capture/capture-run/app-budget.ts "The floor"). A sampled run pays the
// per-warp sampling test whatever its rates; a full run does not, so the first sampled run comes out over what the
// model predicted from the full one. The runs learn that miss as a floor, and a sampled stage's part of the excess is
// weighed by its warps × N^(−0.22), not by the few warps it recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STAGES, Stage, type StageName } from '../../shared-schema/index.js';
import { FIRST_RUN, MIN_RECORDED_WARPS, chooseAfterRun, chooseRates, describeRates, nextFloor } from '../../capture/capture-run/app-budget.js';
import { MAX_BUDGET_RUNS } from '../../capture/capture-run/app-budget-runs.js';
import type { SampleRates } from '../../cli/commands/capture-sample.js';

/**
 * A frame whose traced time follows the model with a floor: `floor` once any stage is sampled, plus each stage's
 * share of `records` (its warps over all warps) times N^(−0.22). Stand-in for an app: the runs only see its ratios.
 */
interface SimulatedFrame {
  readonly warps: ReadonlyMap<StageName, number>;
  readonly records: number;
  readonly floor: number;
}

function tracedRatio(frame: SimulatedFrame, rates: SampleRates): number {
  let total = 0;
  for (const n of frame.warps.values()) total += n;
  let ratio = 1 + (Object.keys(rates).length > 0 ? frame.floor : 0);
  for (const [name, n] of frame.warps) ratio += ((frame.records * n) / total) * Math.pow(rates[name] ?? 1, -0.22);
  return ratio;
}

/**
 * The runs as app-budget-runs.ts makes them (chooseAfterRun, the stop when nothing is raised); `learn` false: every
 * choice as a first run's, floor 0. `predicted[k]`: what the choice before run k + 1 predicted for it (null: run 1).
 */
function runUntilWithin(frame: SimulatedFrame, budget: number, learn: boolean): { runs: number; met: boolean; ratios: number[]; predicted: (number | null)[]; rates: SampleRates } {
  let rates: SampleRates = {};
  let memory = FIRST_RUN;
  const ratios: number[] = [];
  const predicted: (number | null)[] = [];
  for (let run = 1; run <= MAX_BUDGET_RUNS; run++) {
    const ratio = tracedRatio(frame, rates);
    ratios.push(ratio);
    predicted.push(memory.predicted);
    if (ratio <= budget) return { runs: run, met: true, ratios, predicted, rates };
    if (run === MAX_BUDGET_RUNS) break;
    const recorded = new Float64Array(STAGES.length);
    for (const [name, n] of frame.warps) recorded[Stage[name]] = n / (rates[name] ?? 1);
    const next = chooseAfterRun(learn ? memory : FIRST_RUN, { rates, ratio, budget, recorded });
    if (!next.choice.raised) return { runs: run, met: false, ratios, predicted, rates };
    rates = next.choice.rates;
    memory = next.memory;
  }
  return { runs: MAX_BUDGET_RUNS, met: false, ratios, predicted, rates };
}

// A compute-and-fragment frame the size of computeraytracing's (~160,000 warps), 1.20x in full, whose decision costs 0.04.
const frame: SimulatedFrame = { warps: new Map<StageName, number>([['CS', 40_000], ['FS', 120_000]]), records: 0.2, floor: 0.04 };

test('nextFloor: a sampled run over its prediction raises the floor by the miss, one under it lowers it, never below 0', () => {
  assert.equal(nextFloor(0, 1.09, 1.13), 1.13 - 1.09);
  assert.ok(Math.abs(nextFloor(0.04, 1.1, 1.09) - 0.03) < 1e-12);
  assert.equal(nextFloor(0.01, 1.1, 1.05), 0);
});

test('a floor lies under every prediction and is not spread over the stages: the rates are raised further than without it', () => {
  const recorded = new Float64Array(STAGES.length);
  recorded[Stage.CS] = 40_000;
  recorded[Stage.FS] = 120_000;
  const without = chooseRates({ rates: {}, ratio: 1.2, budget: 1.1, recorded });
  const withFloor = chooseRates({ rates: {}, ratio: 1.2, budget: 1.1, recorded, floor: 0.04 });
  assert.ok(withFloor.predicted <= 1.1 && without.predicted <= 1.1);
  for (const name of ['CS', 'FS'] as const) assert.ok((withFloor.rates[name] ?? 1) >= (without.rates[name] ?? 1), `${describeRates(withFloor.rates)} against ${describeRates(without.rates)}`);
  assert.notDeepEqual(withFloor.rates, without.rates);
  // A floor of the whole excess leaves nothing the rates can take away: predicted at the ratio, over budget.
  const all = chooseRates({ rates: {}, ratio: 1.2, budget: 1.1, recorded, floor: 0.2 });
  assert.ok(Math.abs(all.predicted - 1.2) < 1e-12);
});

test('the runs learn the floor: the simulated frame meets --budget 1.10 in three runs, where ignoring the floor takes five', () => {
  const learnt = runUntilWithin(frame, 1.1, true);
  const ignored = runUntilWithin(frame, 1.1, false);
  assert.equal(learnt.met, true, `ratios ${learnt.ratios.join(', ')}`);
  assert.equal(learnt.runs, 3, `ratios ${learnt.ratios.join(', ')} at ${describeRates(learnt.rates)}`);
  assert.ok(ignored.runs > learnt.runs, `without the floor: ${ignored.runs} runs, ratios ${ignored.ratios.join(', ')}`);
  // Every stage keeps its statistics.
  for (const [name, n] of frame.warps) assert.ok(n / (learnt.rates[name] ?? 1) >= MIN_RECORDED_WARPS, `${name}: ${describeRates(learnt.rates)}`);
});

test('a sampled run\'s excess is weighed by warps × N^(−0.22): the third run\'s prediction is the frame\'s ratio, not under it', () => {
  // The model is the frame's own law, so once the floor is learnt its prediction must hit the measured ratio.
  const { ratios, predicted } = runUntilWithin(frame, 1.1, true);
  assert.ok(ratios.length >= 3, `runs: ${ratios.join(', ')}`);
  const third = predicted[2];
  assert.ok(third !== null && third !== undefined && Math.abs(third - ratios[2]!) < 1e-9, `run 3 predicted ${third} against ${ratios[2]}`);
});
