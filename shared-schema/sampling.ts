/**
 * Warp sampling (issue 25): which share of each stage's warps a capture
 * recorded, as the trace's metadata stores it (`capture.sampling`). The
 * decision itself (the warp-key hash) is in sample-layout.ts; here is only
 * what the file says about it, validated as untrusted input.
 */
import { describeValue, fail } from './errors.js';
import { type Obj, readObject } from './fields.js';
import type { ParameterValue, WarpSampling } from './model.js';
import { MAX_SAMPLE_LOG2 } from './sample-layout.js';
import { STAGES, Stage, stageInfo, type StageName } from './stages.js';

/** The largest sampling rate: one warp in 32,768. */
export const MAX_SAMPLE_EVERY = 2 ** MAX_SAMPLE_LOG2;

const STAGE_NAMES: ReadonlySet<string> = new Set(STAGES.map((s) => s.name));
const CHOSEN_BY: readonly WarpSampling['chosenBy'][] = ['flag', 'budget'];

function isPowerOfTwo(v: number): boolean {
  return Number.isInteger(v) && v >= 1 && v <= MAX_SAMPLE_EVERY && (v & (v - 1)) === 0;
}

/**
 * `capture.sampling` from untrusted input. Stages at 1 are dropped and a
 * sampling with no stage left is null (every warp recorded), so a trace has
 * one spelling of "not sampled". Without `sampling`, an older capture's
 * `parameters.sampleFs` N > 1 (`--sample-fs N`, any integer then) reads as
 * FS 1 in N chosen by the flag.
 */
export function readSampling(value: unknown, field: string, parameters: Readonly<Record<string, ParameterValue>> = {}): WarpSampling | null {
  const legacy = legacySampling(parameters);
  if (value === undefined || value === null) return legacy;
  // What this reader made of the parameters reads back as itself, though N need not be a power of two.
  if (legacy !== null && sameSampling(value, legacy)) return legacy;
  const o = readObject(value, field);
  const everyField = `${field}.every`;
  const given = readObject(o['every'], everyField);
  const keys = Object.keys(given);
  if (keys.length > STAGE_NAMES.size) fail('too-large', everyField, `${keys.length} entries, but there are ${STAGE_NAMES.size} stages`);
  const every: Partial<Record<StageName, number>> = {};
  for (const key of keys) {
    if (!STAGE_NAMES.has(key)) fail('bad-value', `${everyField}.${key}`, `not a stage name (${[...STAGE_NAMES].join(', ')})`);
    const v = given[key];
    if (typeof v !== 'number' || !isPowerOfTwo(v)) {
      fail('bad-value', `${everyField}.${key}`, `expected a power of two in [1, ${MAX_SAMPLE_EVERY}], got ${describeValue(v)}`);
    }
    // Ray generation after a reorder point has no rate of its own (sampleEveryOf): a rate given for it changes nothing.
    if (v > 1 && decidingStage(key as StageName) === key) every[key as StageName] = v;
  }
  const chosenBy = o['chosenBy'];
  if (typeof chosenBy !== 'string' || !(CHOSEN_BY as readonly string[]).includes(chosenBy)) {
    fail('bad-value', `${field}.chosenBy`, `expected one of ${CHOSEN_BY.join(', ')}, got ${describeValue(chosenBy)}`);
  }
  const budget = readBudget(o, `${field}.budget`, chosenBy as WarpSampling['chosenBy']);
  if (Object.keys(every).length === 0) return null;
  return { every: orderedByStage(every), chosenBy: chosenBy as WarpSampling['chosenBy'], budget };
}

function readBudget(o: Obj, field: string, chosenBy: WarpSampling['chosenBy']): number | null {
  const v = o['budget'];
  if (v === undefined || v === null) {
    if (chosenBy === 'budget') fail('bad-value', field, "expected the budget asked for (a number > 1) when chosenBy is 'budget'");
    return null;
  }
  if (typeof v !== 'number' || !Number.isFinite(v) || !(v > 1)) fail('bad-value', field, `expected a finite number > 1 or null, got ${describeValue(v)}`);
  if (chosenBy !== 'budget') fail('bad-value', field, "expected null: only a sampling chosen by 'budget' has a budget");
  return v;
}

function legacySampling(parameters: Readonly<Record<string, ParameterValue>>): WarpSampling | null {
  const n = parameters['sampleFs'];
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 1) return null;
  return { every: { FS: n }, chosenBy: 'flag', budget: null };
}

function sameSampling(value: unknown, s: WarpSampling): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Record<keyof WarpSampling, unknown>>;
  if (v.chosenBy !== s.chosenBy || v.budget !== s.budget || typeof v.every !== 'object' || v.every === null) return false;
  const every = v.every as Record<string, unknown>;
  const keys = Object.keys(every);
  return keys.length === Object.keys(s.every).length && keys.every((k) => every[k] === s.every[k as StageName]);
}

/**
 * Whether `sampling` is what an older capture's parameters say without it:
 * written as nothing, so such a file keeps its bytes and its N need not be a
 * power of two.
 */
export function isLegacySampling(sampling: WarpSampling | null, parameters: Readonly<Record<string, ParameterValue>>): boolean {
  const legacy = legacySampling(parameters);
  return sampling !== null && legacy !== null && sameSampling(sampling, legacy);
}

/** Stage order, so that equal samplings are equal objects and write the same bytes. */
function orderedByStage(every: Partial<Record<StageName, number>>): Partial<Record<StageName, number>> {
  const out: Partial<Record<StageName, number>> = {};
  for (const s of STAGES) if (every[s.name] !== undefined) out[s.name] = every[s.name];
  return out;
}

/**
 * The stage code whose rate decides the warps of stage `code`. Ray generation that passed a reorder point records
 * as RAYGEN_REORDERED, but its warp decided once, in the prologue, at ray generation's rate (the instrumenter's
 * wrapper and the GLSL library alike), so its records are sampled as ray generation's are.
 */
export function rateStageCode(code: number): number {
  return code === Stage.RAYGEN_REORDERED ? Stage.RAYGEN : code;
}

function decidingStage(stage: StageName): StageName {
  return stageInfo(rateStageCode(Stage[stage])).name;
}

/** Stages with a rate of their own (every stage but RAYGEN_REORDERED), in stage order. */
const RATED_STAGES = STAGES.filter((s) => rateStageCode(s.code) === s.code);

/** One warp in how many of `stage` was recorded (1: every warp). */
export function sampleEveryOf(sampling: WarpSampling | null, stage: StageName): number {
  return sampling?.every[decidingStage(stage)] ?? 1;
}

/** One warp in how many by stage code (index = code), 1 for every stage not sampled. */
export function sampleEveryByCode(sampling: WarpSampling | null): Uint32Array {
  const out = new Uint32Array(STAGES.length).fill(1);
  for (const s of STAGES) out[s.code] = sampleEveryOf(sampling, s.name);
  return out;
}

/** The sampled stages, by name, in stage order. */
export function sampledStages(sampling: WarpSampling | null): StageName[] {
  return sampling === null ? [] : STAGES.filter((s) => sampleEveryOf(sampling, s.name) > 1).map((s) => s.name);
}

/**
 * One line for people: "FS 1 in 8, other stages all (chosen by --budget 1.10)",
 * "every stage 1 in 8 (chosen by --sample)"; 'all warps' when not sampled.
 */
export function describeSampling(sampling: WarpSampling | null): string {
  if (sampling === null) return 'all warps';
  const how = sampling.chosenBy === 'budget' ? `chosen by --budget ${sampling.budget?.toFixed(2) ?? '?'}` : 'chosen by --sample';
  const others = RATED_STAGES.some((s) => (sampling.every[s.name] ?? 1) === 1) ? ', other stages all' : '';
  return `${describeRates(sampling.every)}${others} (${how})`;
}

/**
 * The rates alone, where a line names the sampling briefly: "FS 1 in 8", "TES 1 in 4, FS 1 in 64" (stage order);
 * stages at one rate share it, "VS, TCS, TES, FS 1 in 8; CS 1 in 64"; "every stage 1 in 8" when no stage is left out
 * (`--sample 8` through the layer rates all fourteen).
 */
export function describeRates(every: Readonly<Partial<Record<StageName, number>>>): string {
  const rated = RATED_STAGES.filter((s) => (every[s.name] ?? 1) > 1);
  const groups = new Map<number, string[]>();
  for (const s of rated) {
    const n = every[s.name]!;
    groups.set(n, [...(groups.get(n) ?? []), s.label]);
  }
  if (rated.length === RATED_STAGES.length && groups.size === 1) return `every stage 1 in ${[...groups.keys()][0]}`;
  const shared = [...groups.values()].some((labels) => labels.length > 1);
  return [...groups].map(([n, labels]) => `${labels.join(', ')} 1 in ${n}`).join(shared ? '; ' : ', ');
}
