/**
 * The shader panel's all-draws table without one long task. blockTable sums
 * every row's counts before it groups them: for a frame of 2 000 draws of
 * 3 × 1 000-block modules that is 6 M counts, some 30-50 ms on the page. So
 * for large profiles the page sums the rows here, a slice per task, into a
 * one-row profile; its table (blockTable over one row: as cheap as one
 * draw's) has the same stats as the whole profile's, bit for bit (the same
 * additions in the same order).
 */
import type { BlockCounts, BlockProfile } from '../../shared-schema/index.js';
import { afterQueuedTasks } from '../base/tasks.js';
import { addCounts, emptyCounts } from '../../analysis/blocks.js';

/** Counts summed per task (about 1-2 ms of additions). */
export const CELLS_PER_TASK = 200_000;

/** Counts (cells) of all rows: the work blockTable's sums take. */
export function profileCells(profile: BlockProfile): number {
  let cells = 0;
  for (const row of profile.rows) for (const c of row.modules) cells += c.executions.length;
  return cells;
}

/**
 * Every row's counts summed per module, as a profile of one row (of the first
 * profiled draw: blockTable over it with draws null gives every draw's stats).
 * Rejects with an AbortError once `signal` aborts.
 */
export async function summedProfile(profile: BlockProfile, signal?: AbortSignal): Promise<BlockProfile> {
  const sums: BlockCounts[] = emptyCounts(profile);
  let sinceYield = 0;
  for (const row of profile.rows) {
    for (const c of row.modules) {
      addCounts(sums[c.module]!, c);
      sinceYield += c.executions.length;
    }
    if (sinceYield >= CELLS_PER_TASK) {
      sinceYield = 0;
      await afterQueuedTasks();
      if (signal?.aborted) throw new DOMException('summing cancelled', 'AbortError');
    }
  }
  const draw = profile.rows[0]?.draw ?? 0;
  return { ...profile, rows: profile.rows.length === 0 ? [] : [{ draw, modules: sums }] };
}
