/**
 * `warptrace capture --budget B`: the sampling rates the next run asks for, from what the last run measured (its
 * traced frame against the untraced frames before it, and how many warps each stage recorded). Pure: the runs
 * themselves are app-budget-runs.ts.
 *
 * The model. The traced frame's excess (ratio − 1) is the warps' records: a stage's part of it is proportional to its
 * warps times N^(−0.22) when it records one warp in N (in a full run: to the warps it recorded), so raising a stage
 * from one in n to one in N multiplies its part by (N/n)^(−0.22). On the H200, the AQT frame through the layer's shaders
 * (the instrumenter, pixel custom id) traced at 1.382x the untraced frames in full kept 65% of that excess at one warp
 * in 8 (1.248x) and 40% at one in 64 (1.151x): 8^(−0.22) = 0.63, 64^(−0.22) = 0.40 (bench/RESULTS.md "Warp sampling").
 * A recorded fragment warp mostly waits for its slot, and the warps behind it wait too, so the cost does not fall
 * linearly with N.
 *
 * The floor. A sampled run pays something that no rate takes away: each warp's decision (the sampling test), which a
 * full capture does not have (on the H200 with no warp picked: 1.057x AQT, 1.13x at 4K, 1.19x ray tracing). The
 * model above cannot see it from a full run, so the first sampled run comes out over its prediction; that excess is
 * then kept as a floor under every later prediction (nextFloor: what the last run measured over what was predicted
 * for it, added to the floor it was predicted with) and only the rest is spread over the stages. Without it, each
 * run blamed the floor on the records and raised the rates too little: a frame at 1.25x in full with a floor of 0.06
 * took five runs to reach 1.10 instead of three (test/node/capture-budget.test.ts).
 */
import { MAX_SAMPLE_EVERY, STAGES, STAGE_COUNT, rateStageCode, type StageName } from '../../shared-schema/index.js';
import type { SampleRates } from '../../cli/commands/capture-sample.js';

/** A stage's share of the excess at one warp in N, relative to the rate it was measured at: (N/n)^(−0.22). */
export const EXCESS_EXPONENT = -0.22;
/** A stage that recorded fewer than this share of the trace's warps is sampled more only when no other stage can be: its few warps keep their statistics. */
export const SMALL_STAGE_SHARE = 0.01;
/**
 * A stage is never sampled below this many recorded warps (its warps at every warp over N): fewer make the estimates
 * noise (at 128 a count's standard error is about 9%), and a budget out of reach otherwise is reported not met rather
 * than met with a nearly empty trace (computeraytracing on the H200 at --budget 1.02 kept 2 of ~160,000 warps).
 */
export const MIN_RECORDED_WARPS = 128;

export interface BudgetInput {
  /** The rates the last run recorded at (stages absent: every warp). */
  readonly rates: SampleRates;
  /** That run's traced frame time over the untraced frames' (capture.overhead). */
  readonly ratio: number;
  /** The budget: the ratio the next run may reach (> 1). */
  readonly budget: number;
  /** Warps that run recorded, by stage code (recordedWarpsByStage). */
  readonly recorded: ArrayLike<number>;
  /** Excess no rate takes away (nextFloor over the runs so far); absent: 0, as before any sampled run. */
  readonly floor?: number;
}

/**
 * The floor for the next choice, after a sampled run measured `measured` where the model predicted `predicted` with
 * floor `floor`: the whole miss goes to the floor, never below 0 (a run under its prediction lowers it).
 */
export function nextFloor(floor: number, predicted: number, measured: number): number {
  return Math.max(0, floor + measured - predicted);
}

export interface BudgetChoice {
  /** The rates for the next run: stages at 1 left out, the same object contents when nothing changes. */
  readonly rates: SampleRates;
  /** The ratio the model expects at these rates. */
  readonly predicted: number;
  /** Whether any rate was raised (false: the last run met the budget, or nothing is left to raise). */
  readonly raised: boolean;
}

/** Per stage code, how many warps the trace holds; ray generation after a reorder point counts as ray generation (it has that stage's rate). */
export function recordedWarpsByStage(stage: ArrayLike<number>, count: number): Float64Array {
  const out = new Float64Array(STAGE_COUNT);
  for (let i = 0; i < count; i++) {
    const code = stage[i] as number;
    if (code < STAGE_COUNT) out[rateStageCode(code)]! += 1;
  }
  return out;
}

interface StageState {
  readonly name: StageName;
  readonly code: number;
  /** The stage's excess at the rate it was measured at. */
  readonly measured: number;
  readonly from: number;
  every: number;
  readonly small: boolean;
  /** The highest rate that keeps MIN_RECORDED_WARPS of the stage's warps (at least the rate it was measured at). */
  readonly ceiling: number;
}

/** What one run's choice leaves the next: the floor learnt so far and the ratio it predicted (null before any choice). */
export interface BudgetMemory {
  readonly floor: number;
  readonly predicted: number | null;
}

export const FIRST_RUN: BudgetMemory = { floor: 0, predicted: null };

/**
 * The choice after a run measured `input.ratio`: the floor learnt from what was predicted for that run (nextFloor;
 * a run no choice led to teaches nothing), then chooseRates over it; and the memory for the next run.
 */
export function chooseAfterRun(memory: BudgetMemory, input: Omit<BudgetInput, 'floor'>): { choice: BudgetChoice; memory: BudgetMemory } {
  const floor = memory.predicted === null ? memory.floor : nextFloor(memory.floor, memory.predicted, input.ratio);
  const choice = chooseRates({ ...input, floor });
  return { choice, memory: { floor, predicted: choice.predicted } };
}

/**
 * The least sampling the model says brings the ratio within the budget: one doubling at a time, always of the stage
 * whose modelled excess is largest now (a doubling removes the same fraction, 1 − 2^(−1/3), of any stage's excess,
 * and each stage's gains shrink as it is raised, so taking the largest gain each time reaches the budget in the
 * fewest doublings). Stages under SMALL_STAGE_SHARE of the recorded warps are left at their rate unless every other
 * stage is at its ceiling (MIN_RECORDED_WARPS recorded, or MAX_SAMPLE_EVERY); no stage goes past its ceiling, so a
 * budget out of reach is predicted over, and the run loop says so. Ties go to the lower stage code, so the choice is deterministic.
 */
export function chooseRates(input: BudgetInput): BudgetChoice {
  const floor = Math.max(0, input.floor ?? 0);
  const excess = Math.max(0, input.ratio - 1 - floor);
  const states = stageStates(input, excess);
  const predict = () => 1 + floor + states.reduce((sum, s) => sum + modelledExcess(s), 0);
  let predicted = predict();
  if (!(input.ratio > input.budget)) return { rates: ratesOf(input.rates, states), predicted, raised: false };
  let raised = false;
  while (predicted > input.budget) {
    const next = largestRaisable(states, false) ?? largestRaisable(states, true);
    if (next === null) break;
    next.every *= 2;
    raised = true;
    predicted = predict();
  }
  return { rates: ratesOf(input.rates, states), predicted, raised };
}

function stageStates(input: BudgetInput, excess: number): StageState[] {
  const every = (name: StageName) => input.rates[name] ?? 1;
  let recordedTotal = 0;
  let weightTotal = 0;
  for (const s of STAGES) {
    recordedTotal += input.recorded[s.code] ?? 0;
    weightTotal += excessWeight(input.recorded[s.code] ?? 0, every(s.name));
  }
  const states: StageState[] = [];
  if (recordedTotal === 0) return states;
  for (const s of STAGES) {
    const n = input.recorded[s.code] ?? 0;
    if (n === 0 || rateStageCode(s.code) !== s.code) continue;
    const from = every(s.name);
    states.push({ name: s.name, code: s.code, measured: (excess * excessWeight(n, from)) / weightTotal, from, every: from, small: n < SMALL_STAGE_SHARE * recordedTotal, ceiling: ceilingRate(n * from, from) });
  }
  return states;
}

/**
 * A stage's part of the excess, up to a common factor: its warps (n recorded at one in N: n·N) times N^(−0.22), the
 * model's own law. At every warp this is the recorded count. Splitting a sampled run's excess by recorded warps
 * instead would give a stage at 1 in 512 almost none of it, although its records still cost 512^(−0.22) = 25% of
 * what they did in full, and the stage would be raised too little.
 */
function excessWeight(recorded: number, every: number): number {
  return recorded * Math.pow(every, 1 + EXCESS_EXPONENT);
}

/** The largest power of two N (up to MAX_SAMPLE_EVERY, at least `from`) that keeps MIN_RECORDED_WARPS of `warps`. */
function ceilingRate(warps: number, from: number): number {
  let n = 1;
  while (n * 2 <= MAX_SAMPLE_EVERY && warps / (n * 2) >= MIN_RECORDED_WARPS) n *= 2;
  return Math.max(n, from);
}

function modelledExcess(s: StageState): number {
  return s.measured * Math.pow(s.every / s.from, EXCESS_EXPONENT);
}

function largestRaisable(states: readonly StageState[], small: boolean): StageState | null {
  let best: StageState | null = null;
  for (const s of states) {
    if (s.small !== small || s.every * 2 > s.ceiling) continue;
    if (best === null || modelledExcess(s) > modelledExcess(best)) best = s;
  }
  return best;
}

/** The given rates with the states' rates over them, in stage order, stages at 1 left out. */
function ratesOf(given: SampleRates, states: readonly StageState[]): SampleRates {
  const out: Partial<Record<StageName, number>> = {};
  for (const s of STAGES) {
    const every = states.find((state) => state.name === s.name)?.every ?? given[s.name] ?? 1;
    if (every > 1) out[s.name] = every;
  }
  return out;
}

/** "FS 1 in 8, VS 1 in 2" (the most sampled first), or "every warp". */
export function describeRates(rates: SampleRates): string {
  const entries = STAGES.map((s) => [s.name, rates[s.name] ?? 1] as const).filter(([, every]) => every > 1);
  if (entries.length === 0) return 'every warp';
  // A stable sort: equal rates stay in stage order.
  return entries
    .sort((a, b) => b[1] - a[1])
    .map(([name, every]) => `${name} 1 in ${every}`)
    .join(', ');
}
