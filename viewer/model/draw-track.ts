/**
 * Geometry of the draw track: one bar per draw over its warps' span, and a
 * thin line under it for its GPU timestamp bounds when it has them. x in ns
 * relative to `originNs`.
 */
import type { Trace } from '../../shared-schema/index.js';
import { packRgba } from './colors.js';
import type { DrawLayout } from './draw-layout.js';
import type { InstanceWriter } from './instances.js';

const KIND_RGB: Record<string, readonly [number, number]> = {
  draw: [0x56627a, 0x66738d],
  dispatch: [0x3f6a86, 0x4a7a98],
  'trace-rays': [0x7a6a3f, 0x8a7a4a],
};
const SELECTED = packRgba(0x7fb2ff);
const TIMESTAMP = packRgba(0xc9cedb, 200);
const DIMMED = packRgba(0x30343d);

export interface DrawTrackRequest {
  readonly trace: Trace;
  readonly layout: DrawLayout;
  readonly draws: readonly number[];
  readonly originNs: number;
  readonly y: number;
  readonly rowHeight: number;
  readonly selectedDraw: number;
}

export function buildDrawTrack(req: DrawTrackRequest, out: InstanceWriter): void {
  out.reset();
  const { trace, layout, originNs, y, rowHeight, selectedDraw } = req;
  for (const d of req.draws) {
    const s = layout.spans[2 * d]! - originNs;
    const e = layout.spans[2 * d + 1]! - originNs;
    const top = y + 3 + layout.row[d]! * rowHeight;
    const info = trace.draws[d]!;
    const shades = KIND_RGB[info.kind] ?? KIND_RGB['draw']!;
    const color = d === selectedDraw ? SELECTED : selectedDraw >= 0 ? DIMMED : packRgba(shades[d % 2]!);
    out.push(s, e, top, top + rowHeight - 4, color);
    if (info.gpuBeginNs !== null && info.gpuEndNs !== null) {
      out.push(info.gpuBeginNs - originNs, info.gpuEndNs - originNs, top + rowHeight - 3, top + rowHeight - 2, TIMESTAMP);
    }
  }
}
