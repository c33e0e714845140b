/**
 * The trace buffer's size for `warptrace capture -- APP` (--capacity): fixed
 * by the user, or chosen by the CLI (`auto`, the default; `auto:N` starts at
 * N records). A capture the CLI sized that dropped records is taken again,
 * once, with the buffer its frame needed (app-capture.ts).
 */

/** A trace buffer record is 32 bytes (shared-schema/raw-layout.ts). */
export const RECORD_BYTES = 32;
/** The layer's buffer when WARPTRACE_CAPACITY is unset (capture/layer/src/settings.cpp): 64 MiB. */
export const DEFAULT_CAPACITY = 2_097_152;
/** The most WARPTRACE_CAPACITY the layer takes (capture/layer/src/settings.cpp: 2^26 records, 2 GiB); it refuses more. */
export const MAX_CAPACITY = 2 ** 26;
/**
 * The most a second capture asks for: the layer's maximum less 8 MiB, so that its dump (records plus the header, the
 * draw table's metadata and timestamps) stays a file the converter reads (under 2 GiB, cli/files.ts).
 */
export const MAX_RETRY_CAPACITY = MAX_CAPACITY - (8 << 20) / RECORD_BYTES;
/** Second captures are sized in whole MiB. */
const RETRY_STEP = (1 << 20) / RECORD_BYTES;

export interface CapacityChoice {
  /** WARPTRACE_CAPACITY for the first run; null: the layer's default (DEFAULT_CAPACITY). */
  readonly start: number | null;
  /** `auto` / `auto:N` (and no --capacity): a capture that dropped records is taken again once with a larger buffer. */
  readonly grow: boolean;
}

/** `--capacity` as given: `N` (fixed), `auto` or `auto:N`; null for a bad value (the caller says what is expected). */
export function parseCapacity(text: string | undefined): CapacityChoice | null {
  if (text === undefined || text === 'auto') return { start: null, grow: true };
  const match = /^(auto:)?(\d+)$/.exec(text);
  if (match === null) return null;
  const records = Number(match[2]);
  if (records < 1 || records > MAX_CAPACITY) return null;
  return { start: records, grow: match[1] !== undefined };
}

/**
 * The buffer a second capture asks for when the first one's counter reached `counter` records: that plus 1/8, in whole
 * MiB, at most MAX_RETRY_CAPACITY. The second run is the same frame number but not always the same work (an animated
 * frame, a time step, particles): 1/8 absorbs such a difference for 12.5% more memory, where asking for the counter
 * alone would drop records again at the first extra warp.
 */
export function retryCapacity(counter: number): number {
  const wanted = Math.ceil((counter * 9) / 8 / RETRY_STEP) * RETRY_STEP;
  return Math.min(wanted, MAX_RETRY_CAPACITY);
}

/** "321 MiB" for a buffer of `records`. */
export function capacityMemory(records: number): string {
  return `${Math.ceil((records * RECORD_BYTES) / 2 ** 20).toLocaleString('en-US')} MiB`;
}
