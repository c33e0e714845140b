/**
 * Ray-event sections as a GPU and a capture host leave them (README "Ray
 * events", ray-event-layout.ts), for tests and synthetic captures: launches
 * run pixel by pixel over a described scene, their events added into the
 * table the way the instrumented shaders do (the launch binned by
 * rayCellGrid, pixel (x, y, z) into cell ((z × ch) + (y >> scale)) × cw +
 * (x >> scale)), then written as the metadata's `rayEvents` key and the
 * section's bytes (RawCapture.rayEventSection).
 */
import { RAY_CELL_BYTES, RAY_CELL_WORDS, RAY_ROW_HEADER_WORDS, RayRowHeaderWord, rayCellGrid } from './ray-event-layout.js';
import { RAY_EVENTS, type RayEvent } from './ray-event-model.js';
import type { RawCapture } from './wtraw-writer.js';

/** LaunchSizeKHR of one trace-rays launch. */
export interface RayLaunchSize {
  readonly width: number;
  readonly height: number;
  readonly depth: number;
}

/** What one launch pixel's invocations did (events left out: 0). */
export type RayPixelEvents = Partial<Readonly<Record<RayEvent, number>>>;

/** The events of pixel (x, y, z) of a launch; `launch` is its index in the row's launches. */
export type RayScene = (x: number, y: number, z: number, launch: number) => RayPixelEvents;

export interface SyntheticRayRow {
  readonly draw: number;
  /** The launches that ran with this row, in order (one per captured frame, say). */
  readonly launches: readonly RayLaunchSize[];
  readonly scene: RayScene;
}

export interface SyntheticRayCapture {
  readonly cellsPerRow: number;
  /** In the order the host lists them (the section's order). */
  readonly rows: readonly SyntheticRayRow[];
  /** Added to the events of launches too large for a row (the GPU's DROPPED word also counts rows past the table). */
  readonly extraDropped?: number;
  readonly uncountedTraversals?: number;
  readonly unprofiledLaunches?: number;
}

const U32_MAX = 0xffffffff;

/** One row of the GPU table after its launches ran: header words and cellsPerRow cells. */
function runRow(row: SyntheticRayRow, cellsPerRow: number): { header: Uint32Array; cells: Uint32Array; dropped: number } {
  const header = new Uint32Array(RAY_ROW_HEADER_WORDS);
  header.set([U32_MAX, U32_MAX, U32_MAX], RayRowHeaderWord.MIN_WIDTH);
  const cells = new Uint32Array(cellsPerRow * RAY_CELL_WORDS);
  let dropped = 0;
  row.launches.forEach((size, launch) => {
    const grid = rayCellGrid(size.width, size.height, size.depth, cellsPerRow);
    if (grid !== null) {
      // The invocation at launch id (0, 0, 0) counts the launch and folds its size in.
      header[RayRowHeaderWord.LAUNCHES] = (header[RayRowHeaderWord.LAUNCHES] as number) + 1;
      const dims = [size.width, size.height, size.depth];
      dims.forEach((v, k) => {
        header[RayRowHeaderWord.MAX_WIDTH + k] = Math.max(header[RayRowHeaderWord.MAX_WIDTH + k] as number, v);
        header[RayRowHeaderWord.MIN_WIDTH + k] = Math.min(header[RayRowHeaderWord.MIN_WIDTH + k] as number, v);
      });
    }
    for (let z = 0; z < size.depth; z++) {
      for (let y = 0; y < size.height; y++) {
        for (let x = 0; x < size.width; x++) {
          const events = row.scene(x, y, z, launch);
          if (grid === null) {
            // Too large for a row even at the largest scale: every event into DROPPED.
            for (const event of RAY_EVENTS) dropped += events[event] ?? 0;
            continue;
          }
          const cell = (z * grid.height + (y >> grid.scale)) * grid.width + (x >> grid.scale);
          RAY_EVENTS.forEach((event, w) => {
            cells[cell * RAY_CELL_WORDS + w] = ((cells[cell * RAY_CELL_WORDS + w] as number) + (events[event] ?? 0)) >>> 0;
          });
        }
      }
    }
  });
  return { header, cells, dropped };
}

/** Cells the host writes for a row: its launches' grid, every cell when their sizes differ, none without a launch. */
function writtenCells(header: Uint32Array, cellsPerRow: number): number {
  if (header[RayRowHeaderWord.LAUNCHES] === 0) return 0;
  const max = [0, 1, 2].map((k) => header[RayRowHeaderWord.MAX_WIDTH + k] as number);
  const min = [0, 1, 2].map((k) => header[RayRowHeaderWord.MIN_WIDTH + k] as number);
  if (max.some((v, k) => v !== min[k])) return cellsPerRow;
  return rayCellGrid(max[0] as number, max[1] as number, max[2] as number, cellsPerRow)?.cells ?? 0;
}

/** The metadata's `rayEvents` key and the section's bytes. */
export function rayEventSectionOf(input: SyntheticRayCapture): { rayEvents: object; section: Uint8Array } {
  const ran = input.rows.map((row) => runRow(row, input.cellsPerRow));
  const written = ran.map((r) => writtenCells(r.header, input.cellsPerRow));
  const bytes = written.reduce((sum, cells) => sum + RAY_ROW_HEADER_WORDS * 4 + cells * RAY_CELL_BYTES, 0);
  const section = new Uint8Array(bytes);
  const view = new DataView(section.buffer);
  let at = 0;
  ran.forEach((r, i) => {
    for (const v of r.header) {
      view.setUint32(at, v, true);
      at += 4;
    }
    const words = (written[i] as number) * RAY_CELL_WORDS;
    for (let k = 0; k < words; k++, at += 4) view.setUint32(at, r.cells[k] as number, true);
  });
  const rayEvents = {
    cellsPerRow: input.cellsPerRow,
    dropped: ran.reduce((sum, r) => sum + r.dropped, input.extraDropped ?? 0),
    uncountedTraversals: input.uncountedTraversals ?? 0,
    unprofiledLaunches: input.unprofiledLaunches ?? 0,
    rows: input.rows.map((row, i) => ({ draw: row.draw, cells: written[i] as number })),
  };
  return { rayEvents, section };
}

/** `raw` with the capture's ray events; the rows' draws become trace-rays calls. */
export function withRayEvents(raw: RawCapture, input: SyntheticRayCapture): RawCapture {
  const { rayEvents, section } = rayEventSectionOf(input);
  const metadata = raw.metadata as { draws?: readonly { kind?: string }[] };
  const rayDraws = new Set(input.rows.map((r) => r.draw));
  const draws = metadata.draws?.map((d, i) => (rayDraws.has(i) ? { ...d, kind: 'trace-rays' } : d));
  return { ...raw, metadata: { ...raw.metadata, ...(draws === undefined ? {} : { draws }), rayEvents }, rayEventSection: section };
}

/**
 * A scene with something of every event: each pixel traces a primary ray;
 * inside a disc (a tree's alpha-tested leaves, centred, radius a third of
 * the height) it meets 1-3 any-hit candidates, the first `ignored` of them
 * cut by the alpha test, the others accepted, all but the closest made
 * useless by it, then a closest hit that traces a shadow ray (a miss);
 * outside, a procedural sphere's intersection test then a miss that calls a
 * sky callable on every fourth row.
 */
export function foliageScene(width: number, height: number): RayScene {
  const radius = height / 3;
  return (x, y) => {
    const dx = x - width / 2;
    const dy = y - height / 2;
    if (dx * dx + dy * dy > radius * radius) {
      return { traceCalls: 1, intersections: 1, misses: 1, callables: y % 4 === 0 ? 1 : 0 };
    }
    const anyHits = 1 + ((x + y) % 3);
    const ignored = (x * 7 + y) % anyHits;
    // ignored < anyHits: one candidate at least is accepted, and the closest of those is no useless one.
    return { traceCalls: 2, anyHits, anyHitsIgnored: ignored, uselessAnyHits: anyHits - ignored - 1, closestHits: 1, misses: 1 };
  };
}
