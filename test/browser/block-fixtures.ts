/**
 * Traces with a block profile for the shader panel's tests: a synthetic trace
 * (1 ns per SM cycle, so ticks read as ns) whose draws 0 and 1 carry counts
 * with known sums, draw 2 none. Expected values (draw 0, by line):
 *
 * | row | ticks | share | executions | SIMT |
 * |---|---|---|---|---|
 * | shade.frag:5 (blocks 1, 2) | 5 000 | 50.0% | 100 | 50% |
 * | shade.frag:8 | 1 500 | 15.0% | 200 | 75% |
 * | VS shade.vert:2 | 1 200 | 12.0% | 40 | 100% |
 * | shade.frag:3 | 1 000 | 10.0% | 100 | 100% |
 * | VS shade.vert:4 | 800 | 8.0% | 40 | 50% |
 * | helper #4 (no line) | 500 | 5.0% | 10 | 100% |
 *
 * Draw 1: shade.frag:8 6 000 ticks (75.0%, 300 executions, SIMT 100%), shade.frag:3 2 000 (25.0%).
 */
import { synthesizeTrace, type BlockCounts, type BlockModule, type BlockProfile, type Trace } from '../../shared-schema/index.js';

/** The fragment shader's text; line 6 holds markup, which must show as text. */
export const FRAGMENT_SOURCE = [
  '#version 450',
  'layout(location = 0) out vec4 color;',
  'void main() {',
  '  vec4 c = vec4(0);',
  '  for (int i = 0; i < 4; i++) c += shade(i);',
  '  if (c.a < 0.5) discard; // <b id="injected">not markup</b>',
  '  c.rgb *= 0.5;',
  '  color = c;',
  '}',
].join('\n');

const site = (fn: string, file: string | null, line: number | null, text: string | null = null) => ({ function: fn, file, line, column: line === null ? null : 3, text });

export const FRAGMENT_MODULE: BlockModule = {
  name: 'shade.frag.spv',
  stages: ['FS'],
  per: 'warp',
  clock: 'sm',
  blocks: [site('main', 'shade.frag', 3), site('main', 'shade.frag', 5), site('main', 'shade.frag', 5), site('main', 'shade.frag', 8), site('helper', null, null, 'OpLoad OpFAdd OpStore')],
  sources: [{ file: 'shade.frag', text: FRAGMENT_SOURCE }],
};

export const VERTEX_MODULE: BlockModule = {
  name: 'shade.vert.spv',
  stages: ['VS'],
  per: 'warp',
  clock: 'sm',
  blocks: [site('main', 'shade.vert', 2), site('main', 'shade.vert', 4)],
  sources: [],
};

function counts(module: number, cells: readonly (readonly [executions: number, lanes: number, ticks: number])[]): BlockCounts {
  return {
    module,
    executions: Float64Array.from(cells, (c) => c[0]),
    lanes: Float64Array.from(cells, (c) => c[1]),
    ticks: Float64Array.from(cells, (c) => c[2]),
  };
}

export const BLOCK_PROFILE: BlockProfile = {
  subgroupSize: 32,
  dropped: 0,
  unprofiledDraws: 0,
  modules: [FRAGMENT_MODULE, VERTEX_MODULE],
  rows: [
    {
      draw: 0,
      modules: [
        counts(0, [[100, 3200, 1000], [50, 800, 3000], [50, 800, 2000], [200, 4800, 1500], [10, 320, 500]]),
        counts(1, [[40, 1280, 1200], [40, 640, 800]]),
      ],
    },
    { draw: 1, modules: [counts(0, [[100, 3200, 2000], [0, 0, 0], [0, 0, 0], [300, 9600, 6000], [0, 0, 0]])] },
  ],
};

/** What the capture layer writes on a draw of shader objects when profiles were asked for (capture/layer CONTRACT.md). */
export const UNPROFILED_WHY = 'shaders VS 0x7 + FS 0x8: shader objects (VK_EXT_shader_object) get no block profile from the layer yet';

/**
 * A synthetic trace (a few draws, 1 GHz SM clock) carrying BLOCK_PROFILE; `untracedDraw` marks that draw untraced,
 * `unprofiledDraw` (one without a row) traced without a profile, with UNPROFILED_WHY.
 */
export function traceWithBlocks(options: { untracedDraw?: number; unprofiledDraw?: number } = {}): Trace {
  const base = synthesizeTrace({ warps: 3000, seed: 23, warpsPerDraw: 300 });
  const draws = base.draws.map((d) =>
    d.index === options.untracedDraw ? { ...d, untraced: 'pipeline 0x5: skipped for the test' } : d.index === options.unprofiledDraw ? { ...d, unprofiled: UNPROFILED_WHY } : d,
  );
  const clocks = { ...base.device.clocks, smClock: true, smClockRateHz: 1e9 };
  return { ...base, draws, device: { ...base.device, subgroupSize: 32, clocks }, blocks: BLOCK_PROFILE };
}

/** A profile of `blocks` blocks in each of `modules` modules over `draws` draws (the cost check). */
export function largeProfile(draws: number, modules: number, blocks: number): BlockProfile {
  const module = (m: number): BlockModule => ({
    name: `m${m}`,
    stages: ['FS'],
    per: 'warp',
    clock: 'sm',
    blocks: Array.from({ length: blocks }, (_, b) => site('main', `f${m}.glsl`, 1 + Math.floor(b / 2))),
    sources: [],
  });
  const column = (seed: number) => Float64Array.from({ length: blocks }, (_, b) => ((b * 7919 + seed * 104729) % 1000) + 1);
  return {
    subgroupSize: 32,
    dropped: 0,
    unprofiledDraws: 0,
    modules: Array.from({ length: modules }, (_, m) => module(m)),
    rows: Array.from({ length: draws }, (_, d) => ({
      draw: d,
      modules: Array.from({ length: modules }, (_, m) => {
        const executions = column(d + m);
        return { module: m, executions, lanes: executions.map((e) => e * 16), ticks: column(d * 3 + m + 1) };
      }),
    })),
  };
}
