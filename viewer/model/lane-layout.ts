/**
 * Vertical layout of the SM lanes: which SMs get a lane, how tall each is,
 * and the inverse (y → lane and warp-slot row) for hit testing.
 */
import { UNKNOWN_SLOT, UNKNOWN_SM, type Trace } from '../../shared-schema/index.js';
import type { LaneIndex, LaneInfo } from './lane-index.js';

export interface LaneLayoutOptions {
  /** Show a lane for every SM of the device, not only SMs that ran (visible) warps. */
  readonly showAllSms: boolean;
  /** SM ids whose lanes show one row per warp slot. */
  readonly expandedSms: ReadonlySet<number>;
  /** Bit s set: stage s is hidden (its warps are not drawn; lanes left empty are hidden unless showAllSms). */
  readonly hiddenStages: number;
  /** Height of a collapsed lane (its occupancy chart), px. */
  readonly laneHeight: number;
  /** Height of one warp-slot row in an expanded lane, px. */
  readonly slotRowHeight: number;
}

export const DEFAULT_LANE_OPTIONS: LaneLayoutOptions = {
  showAllSms: false,
  expandedSms: new Set<number>(),
  hiddenStages: 0,
  laneHeight: 28,
  slotRowHeight: 12,
};

export interface LaneRow {
  readonly sm: number;
  /** Index into LaneIndex.lanes (the trace's SM group), or -1 for an SM that ran no warps. */
  readonly group: number;
  /** Top of the lane, px from the top of the lane area. */
  readonly y: number;
  readonly height: number;
  /** Height of the occupancy chart at the top of the lane. */
  readonly headerHeight: number;
  readonly expanded: boolean;
  /** Warp-slot rows below the header when expanded (slots in use, then the packed rows of unknown-slot warps). */
  readonly slotRows: number;
  readonly slotRowHeight: number;
  /** Slot count of the lane: slot s < slotCount sits in row s; unknown-slot warps in rows slotCount and up. */
  readonly slotCount: number;
}

export interface LaneLayout {
  readonly rows: readonly LaneRow[];
  readonly height: number;
}

export function buildLaneLayout(trace: Trace, index: LaneIndex, options: LaneLayoutOptions): LaneLayout {
  const visibleMask = ~options.hiddenStages;
  const groupOfSm = new Map<number, number>();
  index.lanes.forEach((lane, g) => groupOfSm.set(lane.sm, g));
  const sms: number[] = [];
  if (options.showAllSms) {
    const smCount = trace.device.smCount ?? 0;
    for (let s = 0; s < smCount; s++) sms.push(s);
    for (const lane of index.lanes) if (lane.sm >= smCount) sms.push(lane.sm);
  } else {
    for (const lane of index.lanes) if ((lane.stageMask & visibleMask) !== 0) sms.push(lane.sm);
  }
  const rows: LaneRow[] = [];
  let y = 0;
  for (const sm of sms) {
    const group = groupOfSm.get(sm) ?? -1;
    const lane = group >= 0 ? index.lanes[group] : undefined;
    const slotCount = lane?.slotCount ?? 0;
    const slotRows = lane === undefined ? 0 : slotCount + lane.unknownRows;
    const expanded = options.expandedSms.has(sm) && slotRows > 0;
    const height = options.laneHeight + (expanded ? slotRows * options.slotRowHeight + 4 : 0);
    rows.push({
      sm,
      group,
      y,
      height,
      headerHeight: options.laneHeight,
      expanded,
      slotRows: expanded ? slotRows : 0,
      slotRowHeight: options.slotRowHeight,
      slotCount,
    });
    y += height;
  }
  return { rows, height: y };
}

/** Row (within the expanded part of a lane) holding warp `i`, of slot `slot`. */
export function slotRowOf(row: LaneRow, lane: LaneInfo, slot: number, i: number): number {
  return slot === UNKNOWN_SLOT ? row.slotCount + (lane.packedRow?.[i - lane.rowBegin] ?? 0) : slot;
}

/** Warp slot shown in slot row `r`: UNKNOWN_SLOT for the packed rows of unknown-slot warps. */
export function slotOfRow(row: LaneRow, r: number): number {
  return r >= row.slotCount ? UNKNOWN_SLOT : r;
}

/** Index among the packed unknown-slot rows of slot row `r`, or -1 for a real slot. */
export function packedRowOf(row: LaneRow, r: number): number {
  return r >= row.slotCount ? r - row.slotCount : -1;
}

export interface LaneHit {
  /** Index into layout.rows. */
  readonly lane: number;
  /** Slot row under the point, or -1 over the occupancy header. */
  readonly slotRow: number;
}

/** Lane (and slot row) at y, px from the top of the lane area; null below the last lane. */
export function laneAtY(layout: LaneLayout, y: number): LaneHit | null {
  const rows = layout.rows;
  let lo = 0;
  let hi = rows.length - 1;
  if (hi < 0 || y < 0 || y >= layout.height) return null;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (rows[mid]!.y <= y) lo = mid;
    else hi = mid - 1;
  }
  const row = rows[lo]!;
  const inLane = y - row.y;
  if (!row.expanded || inLane < row.headerHeight) return { lane: lo, slotRow: -1 };
  const r = Math.floor((inLane - row.headerHeight) / row.slotRowHeight);
  return { lane: lo, slotRow: r < row.slotRows ? r : -1 };
}

/** Lanes overlapping [y0, y1): index range [first, last). */
export function lanesInRange(layout: LaneLayout, y0: number, y1: number): [number, number] {
  const rows = layout.rows;
  let first = 0;
  while (first < rows.length && rows[first]!.y + rows[first]!.height <= y0) first++;
  let last = first;
  while (last < rows.length && rows[last]!.y < y1) last++;
  return [first, last];
}

/** Lane label, e.g. "SM 48" or "SM ?" for warps of an unknown SM. */
export function laneLabel(sm: number): string {
  return sm === UNKNOWN_SM ? 'SM ?' : `SM ${sm}`;
}
