/** A CSV table's text, streamed: one header line, a line per row, ~1 MiB per chunk. */
import { csvField } from './escape.js';

export type Cell = string | number | boolean | null;

/** Characters per yielded chunk, about. */
const CHUNK_CHARS = 1 << 20;

/** A table's text in chunks: the draws of a long trace make more text than one string holds. */
export function* tableChunks(header: readonly string[], rows: Iterable<readonly Cell[]>): Generator<string, void, undefined> {
  let chunk = `${header.join(',')}\n`;
  for (const r of rows) {
    chunk += `${r.map(csvField).join(',')}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}
