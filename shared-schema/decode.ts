/** Reads any trace file warptrace knows, recognized by its content, not its name. */
import { fail } from './errors.js';
import { traceFromJson } from './json.js';
import type { Trace } from './model.js';
import { decodeWtrace, isWtrace } from './wtrace.js';
import { decodeWtraw, isWtraw, type RawDecodeOptions } from './wtraw.js';

export type TraceFileKind = 'wtrace' | 'wtraw' | 'json';

export function detectTraceKind(bytes: Uint8Array): TraceFileKind | null {
  if (isWtrace(bytes)) return 'wtrace';
  if (isWtraw(bytes)) return 'wtraw';
  // JSON: first non-blank byte is "{" (after an optional UTF-8 byte-order mark).
  for (let i = 0; i < Math.min(bytes.length, 4096); i++) {
    const b = bytes[i] as number;
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d || (i < 3 && (b === 0xef || b === 0xbb || b === 0xbf))) continue;
    return b === 0x7b ? 'json' : null;
  }
  return null;
}

/** `options` apply to raw dumps (their block profiles' modules). */
export function decodeTrace(bytes: Uint8Array, options: RawDecodeOptions = {}): Trace {
  switch (detectTraceKind(bytes)) {
    case 'wtrace':
      return decodeWtrace(bytes);
    case 'wtraw':
      return decodeWtraw(bytes, options);
    case 'json': {
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
      } catch {
        return fail('bad-encoding', 'json', 'not valid UTF-8');
      }
      return traceFromJson(text);
    }
    default:
      return fail('bad-magic', 'file', 'not a warptrace file (expected .wtrace, .wtraw or warptrace JSON)');
  }
}
