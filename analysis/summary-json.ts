/**
 * Reading a stored summary back (e.g. to diff today's capture against last
 * week's summary). Untrusted input: the shape is checked field by field,
 * each error naming the field; a newer schema version is refused.
 */
import { SUMMARY_SCHEMA, SUMMARY_VERSION, type AnalysisSummary } from './summary.js';

export class SummaryFormatError extends Error {
  override readonly name = 'SummaryFormatError';
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

type Obj = Record<string, unknown>;

function obj(v: unknown, field: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SummaryFormatError(field, 'expected an object');
  return v as Obj;
}

function arr(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) throw new SummaryFormatError(field, 'expected an array');
  return v;
}

function num(o: Obj, key: string, field: string, nullable = false): void {
  const v = o[key];
  if (nullable && v === null) return;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new SummaryFormatError(`${field}.${key}`, `expected a number${nullable ? ' or null' : ''}`);
}

function str(o: Obj, key: string, field: string): void {
  if (typeof o[key] !== 'string') throw new SummaryFormatError(`${field}.${key}`, 'expected a string');
}

const DURATION_KEYS = ['warps', 'totalNs', 'meanNs', 'medianNs', 'p90Ns', 'p99Ns', 'minNs', 'maxNs', 'stddevNs', 'meanActiveLanes', 'simtEfficiency', 'smsUsed'];

/** True when `value` looks like a summary (its schema field says so); the full check is parseSummary. */
export function isSummaryJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Obj)['schema'] === SUMMARY_SCHEMA;
}

/** Checks the parts of a summary that diffs and panels read; returns it typed. */
export function parseSummary(value: unknown): AnalysisSummary {
  const root = obj(value, 'summary');
  if (root['schema'] !== SUMMARY_SCHEMA) throw new SummaryFormatError('schema', `expected "${SUMMARY_SCHEMA}"`);
  const version = root['schemaVersion'];
  if (typeof version !== 'number' || !Number.isInteger(version)) throw new SummaryFormatError('schemaVersion', 'expected an integer');
  if (version > SUMMARY_VERSION) throw new SummaryFormatError('schemaVersion', `${version} is newer than this warptrace reads (${SUMMARY_VERSION})`);
  if (version < SUMMARY_VERSION) throw new SummaryFormatError('schemaVersion', `${version} is older than this warptrace reads (${SUMMARY_VERSION}): re-run warptrace stats on the trace`);
  const trace = obj(root['trace'], 'trace');
  for (const k of ['workload', 'device', 'capturedAt']) str(trace, k, 'trace');
  for (const k of ['warps', 'draws', 'recordsWritten', 'recordsKept', 'dropped', 'subgroupSize']) num(trace, k, 'trace');
  const rel = obj(root['reliability'], 'reliability');
  if (typeof rel['crossSmReliable'] !== 'boolean') throw new SummaryFormatError('reliability.crossSmReliable', 'expected a boolean');
  arr(rel['warnings'], 'reliability.warnings');
  obj(root['thresholds'], 'thresholds');
  const frame = obj(root['frame'], 'frame');
  for (const k of ['startNs', 'endNs', 'spanNs', 'warpTimeNs', 'drawBusyNs', 'gpuBusyNs', 'smsUsed']) num(frame, k, 'frame');
  arr(root['stages'], 'stages').forEach((s, i) => {
    const f = `stages[${i}]`;
    const o = obj(s, f);
    str(o, 'stage', f);
    num(o, 'stageCode', f);
    for (const k of DURATION_KEYS) num(o, k, f);
    const occ = obj(o['occupancy'], `${f}.occupancy`);
    if (occ['perSm'] !== null) num(obj(occ['perSm'], `${f}.occupancy.perSm`), 'peak', `${f}.occupancy.perSm`);
  });
  arr(root['draws'], 'draws').forEach((d, i) => {
    const f = `draws[${i}]`;
    const o = obj(d, f);
    num(o, 'index', f);
    str(o, 'label', f);
    num(o, 'warps', f);
    for (const k of ['spanNs', 'overlapNs']) num(o, k, f, true);
    arr(o['stages'], `${f}.stages`).forEach((s, j) => {
      const g = `${f}.stages[${j}]`;
      const so = obj(s, g);
      str(so, 'stage', g);
      for (const k of DURATION_KEYS) num(so, k, g);
    });
  });
  for (const k of ['syncs', 'idle', 'leftovers', 'stalls']) {
    const o = obj(root[k], k);
    num(o, 'count', k);
    num(o, 'totalNs', k);
  }
  arr(root['findings'], 'findings').forEach((f, i) => {
    const o = obj(f, `findings[${i}]`);
    for (const k of ['id', 'kind', 'title', 'detail']) str(o, k, `findings[${i}]`);
    for (const k of ['startNs', 'endNs', 'costNs']) num(o, k, `findings[${i}]`);
  });
  return root as unknown as AnalysisSummary;
}
