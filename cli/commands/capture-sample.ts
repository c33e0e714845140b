/**
 * `warptrace capture --sample SPEC`: which warps record (issue 25). SPEC is one power of two
 * for every traced stage (`--sample 8`) or per stage (`--sample fs=8,vs=4,rgen=2`, the --stages
 * names); `--sample-fs N` is `--sample fs=N`. The layer writes the rates into the draw-id block
 * (shared-schema/sample-layout.ts), the instrumented shaders decide per warp before any clock.
 */
import { MAX_SAMPLE_EVERY, type StageName } from '../../shared-schema/index.js';
import { UsageError } from '../command.js';

/** The stages as the layer's options name them (--stages, --positions, --sample), in stage-code order. */
export const LAYER_STAGES = ['vs', 'tcs', 'tes', 'gs', 'fs', 'cs', 'task', 'mesh', 'rgen', 'ahit', 'chit', 'miss', 'rint', 'call'] as const;
export type LayerStage = (typeof LAYER_STAGES)[number];

/** The stage each of those names means. */
const STAGE_OF_NAME: Readonly<Record<LayerStage, StageName>> = {
  vs: 'VS',
  tcs: 'TCS',
  tes: 'TES',
  gs: 'GS',
  fs: 'FS',
  cs: 'CS',
  task: 'TASK',
  mesh: 'MESH',
  rgen: 'RAYGEN',
  ahit: 'ANY_HIT',
  chit: 'CLOSEST_HIT',
  miss: 'MISS',
  rint: 'INTERSECTION',
  call: 'CALLABLE',
};

/** One warp in N records, by stage (stages at 1 left out). */
export type SampleRates = Readonly<Partial<Record<StageName, number>>>;

function every(text: string, flag: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_SAMPLE_EVERY || (n & (n - 1)) !== 0) {
    throw new UsageError(`${flag} takes a power of two from 1 to ${MAX_SAMPLE_EVERY} (one warp in N records), got "${text}"`);
  }
  return n;
}

/** --sample SPEC: "8" (every stage) or "fs=8,vs=4". */
export function parseSample(text: string): SampleRates {
  const rates: Partial<Record<StageName, number>> = {};
  if (!text.includes('=')) {
    const n = every(text, '--sample');
    if (n > 1) for (const stage of Object.values(STAGE_OF_NAME)) rates[stage] = n;
    return rates;
  }
  for (const part of text.split(',')) {
    const [name = '', value = ''] = part.split('=');
    const key = name.trim().toLowerCase();
    const stage = (LAYER_STAGES as readonly string[]).includes(key) ? STAGE_OF_NAME[key as LayerStage] : undefined;
    if (stage === undefined) throw new UsageError(`--sample takes STAGE=N with a stage of ${LAYER_STAGES.join(',')}, got "${part}"`);
    const n = every(value, `--sample ${name.trim()}`);
    if (n > 1) rates[stage] = n;
  }
  return rates;
}

/** --sample and --sample-fs together (--sample-fs N is fs=N; both may not name the fragment stage). */
export function sampleRates(sample: string | undefined, sampleFs: string | undefined): SampleRates | null {
  const rates: Partial<Record<StageName, number>> = sample === undefined ? {} : { ...parseSample(sample) };
  if (sampleFs !== undefined) {
    if (sample !== undefined && sample.toLowerCase().includes('fs=')) throw new UsageError('--sample-fs and --sample fs=N both set the fragment rate: give one');
    const n = every(sampleFs, '--sample-fs');
    if (n > 1) rates.FS = n;
    else delete rates.FS;
  }
  return Object.keys(rates).length === 0 ? null : rates;
}
