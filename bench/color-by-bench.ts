/**
 * The timeline's "Color by" (viewer/model/color-by.ts) on synthetic
 * H100-shaped traces, in Node: the class column of each mode (what a mode
 * change computes on the page), the list of mark ids, the class pyramids of
 * all lanes (what collapsed lanes read) and the largest lane's; then the whole
 * coloring as the page builds it (laneColoringSteps, 65,536 rows a step) and
 * its longest step, the most one step adds to a task of the page. Marks are
 * added to a quarter of the warps (two each, a third of them with some lanes
 * off) so the branch mode has work; the draws are grouped in passes of 88 (a
 * game-like frame: 5 M warps make 2,025 draws in 23 passes) for the pass mode.
 * Then the warp filters' highlight (viewer/model/warp-filter.ts: a find
 * filter, a duration range, both) whole and in steps of 65,536 rows.
 * Times are the best of 3 after a warm-up.
 *   npm run bench:color-by               (1 M and 5 M warps)
 *   npm run bench:color-by -- 10000000   (sizes of your choice)
 */
import { cpus } from 'node:os';
import { Stage, synthesizeTrace, type MarkColumns, type Trace } from '../shared-schema/index.js';
import { colorClasses, markIdsOf, type ColorBy } from '../viewer/model/color-by.js';
import { classPyramid, laneColoringSteps } from '../viewer/model/class-occupancy.js';
import { buildLaneIndex } from '../viewer/model/lane-index.js';
import { runSteps } from '../viewer/model/color-by.js';
import { findDraws } from '../viewer/model/draw-search.js';
import { stageMaskOfQuery, warpFilterSteps, type WarpFilters } from '../viewer/model/warp-filter.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);

function best<T>(run: () => T): { ms: number; value: T } {
  let value = run();
  let ms = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    value = run();
    ms = Math.min(ms, performance.now() - t0);
  }
  return { ms, value };
}

/** Two marks (ids 1 and 2) on every fourth warp; on a third of those, mark 2 has lanes 0..15 only. */
function withMarks(t: Trace): Trace {
  const n = t.warps.count;
  const count = 2 * Math.ceil(n / 4);
  const warp = new Uint32Array(count);
  const id = new Uint32Array(count);
  const sequence = new Uint8Array(count);
  const offsetNs = new Float32Array(count);
  const activeMask = new Uint32Array(count);
  let k = 0;
  for (let row = 0; row < n; row += 4) {
    const full = t.warps.activeMask[row]!;
    for (let s = 0; s < 2; s++, k++) {
      warp[k] = row;
      id[k] = s + 1;
      sequence[k] = s;
      offsetNs[k] = (t.warps.durationNs[row]! * (s + 1)) / 3;
      activeMask[k] = s === 1 && row % 3 === 0 ? full & 0xffff : full;
    }
  }
  const marks: MarkColumns = { count: k, warp, id, sequence, offsetNs, activeMask, activeMaskHi: null, orphans: 0 };
  return { ...t, marks };
}

const table: string[][] = [];
const filterTable: string[][] = [];
for (const n of sizes.length > 0 ? sizes : [1_000_000, 5_000_000]) {
  const trace = withMarks(synthesizeTrace({ warps: n, seed: 1, drawsPerPass: 88 }));
  const index = buildLaneIndex(trace);
  const modes: ColorBy[] = [{ kind: 'stage' }, { kind: 'lanes' }, { kind: 'branch', mark: 2 }, { kind: 'draw' }, { kind: 'pass' }, { kind: 'duration' }, { kind: 'sm' }];
  const ids = best(() => markIdsOf(trace.marks));
  for (const by of modes) {
    const classes = best(() => colorClasses(trace, by));
    const pyramids = best(() => index.lanes.map((lane) => classPyramid(trace, lane, classes.value, 0)));
    let largest = index.lanes[0]!;
    for (const lane of index.lanes) if (lane.rowEnd - lane.rowBegin > largest.rowEnd - largest.rowBegin) largest = lane;
    const one = best(() => classPyramid(trace, largest, classes.value, 0));
    const stepped = best(() => longestStep(laneColoringSteps(trace, index, by, 0, null, 65_536)));
    table.push([
      trace.warps.count.toLocaleString('en-US'),
      by.kind,
      classes.ms.toFixed(1),
      by.kind === 'branch' ? `${ids.ms.toFixed(1)} (${trace.marks!.count.toLocaleString('en-US')} marks)` : '',
      pyramids.ms.toFixed(0),
      `${one.ms.toFixed(1)} (${(largest.rowEnd - largest.rowBegin).toLocaleString('en-US')} warps)`,
      `${stepped.ms.toFixed(0)} / ${stepped.value.toFixed(1)}`,
    ]);
  }
  for (const [name, query, duration] of [
    ['find pass:GBuffer', 'pass:GBuffer', false],
    ['find stage:FS', 'stage:FS', false],
    ['duration FS 256-512 ns', '', true],
    ['both', 'pass:GBuffer', true],
  ] as const) {
    const draws = query === '' ? null : findDraws(trace, query);
    const filters: WarpFilters = {
      find: draws === null ? null : { draws, stageMask: stageMaskOfQuery(query), text: query },
      duration: duration ? { stage: Stage.FS, draw: null, minNs: 256, maxNs: 512 } : null,
      rows: null,
    };
    const whole = best(() => runSteps(warpFilterSteps(trace, filters, Infinity)));
    const stepped = best(() => longestStep(warpFilterSteps(trace, filters, 65_536)));
    filterTable.push([n.toLocaleString('en-US'), name, whole.value.count.toLocaleString('en-US'), whole.ms.toFixed(0), `${stepped.ms.toFixed(0)} / ${stepped.value.toFixed(1)}`]);
  }
}

/** Runs steps to the end; the longest step, ms. */
function longestStep<T>(steps: Generator<void, T>): number {
  let longest = 0;
  for (;;) {
    const t0 = performance.now();
    const r = steps.next();
    longest = Math.max(longest, performance.now() - t0);
    if (r.done === true) return longest;
  }
}

console.log(`${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; best of 3, ms`);
console.log('| warps | mode | class column | mark ids | class pyramids, all lanes | largest lane | in steps: all / longest step |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const row of table) console.log(`| ${row.join(' | ')} |`);
console.log('\n| warps | filter | warps highlighted | whole | in steps: all / longest step |');
console.log('| --- | --- | --- | --- | --- |');
for (const row of filterTable) console.log(`| ${row.join(' | ')} |`);
