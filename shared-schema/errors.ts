/**
 * Every rejection of bad input is a TraceFormatError naming the field at
 * fault, so the CLI can print one clear line and the viewer can show it.
 */
export type TraceErrorCode =
  | 'bad-magic'
  | 'unsupported-version'
  | 'truncated'
  | 'size-mismatch'
  | 'too-large'
  | 'bad-type'
  | 'bad-value'
  | 'bad-encoding';

export class TraceFormatError extends Error {
  override readonly name = 'TraceFormatError';
  constructor(
    readonly code: TraceErrorCode,
    /** Dotted path of the offending field, e.g. "warps.startNs[12]" or "header.recordCount". */
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/** Largest warp count any decoder accepts (about 3 GB in memory). */
export const MAX_WARPS = 120_000_000;
/** Largest draw count any decoder accepts. */
export const MAX_DRAWS = 10_000_000;

export function fail(code: TraceErrorCode, field: string, detail: string): never {
  throw new TraceFormatError(code, field, detail);
}

/** Short, safe description of an untrusted value for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.byteLength} bytes`;
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'undefined':
      return 'nothing';
    default:
      return `a ${typeof value}`;
  }
}
