/**
 * Screen worker: rasterizes the screen panel's images and answers its brush
 * queries (analysis/screen-*.ts) off the page's thread. It keeps the last
 * trace's columns, the execution order of the last draw set and the metric
 * values of the last metric, so scrubbing the time slider only repaints.
 * Ray metrics' heat maps come from the counts the page sent (screen-worker-rays.ts).
 */
import { imageSize, type ScreenColumns, type TargetSize } from '../../analysis/screen-columns.js';
import { metricValues, type ScreenMetric } from '../../analysis/screen-metric.js';
import { orderSpan, screenOrder, type ScreenOrder } from '../../analysis/screen-order.js';
import { rowAtPixel, rowsInRect } from '../../analysis/screen-query.js';
import { screenImage, type Raster } from '../../analysis/screen-raster.js';
import { footprintSpread, spreadNotes } from '../../analysis/screen-spread.js';
import { RayStore } from './screen-worker-rays.js';
import { SCREEN_COLUMNS, allocScreenColumn, type ScreenColumnArray, type ScreenColumnName, type ScreenReply, type ScreenRequest, type ScreenView } from './screen-protocol.js';

const post = (message: ScreenReply, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(message, transfer);

interface Loaded {
  readonly traceId: number;
  readonly cols: ScreenColumns;
  readonly draws: readonly { readonly target: TargetSize | null }[];
  readonly subgroupSize: number;
}

interface OrderCache {
  readonly key: string;
  readonly order: ScreenOrder;
  readonly size: TargetSize;
  readonly span: { startNs: number; endNs: number } | null;
  /** Stages whose lanes fill little of their footprints (analysis/screen-spread.ts), over the whole order. */
  readonly notes: readonly string[];
  values: { metric: ScreenMetric; values: Float64Array } | null;
  /** The last image's raster: a later cutoff paints only the warps started since (the play button, scrubbing forward). */
  raster: Raster | null;
}

let loaded: Loaded | null = null;
let cache: OrderCache | null = null;
/** The trace being received: its columns fill as slices arrive. */
let receiving: { traceId: number; columns: Map<ScreenColumnName, ScreenColumnArray>; finish: () => Loaded } | null = null;
const rays = new RayStore();

function receive(m: Extract<ScreenRequest, { kind: 'trace' }>): void {
  const columns = new Map<ScreenColumnName, ScreenColumnArray>();
  for (const name of SCREEN_COLUMNS) {
    const shape = m.columns[name];
    if (shape !== null) columns.set(name, allocScreenColumn(shape, m.count));
  }
  const need = <T extends ScreenColumnArray>(name: ScreenColumnName, is: (a: ScreenColumnArray) => a is T): T => {
    const a = columns.get(name);
    if (a === undefined || !is(a)) throw new Error(`screen worker: column ${name} missing or of the wrong type`);
    return a;
  };
  const isF64 = (a: ScreenColumnArray): a is Float64Array => a instanceof Float64Array;
  const isU8 = (a: ScreenColumnArray): a is Uint8Array => a instanceof Uint8Array;
  const isF32 = (a: ScreenColumnArray): a is Float32Array => a instanceof Float32Array;
  const isU32 = (a: ScreenColumnArray): a is Uint32Array => a instanceof Uint32Array;
  const isUint = (a: ScreenColumnArray): a is Uint8Array | Uint16Array | Uint32Array => a instanceof Uint8Array || a instanceof Uint16Array || isU32(a);
  const finish = (): Loaded => ({
    traceId: m.traceId,
    cols: {
      count: m.count,
      startNs: need('startNs', isF64),
      durationNs: need('durationNs', isF32),
      smGroups: m.smGroups,
      draw: need('draw', isUint),
      activeMask: need('activeMask', isUint),
      activeMaskHi: columns.has('activeMaskHi') ? need('activeMaskHi', isU32) : null,
      stage: need('stage', isU8),
      position: need('position', isU32),
    },
    draws: m.targets.map((target) => ({ target })),
    subgroupSize: m.subgroupSize,
  });
  receiving = { traceId: m.traceId, columns, finish };
  loaded = null;
  cache = null;
  rays.reset(m.traceId);
}

function maskKey(mask: Uint8Array | null): string {
  if (mask === null) return 'all';
  let key = '';
  for (let d = 0; d < mask.length; d++) if (mask[d] === 1) key += `${d},`;
  return key;
}

function orderFor(l: Loaded, view: ScreenView): OrderCache {
  const key = `${maskKey(view.draws)}/${maskKey(view.stages)}`;
  if (cache !== null && cache.key === key) return cache;
  const order = screenOrder(l.cols, view.draws, view.stages);
  const notes = spreadNotes(footprintSpread(l.cols, order.rows));
  cache = { key, order, size: imageSize(l.draws, l.cols, order.rows), span: orderSpan(order), notes, values: null, raster: null };
  return cache;
}

function loadedFor(traceId: number): Loaded {
  if (receiving !== null && receiving.traceId === traceId) {
    loaded = receiving.finish();
    receiving = null;
  }
  if (loaded === null || loaded.traceId !== traceId) throw new Error(`screen worker: trace ${traceId} was not sent`);
  return loaded;
}

self.onmessage = (event: MessageEvent<ScreenRequest>) => {
  const m = event.data;
  const seq = m.kind === 'image' || m.kind === 'brush' || m.kind === 'ray-image' ? m.seq : -1;
  try {
    if (m.kind === 'trace') receive(m);
    else if (m.kind === 'ray-counts') rays.receive(m);
    else if (m.kind === 'ray-slice') rays.receiveSlice(m);
    else if (m.kind === 'ray-image') {
      const reply = rays.image(m, performance.now());
      post(reply, [reply.rgba.buffer]);
    }
    else if (m.kind === 'slice') {
      const column = receiving !== null && receiving.traceId === m.traceId ? receiving.columns.get(m.column) : undefined;
      if (column === undefined) throw new Error(`screen worker: a slice of ${m.column} for a trace not being received`);
      column.set(m.data, m.offset);
    } else if (m.kind === 'image') {
      const t0 = performance.now();
      const l = loadedFor(m.traceId);
      const c = orderFor(l, m.view);
      if (c.values === null || c.values.metric !== m.metric) c.values = { metric: m.metric, values: metricValues(l.cols, c.order, m.metric, l.subgroupSize) };
      const filter = { untilNs: m.view.untilNs, window: m.view.window };
      const image = screenImage(l.cols, c.order, { ...filter, metric: m.metric, size: c.size, subgroupSize: l.subgroupSize, values: c.values.values, resume: c.raster });
      c.raster = image.raster;
      const rgba = image.rgba as Uint8ClampedArray<ArrayBuffer>;
      post(
        { kind: 'image', seq, width: image.width, height: image.height, rgba, legend: image.legend, shown: image.shown, positioned: c.order.rows.length, span: c.span, notes: c.notes, ms: performance.now() - t0 },
        [rgba.buffer],
      );
    } else {
      const l = loadedFor(m.traceId);
      const c = orderFor(l, m.view);
      const filter = { untilNs: m.view.untilNs, window: m.view.window };
      const rows = rowsInRect(l.cols, c.order, m.rect, filter).slice();
      post({ kind: 'brush', seq, rows, shownRow: rowAtPixel(l.cols, c.order, m.rect.x, m.rect.y, filter) }, [rows.buffer]);
    }
  } catch (e) {
    post({ kind: 'error', seq, message: e instanceof Error ? e.message : String(e) });
  }
};
