/**
 * The screen panel's side of its worker (screen-worker.ts): sends a trace's
 * columns once, then asks for images and brush queries. While the worker is
 * busy, image requests wait and only the newest one is sent (scrubbing the
 * slider sends no backlog); a request overtaken that way resolves with null.
 */
import { drawTargets, screenColumns, type MaybePositionedColumns, type ScreenDraw } from '../../analysis/screen-columns.js';
import type { ScreenMetric } from '../../analysis/screen-metric.js';
import type { PixelRect } from '../../analysis/screen-query.js';
import type { ScreenImageReply, ScreenReply, ScreenRequest, ScreenView } from './screen-protocol.js';

/** A trace as the screen view reads it. */
export interface ScreenTrace {
  readonly warps: MaybePositionedColumns;
  readonly draws: readonly ScreenDraw[];
  readonly device: { readonly subgroupSize: number };
}

interface Pending<T> {
  readonly request: ScreenRequest;
  readonly resolve: (value: T | null) => void;
  readonly reject: (error: Error) => void;
}

export class ScreenClient {
  private worker: Worker | null = null;
  private traceId = 0;
  private sentTrace: ScreenTrace | null = null;
  private seq = 0;
  /** Requests sent, by seq. */
  private readonly inFlight = new Map<number, Pending<ScreenImageReply | Uint32Array>>();
  private queuedImage: Pending<ScreenImageReply> | null = null;

  /** Sends the trace's columns when it has positions; false when it has none (nothing to show). */
  setTrace(trace: ScreenTrace): boolean {
    if (trace === this.sentTrace) return true;
    const cols = screenColumns(trace.warps);
    if (cols === null) return false;
    this.sentTrace = trace;
    this.traceId++;
    this.send({ kind: 'trace', traceId: this.traceId, columns: cols, targets: drawTargets(trace.draws), subgroupSize: trace.device.subgroupSize });
    return true;
  }

  /** The image of `view` coloured by `metric`; null when a newer image request overtook it. */
  image(view: ScreenView, metric: ScreenMetric): Promise<ScreenImageReply | null> {
    return new Promise((resolve, reject) => {
      const request: ScreenRequest = { kind: 'image', seq: ++this.seq, traceId: this.traceId, view, metric };
      this.queuedImage?.resolve(null);
      this.queuedImage = { request, resolve, reject };
      this.pump();
    });
  }

  /** Rows under `rect` (image pixels) among the warps `view` shows, ascending. */
  brush(view: ScreenView, rect: PixelRect): Promise<Uint32Array> {
    return new Promise((resolve, reject) => {
      const request: ScreenRequest = { kind: 'brush', seq: ++this.seq, traceId: this.traceId, view, rect };
      this.inFlight.set(request.seq, { request, resolve: (rows) => resolve(rows instanceof Uint32Array ? rows : new Uint32Array(0)), reject });
      this.send(request);
    });
  }

  destroy(): void {
    this.worker?.terminate();
    this.worker = null;
    this.sentTrace = null;
    for (const p of this.inFlight.values()) p.reject(new Error('screen worker stopped'));
    this.inFlight.clear();
    this.queuedImage?.resolve(null);
    this.queuedImage = null;
  }

  /** Sends the queued image request once no other image is being made. */
  private pump(): void {
    const busy = [...this.inFlight.values()].some((p) => p.request.kind === 'image');
    if (busy || this.queuedImage === null) return;
    const next = this.queuedImage;
    this.queuedImage = null;
    this.inFlight.set(next.request.kind === 'trace' ? -1 : next.request.seq, next as Pending<ScreenImageReply | Uint32Array>);
    this.send(next.request);
  }

  private send(request: ScreenRequest): void {
    this.ensureWorker().postMessage(request);
  }

  private ensureWorker(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(new URL('./screen-worker.ts', import.meta.url), { type: 'module', name: 'warptrace-screen' });
    worker.onmessage = (event: MessageEvent<ScreenReply>) => this.onReply(event.data);
    worker.onerror = (event) => {
      const error = new Error(`the screen worker failed: ${event.message || 'worker error'}`);
      for (const p of this.inFlight.values()) p.reject(error);
      this.inFlight.clear();
    };
    this.worker = worker;
    return worker;
  }

  private onReply(reply: ScreenReply): void {
    const pending = this.inFlight.get(reply.seq);
    if (pending === undefined) return;
    this.inFlight.delete(reply.seq);
    if (reply.kind === 'error') pending.reject(new Error(reply.message));
    else pending.resolve(reply.kind === 'image' ? reply : reply.rows);
    this.pump();
  }
}
