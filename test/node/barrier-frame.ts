/**
 * A frame of passes separated by barriers (issue 14), shared by the node and
 * browser tests (imports only shared-schema through analysis-fixtures).
 */
import type { Trace } from '../../shared-schema/index.js';
import { traceOf, type WarpSpec } from './analysis-fixtures.js';

export const PASSES = 22;
export const PERIOD = 20_000;

/**
 * 22 passes separated by barriers: each draw runs VS then FS on 4 SMs, one FS
 * warp 3 µs past the others (a leftover), then 8 µs with nothing running before
 * the next draw (a sync). Draw 0 alone waits 1.2 µs between VS and FS (one idle window).
 */
export function barrierFrame(): Trace {
  const warps: WarpSpec[] = [];
  for (let d = 0; d < PASSES; d++) {
    const base = d * PERIOD;
    const fsStart = d === 0 ? 5200 : 4000;
    for (let sm = 0; sm < 4; sm++) {
      for (let i = 0; i < 8; i++) {
        warps.push({ sm, slot: i, stage: 'VS', draw: d, start: base + i * 100, end: base + 4000 });
        const long = sm === 0 && i === 0;
        warps.push({ sm, slot: 8 + i, stage: 'FS', draw: d, start: base + fsStart + i * 50, end: base + (long ? 12_000 : 9000) });
      }
    }
  }
  warps.sort((a, b) => a.start - b.start);
  return traceOf({ warps, draws: PASSES });
}

