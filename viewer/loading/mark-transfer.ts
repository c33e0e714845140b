/**
 * The marks' columns (Trace.marks, shared-schema/mark-model.ts) on their way
 * from the decode worker to the page. The decoder's columns may be views of
 * larger buffers (the file's bytes, which the worker still hashes after
 * posting), so the worker packs them into one fresh buffer, a copy on its own
 * thread (about 17 bytes per mark), and transfers that buffer: the page gets
 * them without a copy, as it gets the warp columns.
 */
import type { MarkColumns } from '../../shared-schema/mark-model.js';

/** The marks with every column a view of one fresh buffer, and that buffer (null: no marks). */
export function packMarks(marks: MarkColumns | null | undefined): { marks: MarkColumns | null; buffer: ArrayBuffer | null } {
  if (marks == null) return { marks: null, buffer: null };
  const n = marks.count;
  // 4-byte columns first, the byte column last: every view stays aligned.
  const words = 4 + (marks.activeMaskHi === null ? 0 : 1);
  const buffer = new ArrayBuffer(n * (4 * words + 1));
  let at = 0;
  const take = <T extends Uint32Array | Float32Array | Uint8Array>(source: T, make: (b: ArrayBuffer, offset: number, length: number) => T): T => {
    const view = make(buffer, at, n);
    view.set(source.subarray(0, n));
    at += n * source.BYTES_PER_ELEMENT;
    return view;
  };
  const u32 = (b: ArrayBuffer, o: number, l: number) => new Uint32Array(b, o, l);
  const packed: MarkColumns = {
    count: n,
    orphans: marks.orphans,
    warp: take(marks.warp, u32),
    id: take(marks.id, u32),
    offsetNs: take(marks.offsetNs, (b, o, l) => new Float32Array(b, o, l)),
    activeMask: take(marks.activeMask, u32),
    activeMaskHi: marks.activeMaskHi === null ? null : take(marks.activeMaskHi, u32),
    sequence: take(marks.sequence, (b, o, l) => new Uint8Array(b, o, l)),
  };
  return { marks: packed, buffer };
}
