// The H200 AQT frame traced in full (pixel id) and sampled at 1 in 8 and 1 in 64 (samples/, issue 25), decoded once
// for the tests that compare them; `skip` says why a test cannot run when one is missing.
import { existsSync, readFileSync } from 'node:fs';
import { decodeTrace, type Trace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const load = (name: string): Trace | null => {
  const path = repoPath('samples', `${name}.wtrace`);
  return existsSync(path) ? decodeTrace(new Uint8Array(readFileSync(path))) : null;
};

export const full = load('h200-aqt-pixel-id');
export const s8 = load('h200-aqt-sampled-8');
export const s64 = load('h200-aqt-sampled-64');
export const skip: string | false = full === null || s8 === null || s64 === null ? 'the h200-aqt samples are not present' : false;
