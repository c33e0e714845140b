/**
 * Converts raw dumps from a GPU machine elsewhere (see bench/overhead.ts
 * bundle) into .wtrace, with the timestamp workaround of rebase.ts:
 *   node dist/capture/capture-run/convert-raw.js IN.wtraw OUT.wtrace [IN2 OUT2 ...]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { decodeWtraw, encodeWtrace, type Trace } from '../../shared-schema/index.js';
import { rebaseLargeTimestamps } from './rebase.js';

export function traceFromRaw(bytes: Uint8Array): Trace {
  return decodeWtraw(rebaseLargeTimestamps(bytes));
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/.*\//, '/'));
if (isMain) {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.length % 2 !== 0) {
    process.stderr.write('usage: node dist/capture/capture-run/convert-raw.js IN.wtraw OUT.wtrace [IN OUT]...\n');
    process.exit(2);
  }
  for (let i = 0; i < args.length; i += 2) {
    const trace = traceFromRaw(new Uint8Array(readFileSync(args[i]!)));
    const bytes = encodeWtrace(trace);
    writeFileSync(args[i + 1]!, bytes);
    process.stdout.write(`${args[i + 1]}: ${trace.warps.count} warps, ${bytes.length} bytes\n`);
  }
}
