/**
 * Geometry of the draw track: one bar per draw over its warps' span, and a
 * thin line under it for its GPU timestamp bounds when it has them. x in ns
 * relative to `originNs`. With regions, their bars fill the top rows (one
 * row per depth); draws in the overflow row are drawn translucent, so where
 * many pile up the row reads as density. A draw that ran untraced (no
 * warps: its span is its timestamps) is a hollow grey bar, its reason in
 * the tooltip.
 */
import type { Trace } from '../../shared-schema/index.js';
import { packRgba } from './colors.js';
import { regionBarsInWindow, type DrawLayout } from './draw-layout.js';
import type { InstanceWriter } from './instances.js';

const KIND_RGB: Record<string, readonly [number, number]> = {
  draw: [0x56627a, 0x66738d],
  dispatch: [0x3f6a86, 0x4a7a98],
  'trace-rays': [0x7a6a3f, 0x8a7a4a],
};
const SELECTED = packRgba(0x7fb2ff);
const TIMESTAMP = packRgba(0xc9cedb, 200);
const DIMMED = packRgba(0x30343d);
const OVERFLOW = packRgba(0x8a94aa, 70);
const REGION_RGB = [0x4b3f72, 0x3d5a55, 0x5a4a3d] as const;
const UNTRACED_FILL = packRgba(0x8a8f99, 60);
const UNTRACED_EDGE = packRgba(0x8a8f99, 220);

export interface DrawTrackRequest {
  readonly trace: Trace;
  readonly layout: DrawLayout;
  readonly draws: readonly number[];
  readonly originNs: number;
  readonly y: number;
  readonly rowHeight: number;
  readonly selectedDraw: number;
  /** Per draw, 1 for the find box's matches: the others are dimmed; null: none dimmed. */
  readonly matchedDraws?: Uint8Array | null;
  /** The time window the geometry covers (for region bars), ns. */
  readonly windowNs?: readonly [number, number];
}

export function buildDrawTrack(req: DrawTrackRequest, out: InstanceWriter): void {
  out.reset();
  const { trace, layout, originNs, y, rowHeight, selectedDraw } = req;
  if (layout.regionRows > 0) {
    const [t0, t1] = req.windowNs ?? [-Infinity, Infinity];
    for (const [r, row] of regionBarsInWindow(layout, t0, t1)) {
      const top = y + 3 + row * rowHeight;
      const shade = REGION_RGB[row % REGION_RGB.length]!;
      out.push(layout.tree.spans[2 * r]! - originNs, layout.tree.spans[2 * r + 1]! - originNs, top, top + rowHeight - 4, packRgba(r % 2 === 0 ? shade : shade + 0x0a0a0a));
    }
  }
  for (const d of req.draws) {
    const s = layout.spans[2 * d]! - originNs;
    const e = layout.spans[2 * d + 1]! - originNs;
    const top = y + 3 + layout.row[d]! * rowHeight;
    const info = trace.draws[d]!;
    const shades = KIND_RGB[info.kind] ?? KIND_RGB['draw']!;
    const overflow = layout.row[d] === layout.overflowRow;
    const bottom = top + rowHeight - 4;
    if (info.untraced != null && !overflow) {
      // Hollow: a faint fill between two edges, so it never reads as a traced draw's solid bar.
      out.push(s, e, top, bottom, d === selectedDraw ? SELECTED : UNTRACED_FILL);
      out.push(s, e, top, top + 1, UNTRACED_EDGE);
      out.push(s, e, bottom - 1, bottom, UNTRACED_EDGE);
      continue;
    }
    const unmatched = req.matchedDraws != null && req.matchedDraws[d] !== 1;
    const color = d === selectedDraw ? SELECTED : overflow ? OVERFLOW : selectedDraw >= 0 || unmatched ? DIMMED : packRgba(shades[d % 2]!);
    out.push(s, e, top, bottom, color);
    if (info.gpuBeginNs !== null && info.gpuEndNs !== null) {
      out.push(info.gpuBeginNs - originNs, info.gpuEndNs - originNs, top + rowHeight - 3, top + rowHeight - 2, TIMESTAMP);
    }
  }
}
