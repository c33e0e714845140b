/**
 * `warptrace capture --sample SPEC`: which warps record (issue 25). SPEC is one power of two
 * for every traced stage (`--sample 8`) or per stage (`--sample fs=8,vs=4,rgen=2`, the --stages
 * names); `--sample-fs N` is `--sample fs=N`. The layer writes the rates into the draw-id block
 * (shared-schema/sample-layout.ts), the instrumented shaders decide per warp before any clock.
 */
import type { StageName } from '../../shared-schema/index.js';
import { MAX_SAMPLE_LOG2 } from '../../shared-schema/sample-layout.js';
import { UsageError } from '../command.js';

/** The --stages names and the stages they mean. */
const STAGE_OF_NAME: Readonly<Record<string, StageName>> = {
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

const MAX_EVERY = 2 ** MAX_SAMPLE_LOG2;

/** One warp in N records, by stage (stages at 1 left out). */
export type SampleRates = Readonly<Partial<Record<StageName, number>>>;

function every(text: string, flag: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_EVERY || (n & (n - 1)) !== 0) {
    throw new UsageError(`${flag} takes a power of two from 1 to ${MAX_EVERY} (one warp in N records), got "${text}"`);
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
    const stage = STAGE_OF_NAME[name.trim().toLowerCase()];
    if (stage === undefined) throw new UsageError(`--sample takes STAGE=N with a stage of ${Object.keys(STAGE_OF_NAME).join(',')}, got "${part}"`);
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
