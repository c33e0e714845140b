/**
 * Inputs for the tests of the exports' block-profile, phase and ray-event
 * sections: the committed samples that carry them, a trace with a small ray-
 * event profile (no sample has one yet), and readers for what the exports write.
 */
import { readFileSync } from 'node:fs';
import { decodeTrace, rayCellGrid, RAY_EVENTS, type RayEvent, type RayEventProfile, type Trace } from '../../shared-schema/index.js';
import { perfettoProtoChunks, type PerfettoProtoOptions, type PerfettoProtoStats } from '../../analysis/export/perfetto-proto.js';
import { traceOf } from './analysis-fixtures.js';
import { repoPath } from './paths.js';

export const BLOCK_SAMPLES = ['h100-aqt-blocks', 'h100-raytracingreflections-blocks'] as const;
export const MARK_SAMPLE = 'h100-ray-tracing-marks';
export const RAY_SAMPLES = ['h200-ray-tracing-rays', 'h200-ray-tracing-rays-fence-behind'] as const;

export function sample(name: string): Trace {
  return decodeTrace(new Uint8Array(readFileSync(repoPath('samples', `${name}.wtrace`))));
}

/** The committed samples without block profiles, marks or ray events (samples/index.json). */
export function plainSamples(): string[] {
  const index = JSON.parse(readFileSync(repoPath('samples', 'index.json'), 'utf8')) as { samples: { file: string }[] };
  const special = new Set<string>([...BLOCK_SAMPLES, MARK_SAMPLE, ...RAY_SAMPLES]);
  return index.samples.map((s) => s.file.replace(/\.wtrace$/, '')).filter((n) => !special.has(n));
}

/** The trace as if captured without block profiles, marks and ray events. */
export function stripped(trace: Trace): Trace {
  return { ...trace, blocks: null, marks: null, rayEvents: null };
}

/**
 * Draw 0 a raster draw, draws 1 and 2 trace-rays calls: draw 1's row counts
 * two 8x4 launches binned 2x2 (8 cells), draw 2's launches differed in size
 * (totals, no cells). Counts per cell are chosen; totals are their sums.
 */
export function rayTrace(): Trace {
  const trace = traceOf({
    warps: [
      { sm: 0, slot: 0, stage: 'FS', draw: 0, start: 0, end: 100 },
      { sm: 1, slot: 0, stage: 'RAYGEN', draw: 1, start: 150, end: 400 },
      { sm: 2, slot: 0, stage: 'RAYGEN', draw: 1, start: 160, end: 380 },
      { sm: 1, slot: 1, stage: 'RAYGEN', draw: 2, start: 500, end: 700 },
    ],
    draws: [
      { label: 'gbuffer', kind: 'draw' },
      { label: 'shadow rays', kind: 'trace-rays' },
      { label: 'reflections', kind: 'trace-rays' },
    ],
  });
  const grid = rayCellGrid(8, 4, 1, 16)!;
  const cells = (k: number) => Uint32Array.from({ length: grid.cells }, (_, c) => (c * 3 + k * 7) % 11);
  const counts = Object.fromEntries(RAY_EVENTS.map((e, k) => [e, cells(k)])) as Record<RayEvent, Uint32Array>;
  // Ignored and useless any-hits are some of the any-hits.
  counts.anyHitsIgnored = counts.anyHits.map((v) => v >> 1);
  counts.uselessAnyHits = counts.anyHits.map((v) => v >> 2);
  const totals = Object.fromEntries(RAY_EVENTS.map((e) => [e, counts[e].reduce((a, b) => a + b, 0)])) as Record<RayEvent, number>;
  const empty = Object.fromEntries(RAY_EVENTS.map((e) => [e, new Uint32Array(0)])) as Record<RayEvent, Uint32Array>;
  const mixedTotals = Object.fromEntries(RAY_EVENTS.map((e, k) => [e, 1000 + k])) as Record<RayEvent, number>;
  const rayEvents: RayEventProfile = {
    cellsPerRow: 16,
    dropped: 3,
    uncountedTraversals: 2,
    unprofiledLaunches: 1,
    rows: [
      { draw: 1, launches: 2, launchWidth: 8, launchHeight: 4, launchDepth: 1, mixedSizes: false, grid, counts, totals },
      { draw: 2, launches: 2, launchWidth: 64, launchHeight: 32, launchDepth: 1, mixedSizes: true, grid: null, counts: empty, totals: mixedTotals },
    ],
  };
  return { ...trace, rayEvents };
}

/** RFC 4180 rows (the exports end each row with \n). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n') row.push(field), rows.push(row), (row = []), (field = '');
    else field += c;
  }
  return rows;
}

/** Each data row as {column: text}. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

/** A CSV cell as the number it was written from ('' for null). */
export const cellNumber = (text: string): number | null => (text === '' ? null : Number(text));

export function exportProto(trace: Trace, options: PerfettoProtoOptions = {}): { bytes: Uint8Array; stats: PerfettoProtoStats; chunks: number[] } {
  const gen = perfettoProtoChunks(trace, options);
  const parts: Uint8Array[] = [];
  let r = gen.next();
  while (!r.done) {
    parts.push(r.value);
    r = gen.next();
  }
  return { bytes: Buffer.concat(parts), stats: r.value, chunks: parts.map((p) => p.length) };
}
