/**
 * A trace file's length against the sizes its header declares, read from
 * its first bytes (and, for .wtrace, the body's MessagePack structure, not
 * its columns): a file padded far past what it declares, or cut short, is
 * refused before it is read whole, with the error its decoder would give.
 * Files of other kinds (JSON, SPIR-V) declare no size and pass.
 */
import { fail } from './errors.js';
import { msgpackEnd, type ReadAt } from './msgpack-extent.js';
import { WTRAW_HEADER_BYTES } from './raw-layout.js';
import { WTRACE_HEADER_BYTES, checkWtraceHeader, isWtrace } from './wtrace.js';
import { isWtraw, readLayout } from './wtraw-header.js';

export type { ReadAt } from './msgpack-extent.js';

/**
 * Throws TraceFormatError when a .wtrace or .wtraw file of `fileBytes`
 * bytes, read through `read`, is not as long as it declares; `stats.bytesRead`
 * says how much was read.
 */
export function checkDeclaredSize(read: ReadAt, fileBytes: number, stats: { bytesRead: number } = { bytesRead: 0 }): void {
  const head = read(0, Math.min(fileBytes, WTRAW_HEADER_BYTES));
  stats.bytesRead = head.length;
  if (isWtraw(head)) {
    readLayout(head, fileBytes);
  } else if (isWtrace(head)) {
    checkWtraceHeader(head);
    const walk = { bytesRead: 0 };
    const end = msgpackEnd(read, WTRACE_HEADER_BYTES, fileBytes, 'body', walk);
    stats.bytesRead += walk.bytesRead;
    // As msgpack-reader.ts words it.
    if (end !== fileBytes) fail('bad-encoding', 'body', `${fileBytes - end} bytes after the MessagePack body`);
  }
}
