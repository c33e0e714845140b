/**
 * Block profiles (`instrument --blocks`): where a set of draws spent its
 * warp executions and clock ticks, per basic block or per source line of
 * each module, hottest first. Pure: the CLI's `warptrace blocks` and the
 * viewer share it.
 */
import type { BlockClock, BlockCounts, BlockModule, BlockProfile, ClockInfo } from '../shared-schema/model.js';

export type BlockGrouping = 'block' | 'line';

export interface BlockQuery {
  /** The draws to sum (null: every profiled draw). */
  readonly draws: ReadonlySet<number> | null;
  /** One entry per block, or per (module, file, line): a line's blocks summed (blocks without a line stay alone). */
  readonly by: BlockGrouping;
}

/** One block, or one source line's blocks, over the query's draws. */
export interface BlockStat {
  readonly module: number;
  readonly moduleName: string;
  /** The blocks summed (one for by=block), ascending. */
  readonly blocks: readonly number[];
  /** The first block's function. */
  readonly function: string;
  readonly file: string | null;
  readonly line: number | null;
  /** The block's column (by=block only; null by line). */
  readonly column: number | null;
  /** The disassembly of a block without a line (null otherwise). */
  readonly text: string | null;
  readonly executions: number;
  readonly lanes: number;
  /** lanes / (subgroupSize × executions): the share of lanes live; null for per=invocation modules or no executions. */
  readonly simtEfficiency: number | null;
  readonly ticks: number;
  readonly clock: BlockClock;
  /** ticks over the ticks of every module of the draws counted in the same clock (0 when there are none). */
  readonly tickShare: number;
  /** ticks as ns (SM cycles through the calibrated SM clock rate, device ticks through ns per tick); null when the rate is unknown. */
  readonly ns: number | null;
}

export interface BlockTable {
  /** Hottest first: by ticks, then executions. */
  readonly stats: readonly BlockStat[];
  /** The draws summed (profiled and asked for), ascending. */
  readonly draws: readonly number[];
  /** Asked-for draws without a row (unprofiled or untraced). */
  readonly missingDraws: readonly number[];
  /** Ticks of the draws per clock. */
  readonly totalTicks: Readonly<Record<BlockClock, number>>;
  readonly dropped: number;
  readonly unprofiledDraws: number;
}

/** ns per tick of a module's clock (null: unknown rate). */
export function nsPerTick(clock: BlockClock, clocks: ClockInfo): number | null {
  if (clock === 'device') return clocks.deviceClockNsPerTick;
  const hz = clocks.smClockRateHz;
  return hz !== null && hz > 0 ? 1e9 / hz : null;
}

/** Zero counts for each module's blocks (index = module). */
export function emptyCounts(profile: BlockProfile): BlockCounts[] {
  return profile.modules.map((m, module) => ({ module, executions: new Float64Array(m.blocks.length), lanes: new Float64Array(m.blocks.length), ticks: new Float64Array(m.blocks.length) }));
}

/** `into` += `from`, block by block (one module's counts). */
export function addCounts(into: BlockCounts, from: BlockCounts): void {
  for (let b = 0; b < from.executions.length; b++) {
    into.executions[b]! += from.executions[b]!;
    into.lanes[b]! += from.lanes[b]!;
    into.ticks[b]! += from.ticks[b]!;
  }
}

/** Per module, each block's sums over the draws. */
function sumRows(profile: BlockProfile, draws: ReadonlySet<number> | null): { sums: BlockCounts[]; used: number[] } {
  const sums = emptyCounts(profile);
  const used: number[] = [];
  for (const row of profile.rows) {
    if (draws !== null && !draws.has(row.draw)) continue;
    used.push(row.draw);
    for (const c of row.modules) addCounts(sums[c.module]!, c);
  }
  return { sums, used };
}

/** The key blocks of a module group under. */
function groupKey(m: BlockModule, b: number, by: BlockGrouping): string {
  const site = m.blocks[b]!;
  return by === 'line' && site.line !== null ? `${site.file}\u0000${site.line}` : `#${b}`;
}

export function blockTable(profile: BlockProfile, clocks: ClockInfo, query: BlockQuery): BlockTable {
  const { sums, used } = sumRows(profile, query.draws);
  const totalTicks: Record<BlockClock, number> = { sm: 0, device: 0 };
  profile.modules.forEach((m, i) => {
    for (const t of sums[i]!.ticks) totalTicks[m.clock] += t;
  });
  const stats: BlockStat[] = [];
  profile.modules.forEach((m, i) => {
    const s = sums[i]!;
    const groups = new Map<string, number[]>();
    for (let b = 0; b < m.blocks.length; b++) {
      // Blocks no selected draw ran are no row of the table.
      if (s.executions[b] === 0 && s.ticks[b] === 0) continue;
      const key = groupKey(m, b, query.by);
      const list = groups.get(key);
      if (list === undefined) groups.set(key, [b]);
      else list.push(b);
    }
    const perTick = nsPerTick(m.clock, clocks);
    for (const blocks of groups.values()) {
      let executions = 0;
      let lanes = 0;
      let ticks = 0;
      for (const b of blocks) {
        executions += s.executions[b]!;
        lanes += s.lanes[b]!;
        ticks += s.ticks[b]!;
      }
      const site = m.blocks[blocks[0]!]!;
      const total = totalTicks[m.clock];
      stats.push({
        module: i,
        moduleName: m.name,
        blocks,
        function: site.function,
        file: site.file,
        line: site.line,
        column: query.by === 'block' ? site.column : null,
        text: site.text,
        executions,
        lanes,
        simtEfficiency: m.per === 'warp' && executions > 0 ? lanes / (profile.subgroupSize * executions) : null,
        ticks,
        clock: m.clock,
        tickShare: total > 0 ? ticks / total : 0,
        ns: perTick === null ? null : ticks * perTick,
      });
    }
  });
  stats.sort((a, b) => b.ticks - a.ticks || b.executions - a.executions || a.module - b.module || a.blocks[0]! - b.blocks[0]!);
  const profiled = new Set(used);
  const missingDraws = query.draws === null ? [] : [...query.draws].filter((d) => !profiled.has(d)).sort((a, b) => a - b);
  return { stats, draws: used, missingDraws, totalTicks, dropped: profile.dropped, unprofiledDraws: profile.unprofiledDraws };
}

/** One line for `warptrace info`: what the profile covers. */
export function blockProfileLine(profile: BlockProfile): string {
  const blocks = profile.modules.reduce((n, m) => n + m.blocks.length, 0);
  const lined = profile.modules.reduce((n, m) => n + m.blocks.filter((b) => b.line !== null).length, 0);
  const parts = [
    `${profile.rows.length.toLocaleString('en-US')} draws profiled`,
    `${profile.modules.length} module${profile.modules.length === 1 ? '' : 's'}, ${blocks.toLocaleString('en-US')} blocks (${lined.toLocaleString('en-US')} with source lines)`,
  ];
  if (profile.unprofiledDraws > 0) parts.push(`${profile.unprofiledDraws.toLocaleString('en-US')} draws without a row (table full)`);
  if (profile.dropped > 0) parts.push(`${profile.dropped.toLocaleString('en-US')} block executions dropped`);
  return `${parts.join(', ')}: warptrace blocks FILE`;
}
