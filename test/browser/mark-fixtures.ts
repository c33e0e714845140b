/**
 * A synthetic trace with marks for the marks tests: synthesizeTrace's trace
 * (seed 5, 20 000 warps) and MarkColumns built by hand on the three longest
 * warps of the longest warp's draw and stage (each at least 2 µs long), in
 * row order:
 *
 * | warp | before trace #0 | after trace #0 |
 * |---|---|---|
 * | first | 500 ns, 32 lanes | 1 500 ns, 16 lanes |
 * | second | 1 000 ns, 32 lanes | 1 500 ns, 16 lanes |
 * | third | 250 ns, 32 lanes | 1 750 ns, 8 lanes |
 *
 * So, hand-worked: start → before trace #0: 500, 1 000, 250 ns (mean 583.3, p50 500,
 * max 1 000, lanes 32); before → after: 1 000, 500, 1 500 ns (mean 1 000, p50 1 000,
 * max 1 500, lanes 32); after → end: each warp's duration less its last mark (lanes
 * (16 + 16 + 8) / 3 = 13.3).
 */
import { MARK_KIND_SHIFT, MarkKind, synthesizeTrace, type MarkColumns, type Trace } from '../../shared-schema/index.js';

export const BEFORE_TRACE_0 = MarkKind.BEFORE_TRACE << MARK_KIND_SHIFT;
export const AFTER_TRACE_0 = MarkKind.AFTER_TRACE << MARK_KIND_SHIFT;

/** Per marked warp (row order): [offset ns, live lanes 0..31 mask] of its two marks. */
export const MARK_SPECS = [
  [[500, 0xffffffff], [1500, 0x0000ffff]],
  [[1000, 0xffffffff], [1500, 0xffff0000]],
  [[250, 0xffffffff], [1750, 0x000000ff]],
] as const;

export interface MarkedTrace {
  /** The trace with marks. */
  readonly trace: Trace;
  /** The same trace without (Trace.marks null). */
  readonly plain: Trace;
  /** The marked warps' rows, ascending. */
  readonly rows: readonly [number, number, number];
  readonly draw: number;
  readonly stage: number;
}

export function markedTrace(): MarkedTrace {
  const plain = synthesizeTrace({ warps: 20000, seed: 5 });
  const w = plain.warps;
  let longest = 0;
  for (let i = 0; i < w.count; i++) if (w.durationNs[i]! > w.durationNs[longest]!) longest = i;
  const draw = w.draw[longest]!;
  const stage = w.stage[longest]!;
  const same: number[] = [];
  for (let i = 0; i < w.count; i++) if (w.draw[i] === draw && w.stage[i] === stage) same.push(i);
  same.sort((a, b) => w.durationNs[b]! - w.durationNs[a]!);
  const rows = same.slice(0, 3).sort((a, b) => a - b) as [number, number, number];
  for (const r of rows) if (w.durationNs[r]! < 2000) throw new Error(`fixture: warp ${r} is only ${w.durationNs[r]} ns long`);
  const n = 6;
  const marks: MarkColumns = {
    count: n,
    warp: Uint32Array.from(rows.flatMap((r) => [r, r])),
    id: Uint32Array.from(rows.flatMap(() => [BEFORE_TRACE_0, AFTER_TRACE_0])),
    sequence: Uint8Array.from(rows.flatMap(() => [0, 1])),
    offsetNs: Float32Array.from(MARK_SPECS.flatMap((s) => [s[0][0], s[1][0]])),
    activeMask: Uint32Array.from(MARK_SPECS.flatMap((s) => [s[0][1], s[1][1]])),
    activeMaskHi: null,
    orphans: 1,
  };
  return { trace: { ...plain, marks }, plain, rows, draw, stage };
}
