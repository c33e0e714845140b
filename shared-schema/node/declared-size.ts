/** Node: a file's declared sizes checked against its length before it is read whole (declared-size.ts). */
import { closeSync, openSync, readSync } from 'node:fs';
import { checkDeclaredSize } from '../declared-size.js';

/**
 * Throws TraceFormatError when the trace file at `path`, `fileBytes` long,
 * is not as long as its header declares (file-system errors as they come);
 * reads only its header and structure. `stats.bytesRead`: bytes read.
 */
export function checkFileDeclaredSize(path: string, fileBytes: number, stats: { bytesRead: number } = { bytesRead: 0 }): void {
  const fd = openSync(path, 'r');
  try {
    const readAt = (position: number, length: number): Uint8Array => {
      const out = new Uint8Array(Math.max(0, Math.min(length, fileBytes - position)));
      let got = 0;
      while (got < out.length) {
        const n = readSync(fd, out, got, out.length - got, position + got);
        if (n === 0) break;
        got += n;
      }
      return out.subarray(0, got);
    };
    checkDeclaredSize(readAt, fileBytes, stats);
  } finally {
    closeSync(fd);
  }
}
