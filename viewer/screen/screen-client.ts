/**
 * The screen panel's side of its worker (screen-worker.ts): sends a trace's
 * columns once, copied ScreenClient.sliceBytes per page task, then asks for images and
 * brush queries. While the worker is
 * busy, image requests wait and only the newest one is sent (scrubbing the
 * slider sends no backlog); a request overtaken that way resolves with null.
 * A ray image's counts (one event of one row) are sent the first time one is
 * asked for, the same way, and stay in the worker for the trace.
 */
import { drawTargets, screenColumns, type MaybePositionedColumns, type ScreenColumns, type ScreenDraw } from '../../analysis/screen-columns.js';
import type { ScreenMetric } from '../../analysis/screen-metric.js';
import type { PixelRect } from '../../analysis/screen-query.js';
import { RAY_METRIC_EVENT, type RayScreenMetric } from '../../analysis/ray-events.js';
import type { RayEventProfile } from '../../shared-schema/ray-event-model.js';
import {
  SCREEN_COLUMNS,
  columnShape,
  type RayImageReply,
  type ScreenColumnArray,
  type ScreenColumnName,
  type ScreenColumnShape,
  type ScreenImageReply,
  type ScreenReply,
  type ScreenRequest,
  type ScreenView,
} from './screen-protocol.js';
import { afterQueuedTasks } from '../base/tasks.js';

/** A trace as the screen view reads it. */
export interface ScreenTrace {
  readonly warps: MaybePositionedColumns;
  readonly draws: readonly ScreenDraw[];
  readonly device: { readonly subgroupSize: number };
  readonly rayEvents?: RayEventProfile | null;
}

type ImageReply = ScreenImageReply | RayImageReply;

/** Columns of no warp: what the worker gets for a trace with ray events but no positions. */
function noWarps(warps: MaybePositionedColumns): ScreenColumns {
  return {
    count: 0,
    startNs: new Float64Array(0),
    durationNs: new Float32Array(0),
    smGroups: { sm: new Uint16Array(0), offsets: new Uint32Array(1) },
    draw: new Uint8Array(0),
    activeMask: new Uint32Array(0),
    activeMaskHi: warps.activeMaskHi === null ? null : new Uint32Array(0),
    stage: new Uint8Array(0),
    position: new Uint32Array(0),
  };
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
  private readonly inFlight = new Map<number, Pending<ImageReply | BrushResult>>();
  private queuedImage: Pending<ImageReply> | null = null;
  /** Resolves once the current trace's columns are all posted. */
  private sent: Promise<void> = Promise.resolve();
  /** Ray counts posted (or being posted) for the current trace, by key ("row:event"). */
  private raysSent = new Map<string, Promise<void>>();

  /** Sends the trace's columns when it has positions or ray events; false when it has neither (nothing to show). */
  setTrace(trace: ScreenTrace): boolean {
    if (trace === this.sentTrace) return true;
    const hasRays = (trace.rayEvents?.rows.length ?? 0) > 0;
    const cols = screenColumns(trace.warps) ?? (hasRays ? noWarps(trace.warps) : null);
    if (cols === null) return false;
    this.sentTrace = trace;
    this.raysSent = new Map();
    const traceId = ++this.traceId;
    const data: Record<ScreenColumnName, ScreenColumnArray | null> = {
      startNs: cols.startNs,
      durationNs: cols.durationNs,
      draw: cols.draw,
      activeMask: cols.activeMask,
      activeMaskHi: cols.activeMaskHi,
      stage: cols.stage,
      position: cols.position,
    };
    const shapes = {} as Record<ScreenColumnName, ScreenColumnShape | null>;
    for (const name of SCREEN_COLUMNS) shapes[name] = data[name] === null ? null : columnShape(data[name]);
    const targets = drawTargets(trace.draws);
    this.send({ kind: 'trace', traceId, count: cols.count, smGroups: cols.smGroups, columns: shapes, targets, subgroupSize: trace.device.subgroupSize });
    this.sent = this.sendSlices(traceId, data);
    return true;
  }

  /** Posts row `row`'s counts of `metric`'s event, a slice per page task, unless already posted for this trace. */
  private sendRayCounts(row: number, metric: RayScreenMetric): Promise<void> {
    const event = RAY_METRIC_EVENT[metric];
    const key = `${row}:${event}`;
    const known = this.raysSent.get(key);
    if (known !== undefined) return known;
    const source = this.sentTrace?.rayEvents?.rows[row];
    if (source === undefined) return Promise.reject(new Error(`no ray-event row ${row} in the trace`));
    const traceId = this.traceId;
    const counts = source.counts[event];
    const { launches, launchWidth, launchHeight, launchDepth, mixedSizes, grid } = source;
    const total = source.totals[event];
    this.send({ kind: 'ray-counts', traceId, key, source: { launches, launchWidth, launchHeight, launchDepth, mixedSizes, grid }, event, total, length: counts.length });
    const sending = (async () => {
      const step = Math.max(1, Math.floor(ScreenClient.sliceBytes / 4));
      for (let offset = 0; offset < counts.length; offset += step) {
        if (traceId !== this.traceId || this.worker === null) return;
        const slice = counts.slice(offset, offset + step);
        this.ensureWorker().postMessage({ kind: 'ray-slice', traceId, key, offset, data: slice } satisfies ScreenRequest, [slice.buffer]);
        await afterQueuedTasks();
      }
    })();
    this.raysSent.set(key, sending);
    return sending;
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
    const reply = await this.queueImage({ kind: 'image', seq: ++this.seq, traceId: this.traceId, view, metric });
    return reply === null || reply.kind !== 'image' ? null : reply;
  }

  /**
   * The heat map of the trace's ray-event row `row` (index into rayEvents.rows) for `metric`, on
   * launch layer `layer`; null when a newer image request overtook it. The row needs a grid.
   */
  async rayImage(row: number, metric: RayScreenMetric, layer = 0): Promise<RayImageReply | null> {
    await this.sent;
    const traceId = this.traceId;
    await this.sendRayCounts(row, metric);
    if (traceId !== this.traceId) return null;
    const key = `${row}:${RAY_METRIC_EVENT[metric]}`;
    const reply = await this.queueImage({ kind: 'ray-image', seq: ++this.seq, traceId, key, metric, layer });
    return reply === null || reply.kind !== 'ray-image' ? null : reply;
  }

  private queueImage(request: ScreenRequest): Promise<ImageReply | null> {
    return new Promise((resolve, reject) => {
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
      const done = (r: ImageReply | BrushResult | null) => resolve(r !== null && 'shownRow' in r ? r : { rows: new Uint32Array(0), shownRow: -1 });
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
    const busy = [...this.inFlight.values()].some((p) => p.request.kind === 'image' || p.request.kind === 'ray-image');
    if (busy || this.queuedImage === null) return;
    const next = this.queuedImage;
    this.queuedImage = null;
    this.inFlight.set(next.request.kind === 'image' || next.request.kind === 'ray-image' ? next.request.seq : -1, next as Pending<ImageReply | BrushResult>);
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
    else pending.resolve(reply.kind === 'brush' ? { rows: reply.rows, shownRow: reply.shownRow } : reply);
    this.pump();
  }
}
