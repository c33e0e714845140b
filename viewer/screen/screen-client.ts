/**
 * The screen panel's side of its worker (screen-worker.ts): sends a trace's
 * columns once, copied ScreenClient.sliceBytes per page task, then asks for images and
 * brush queries. While the worker is
 * busy, image requests wait and only the newest one is sent (scrubbing the
 * slider sends no backlog); a request overtaken that way resolves with null.
 */
import { drawTargets, screenColumns, type MaybePositionedColumns, type ScreenDraw } from '../../analysis/screen-columns.js';
import type { ScreenMetric } from '../../analysis/screen-metric.js';
import type { PixelRect } from '../../analysis/screen-query.js';
import { SCREEN_COLUMNS, columnShape, type ScreenColumnArray, type ScreenColumnName, type ScreenColumnShape, type ScreenImageReply, type ScreenReply, type ScreenRequest, type ScreenView } from './screen-protocol.js';
import { afterQueuedTasks } from '../base/tasks.js';

/** A trace as the screen view reads it. */
export interface ScreenTrace {
  readonly warps: MaybePositionedColumns;
  readonly draws: readonly ScreenDraw[];
  readonly device: { readonly subgroupSize: number };
}

export interface BrushResult {
  readonly rows: Uint32Array;
  readonly shownRow: number;
}

interface Pending<T> {
  readonly request: ScreenRequest;
  readonly resolve: (value: T | null) => void;
  readonly reject: (error: Error) => void;
}

export class ScreenClient {
  /** Bytes of a column copied per page task (2 MiB: a few ms of memcpy on a slow machine); tests lower it. */
  static sliceBytes = 2 << 20;
  private worker: Worker | null = null;
  private traceId = 0;
  private sentTrace: ScreenTrace | null = null;
  private seq = 0;
  /** Requests sent, by seq. */
  private readonly inFlight = new Map<number, Pending<ScreenImageReply | BrushResult>>();
  private queuedImage: Pending<ScreenImageReply> | null = null;
  /** Resolves once the current trace's columns are all posted. */
  private sent: Promise<void> = Promise.resolve();

  /** Sends the trace's columns when it has positions; false when it has none (nothing to show). */
  setTrace(trace: ScreenTrace): boolean {
    if (trace === this.sentTrace) return true;
    const cols = screenColumns(trace.warps);
    if (cols === null) return false;
    this.sentTrace = trace;
    const traceId = ++this.traceId;
    const data: Record<ScreenColumnName, ScreenColumnArray | null> = {
      startNs: cols.startNs,
      durationNs: cols.durationNs,
      draw: cols.draw,
      activeMask: cols.activeMask,
      activeMaskHi: cols.activeMaskHi,
      position: cols.position,
    };
    const shapes = {} as Record<ScreenColumnName, ScreenColumnShape | null>;
    for (const name of SCREEN_COLUMNS) shapes[name] = data[name] === null ? null : columnShape(data[name]);
    const targets = drawTargets(trace.draws);
    this.send({ kind: 'trace', traceId, count: cols.count, smGroups: cols.smGroups, columns: shapes, targets, subgroupSize: trace.device.subgroupSize });
    this.sent = this.sendSlices(traceId, data);
    return true;
  }

  private async sendSlices(traceId: number, data: Record<ScreenColumnName, ScreenColumnArray | null>): Promise<void> {
    for (const name of SCREEN_COLUMNS) {
      const column = data[name];
      if (column === null) continue;
      const step = Math.max(1, Math.floor(ScreenClient.sliceBytes / column.BYTES_PER_ELEMENT));
      for (let offset = 0; offset < column.length; offset += step) {
        if (traceId !== this.traceId || this.worker === null) return; // another trace (or none) since
        const slice = column.slice(offset, offset + step);
        this.ensureWorker().postMessage({ kind: 'slice', traceId, column: name, offset, data: slice } satisfies ScreenRequest, [slice.buffer]);
        await afterQueuedTasks();
      }
    }
  }

  /** The image of `view` coloured by `metric`; null when a newer image request overtook it. */
  async image(view: ScreenView, metric: ScreenMetric): Promise<ScreenImageReply | null> {
    await this.sent;
    return new Promise((resolve, reject) => {
      const request: ScreenRequest = { kind: 'image', seq: ++this.seq, traceId: this.traceId, view, metric };
      this.queuedImage?.resolve(null);
      this.queuedImage = { request, resolve, reject };
      this.pump();
    });
  }

  /** Rows under `rect` (image pixels) among the warps `view` shows, ascending, and the row its top-left pixel shows (-1: none). */
  async brush(view: ScreenView, rect: PixelRect): Promise<BrushResult> {
    await this.sent;
    return new Promise((resolve, reject) => {
      const request: ScreenRequest = { kind: 'brush', seq: ++this.seq, traceId: this.traceId, view, rect };
      const done = (r: ScreenImageReply | BrushResult | null) => resolve(r !== null && 'shownRow' in r ? r : { rows: new Uint32Array(0), shownRow: -1 });
      this.inFlight.set(request.seq, { request, resolve: done, reject });
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
    this.inFlight.set(next.request.kind === 'image' ? next.request.seq : -1, next as Pending<ScreenImageReply | BrushResult>);
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
    else pending.resolve(reply.kind === 'image' ? reply : { rows: reply.rows, shownRow: reply.shownRow });
    this.pump();
  }
}
