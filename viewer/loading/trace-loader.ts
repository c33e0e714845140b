/**
 * Loads a trace in a Web Worker: the page gets progress events and, at the
 * end, the decoded columns and lane index by transfer (no copy).
 */
import type { Trace } from '../../shared-schema/index.js';
import type { LaneIndex } from '../model/lane-index.js';
import type { CalibrationSummary } from '../../analysis/calibration-quality.js';
import { registerAnalysisCopy } from './analysis-copies.js';
import type { DecodeRequest, DecodeResponse, DecodeTimings, LoadPhase } from './protocol.js';

export interface LoadedTrace {
  readonly trace: Trace;
  readonly index: LaneIndex;
  /** The header's calibration figures, computed in the worker. */
  readonly calibration: CalibrationSummary;
  /** File size, bytes (0 for generated traces). */
  readonly bytes: number;
  /** Hash of a file's bytes (content-hash.ts), computed after the trace is shown; null for URLs and generated traces. */
  readonly contentHash: Promise<string | null>;
  readonly timings: DecodeTimings;
}

export interface LoadProgress {
  readonly phase: LoadPhase;
  readonly loaded: number;
  readonly total: number | null;
}

/** A trace that could not be loaded; `field` names the offending field for format errors. */
export class TraceLoadError extends Error {
  override readonly name = 'TraceLoadError';
  constructor(
    message: string,
    readonly field: string | null,
  ) {
    super(message);
  }
}

export function loadTrace(request: DecodeRequest, onProgress: (p: LoadProgress) => void, signal?: AbortSignal): Promise<LoadedTrace> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./decode-worker.ts', import.meta.url), { type: 'module', name: 'warptrace-decode' });
    let settleHash: (hash: string | null) => void = () => undefined;
    const contentHash = new Promise<string | null>((settle) => (settleHash = settle));
    const finish = () => {
      worker.terminate();
      signal?.removeEventListener('abort', onAbort);
      settleHash(null);
    };
    const onAbort = () => {
      finish();
      reject(new DOMException('loading cancelled', 'AbortError'));
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort);
    worker.onmessage = (event: MessageEvent<DecodeResponse>) => {
      const m = event.data;
      if (m.kind === 'progress') onProgress(m);
      else if (m.kind === 'done') {
        // A file's worker stays until it has hashed the bytes (its 'hash' message).
        if (request.kind !== 'blob') finish();
        registerAnalysisCopy(m.trace, m.analysisCopy);
        resolve({ trace: m.trace, index: m.index, calibration: m.calibration, bytes: m.bytes, contentHash, timings: m.timings });
      } else if (m.kind === 'hash') {
        settleHash(m.contentHash);
        finish();
      } else {
        finish();
        reject(new TraceLoadError(m.message, m.field));
      }
    };
    worker.onerror = (event) => {
      finish();
      reject(new TraceLoadError(`the decoder failed: ${event.message || 'worker error'}`, null));
    };
    // The worker resolves relative URLs against its own script: resolve them against the page.
    worker.postMessage(request.kind === 'url' ? { ...request, url: new URL(request.url, document.baseURI).href } : request);
  });
}
