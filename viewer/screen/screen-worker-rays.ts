/**
 * The screen worker's ray-event side: the counts the page sent (one event of
 * one row each, kept for the trace), and their heat maps at the launch's size
 * (analysis/ray-events.ts, ray-screen.ts). The last heat grid is kept, so
 * asking again for the same row and event only colours it.
 */
import { rayEventStat, rayHeatGrid, type RayEventStat, type RayHeatGrid } from '../../analysis/ray-events.js';
import { rayHeatImage } from '../../analysis/ray-screen.js';
import type { RayImageReply, ScreenRequest } from './screen-protocol.js';

interface RayCounts {
  readonly message: Extract<ScreenRequest, { kind: 'ray-counts' }>;
  readonly counts: Uint32Array;
  /** Made with the first image, once every slice is in. */
  stat: RayEventStat | null;
}

export class RayStore {
  private traceId = -1;
  private readonly counts = new Map<string, RayCounts>();
  private lastHeat: { key: string; layer: number; heat: RayHeatGrid } | null = null;

  /** A new trace: the counts of the last one go. */
  reset(traceId: number): void {
    this.traceId = traceId;
    this.counts.clear();
    this.lastHeat = null;
  }

  receive(m: Extract<ScreenRequest, { kind: 'ray-counts' }>): void {
    if (m.traceId !== this.traceId) throw new Error(`screen worker: ray counts for trace ${m.traceId}, not the one loaded`);
    this.counts.set(m.key, { message: m, counts: new Uint32Array(m.length), stat: null });
  }

  receiveSlice(m: Extract<ScreenRequest, { kind: 'ray-slice' }>): void {
    const entry = m.traceId === this.traceId ? this.counts.get(m.key) : undefined;
    if (entry === undefined) throw new Error(`screen worker: a slice of ray counts ${m.key} not being received`);
    entry.counts.set(m.data, m.offset);
  }

  /** The heat map of `key`'s counts on `layer`, coloured for `metric`; the reply's rgba is to be transferred. */
  image(m: Extract<ScreenRequest, { kind: 'ray-image' }>, t0: number): RayImageReply {
    const entry = m.traceId === this.traceId ? this.counts.get(m.key) : undefined;
    if (entry === undefined) throw new Error(`screen worker: ray counts ${m.key} were not sent`);
    let heat = this.lastHeat !== null && this.lastHeat.key === m.key && this.lastHeat.layer === m.layer ? this.lastHeat.heat : null;
    if (heat === null) {
      heat = rayHeatGrid(entry.message.source, entry.counts, m.layer);
      if (heat === null) throw new Error(`screen worker: ray counts ${m.key} make no picture (no grid, no launch, or no layer ${m.layer})`);
      this.lastHeat = { key: m.key, layer: m.layer, heat };
    }
    const { source, event, total } = entry.message;
    entry.stat ??= rayEventStat(source, event, entry.counts, total);
    const image = rayHeatImage(m.metric, heat);
    return {
      kind: 'ray-image',
      seq: m.seq,
      width: image.width,
      height: image.height,
      rgba: image.rgba,
      legend: image.legend,
      cellsWide: heat.width,
      cellsHigh: heat.height,
      scale: heat.scale,
      launches: heat.launches,
      stat: entry.stat,
      ms: performance.now() - t0,
    };
  }
}
