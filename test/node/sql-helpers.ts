/** Helpers of the SQL tests: a sample's trace and summary, and rows of a query as plain values. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { analyzeTrace, type AnalysisSummary } from '../../analysis/index.js';
import { decodeTrace, type Trace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

/** The committed samples named by samples/index.json. */
export function sampleFiles(): string[] {
  const index = JSON.parse(readFileSync(repoPath('samples/index.json'), 'utf8')) as { samples: { file: string }[] };
  return index.samples.map((s) => s.file);
}

export function loadSample(file: string): { trace: Trace; summary: AnalysisSummary } {
  const trace = decodeTrace(new Uint8Array(readFileSync(repoPath('samples', file))));
  return { trace, summary: analyzeTrace(trace) };
}

export type Plain = string | number | boolean | null;

/** The rows of `sql`; 64-bit and 128-bit integers as numbers (the tests' counts and sums fit a double). */
export async function query(connection: DuckDBConnection, sql: string): Promise<Record<string, Plain>[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS().map((row) => {
    const out: Record<string, Plain> = {};
    for (const [k, v] of Object.entries(row)) {
      if (typeof v === 'bigint') {
        assert.ok(v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER), `${k} = ${v} fits a double`);
        out[k] = Number(v);
      } else out[k] = v as Plain;
    }
    return out;
  });
}

/** a ≈ b within a relative 1e-9 (sums the analyses build from moments). */
export function assertClose(actual: Plain, expected: number, what: string): void {
  assert.equal(typeof actual, 'number', what);
  const scale = Math.max(1, Math.abs(expected));
  assert.ok(Math.abs((actual as number) - expected) <= 1e-9 * scale, `${what}: ${actual} vs ${expected}`);
}
