/**
 * How well calibrated warp times agree with the timestamp queries written
 * around each draw:
 *   node dist/capture/capture-run/verify-bounds.js CAPTURE.wtraw...
 * For every draw: how far its latest warp ends before the draw's end
 * timestamp (an upper bound on every GPU: BOTTOM_OF_PIPE waits for all earlier
 * work), and how far its earliest warp starts after the begin timestamp. The
 * begin timestamp is a lower bound only for draws behind a full barrier
 * (metadata "barrierBefore"): NVIDIA writes a TOP_OF_PIPE timestamp once the
 * earlier work has finished, while the next draw may already run.
 */
import { readFileSync } from 'node:fs';
import { WtrawHeaderWord, type Trace } from '../../shared-schema/index.js';
import { traceFromRaw } from './convert-raw.js';

export interface DrawBounds {
  readonly draw: number;
  readonly label: string;
  readonly barrierBefore: boolean;
  /** draw end timestamp − latest warp end (ns): ≥ 0 when the bound holds. */
  readonly endMarginNs: number;
  /** earliest warp start − draw begin timestamp (ns): ≥ 0 when the begin bound holds. */
  readonly startMarginNs: number;
}

export function drawBounds(trace: Trace, barrierBefore: readonly boolean[]): DrawBounds[] {
  const w = trace.warps;
  const first = new Float64Array(trace.draws.length).fill(Infinity);
  const last = new Float64Array(trace.draws.length).fill(-Infinity);
  for (let i = 0; i < w.count; i++) {
    const d = w.draw[i] as number;
    const s = w.startNs[i] as number;
    first[d] = Math.min(first[d]!, s);
    last[d] = Math.max(last[d]!, s + (w.durationNs[i] as number));
  }
  return trace.draws
    .filter((d) => d.gpuBeginNs !== null && d.gpuEndNs !== null && Number.isFinite(first[d.index]!))
    .map((d) => ({
      draw: d.index,
      label: d.label,
      barrierBefore: barrierBefore[d.index] === true,
      endMarginNs: d.gpuEndNs! - last[d.index]!,
      startMarginNs: first[d.index]! - d.gpuBeginNs!,
    }));
}

function metadataOf(raw: Uint8Array): Record<string, unknown> {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const at = view.getUint32(WtrawHeaderWord.HEADER_BYTES * 4, true);
  const length = view.getUint32(WtrawHeaderWord.METADATA_BYTES * 4, true);
  return JSON.parse(new TextDecoder().decode(raw.subarray(at, at + length))) as Record<string, unknown>;
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/.*\//, '/'));
if (isMain) {
  let worstEnd = Infinity;
  let worstBarrierStart = Infinity;
  for (const path of process.argv.slice(2)) {
    const raw = new Uint8Array(readFileSync(path));
    const meta = metadataOf(raw);
    const barrier = Array.isArray(meta['barrierBefore']) ? (meta['barrierBefore'] as boolean[]) : [];
    for (const b of drawBounds(traceFromRaw(raw), barrier)) {
      worstEnd = Math.min(worstEnd, b.endMarginNs);
      if (b.barrierBefore) worstBarrierStart = Math.min(worstBarrierStart, b.startMarginNs);
      process.stdout.write(
        `${path.replace(/.*\//, '')}\t#${b.draw}\t${b.barrierBefore ? 'barrier' : '-'}\tend margin ${b.endMarginNs.toFixed(0)} ns\tstart margin ${b.startMarginNs.toFixed(0)} ns\t${b.label}\n`,
      );
    }
  }
  process.stdout.write(`worst end margin ${worstEnd.toFixed(0)} ns; worst start margin behind a barrier ${worstBarrierStart.toFixed(0)} ns\n`);
}
