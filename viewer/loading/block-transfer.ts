/**
 * The block profile's counts on their way from the decode worker to the
 * page. A decoded profile holds three small Float64Arrays per module per
 * profiled draw, each with its own buffer (thousands of them for a frame):
 * structured cloning would copy each, and transferring each costs a
 * transfer per array. So the worker packs them into one buffer (a copy on
 * its own thread, a few MB at most) whose views the profile then holds, and
 * transfers that one buffer.
 */
import type { BlockCounts, BlockProfile } from '../../shared-schema/index.js';

/** The profile with every count column a view of one fresh buffer, and that buffer (null: nothing to transfer). */
export function packBlockProfile(profile: BlockProfile): { profile: BlockProfile; buffer: ArrayBuffer | null } {
  let length = 0;
  for (const row of profile.rows) for (const c of row.modules) length += c.executions.length + c.lanes.length + c.ticks.length;
  if (length === 0) return { profile, buffer: null };
  const all = new Float64Array(length);
  let at = 0;
  const place = (column: Float64Array): Float64Array => {
    all.set(column, at);
    const view = all.subarray(at, at + column.length);
    at += column.length;
    return view;
  };
  const rows = profile.rows.map((row) => ({
    draw: row.draw,
    modules: row.modules.map((c): BlockCounts => ({ module: c.module, executions: place(c.executions), lanes: place(c.lanes), ticks: place(c.ticks) })),
  }));
  return { profile: { ...profile, rows }, buffer: all.buffer };
}
