/**
 * The shader panel's view model (<wt-shader-panel>): which draws it sums
 * (the selection's), why there is nothing to show, its columns and their
 * sorting, and how a row names its place in the source. Pure: no DOM.
 */
import type { BlockStat } from '../../analysis/blocks.js';
import { formatNs } from '../../analysis/format.js';
import type { BlockModule, Trace } from '../../shared-schema/index.js';
import { drawList, profileRefusal, skippedProfiles } from '../../analysis/block-skips.js';

/** The draws the panel sums: one draw (selected, or the selected warp's), or every profiled draw. */
export type BlockScope = { readonly kind: 'draw'; readonly draw: number; readonly via: 'draw' | 'warp' } | { readonly kind: 'all' };

/** The selected draw, else the selected warp's draw, else all draws (rows past the trace count as no selection). */
export function blockScope(trace: Trace, selectedDraw: number, selectedWarp: number): BlockScope {
  if (selectedDraw >= 0 && selectedDraw < trace.draws.length) return { kind: 'draw', draw: selectedDraw, via: 'draw' };
  if (selectedWarp >= 0 && selectedWarp < trace.warps.count) return { kind: 'draw', draw: trace.warps.draw[selectedWarp]!, via: 'warp' };
  return { kind: 'all' };
}

/** The draws blockTable sums for a scope (null: all). */
export function scopeDraws(scope: BlockScope): ReadonlySet<number> | null {
  return scope.kind === 'all' ? null : new Set([scope.draw]);
}

/** A cache key of a scope (tables are cached per trace, scope and grouping). */
export function scopeKey(scope: BlockScope): string {
  return scope.kind === 'all' ? 'all' : `draw ${scope.draw}`;
}

/** The panel's header: what it sums, and why those draws. */
export function scopeTitle(trace: Trace, scope: BlockScope): string {
  if (scope.kind === 'all') {
    const rows = trace.blocks?.rows.length ?? 0;
    return `All draws (${formatInteger(rows)} profiled; no draw or warp selected)`;
  }
  const label = trace.draws[scope.draw]?.label ?? '';
  const named = label === '' ? `Draw ${scope.draw}` : `Draw ${scope.draw} · ${label}`;
  return `${named} (${scope.via === 'draw' ? 'the selected draw' : "the selected warp's draw"})`;
}

/**
 * Why the scope has no rows to show, or null when it has some. `rowCount`:
 * the rows of its table.
 */
export function blockAbsence(trace: Trace, scope: BlockScope, rowCount: number): string | null {
  const profile = trace.blocks ?? null;
  if (profile === null) {
    const refusal = profileRefusal(trace.capture.layer);
    if (refusal !== null) return `This trace has no block profile: the capture layer made none (${refusal}).`;
    return 'This trace has no block profile: capture with warptrace instrument --blocks to see where its shaders spend their time.';
  }
  if (rowCount > 0) return null;
  if (scope.kind === 'all') {
    if (profile.rows.length > 0) return 'No profiled block ran in any draw.';
    const skipped = skippedProfilesNote(trace);
    return `No draw of this trace got a block profile row.${skipped === null ? '' : ` ${skipped}`}`;
  }
  const d = scope.draw;
  const untraced = trace.draws[d]?.untraced ?? null;
  if (untraced !== null) return `Draw ${d} ran untraced (${untraced}): it has no warps and no block counts.`;
  const unprofiled = trace.draws[d]?.unprofiled ?? null;
  if (unprofiled !== null) return `Draw ${d} has no block profile: the capture layer traced its warps without one (${unprofiled}).`;
  if (!profile.rows.some((r) => r.draw === d)) {
    const full = profile.unprofiledDraws > 0 ? ` or the block table was full (${formatInteger(profile.unprofiledDraws)} traced draws got no row)` : '';
    return `Draw ${d} has no block profile: its shaders were not instrumented with --blocks${full}.`;
  }
  return `No profiled block of draw ${d} ran.`;
}

/** The draws the capture layer traced without a profile, counted and named (null: none); the all-draws view says so. */
export function skippedProfilesNote(trace: Trace): string | null {
  const skipped = skippedProfiles(trace.draws);
  if (skipped.length === 0) return null;
  const n = skipped.length;
  return `${formatInteger(n)} traced draw${n === 1 ? '' : 's'} (${drawList(skipped)}) got no block profile: the capture layer skipped ${n === 1 ? 'it' : 'them'}; select one to see why.`;
}

export type BlockColumnId = 'location' | 'share' | 'time' | 'executions' | 'simt';

export interface BlockColumn {
  readonly id: BlockColumnId;
  readonly title: string;
  readonly numeric: boolean;
}

export const BLOCK_COLUMNS: readonly BlockColumn[] = [
  { id: 'location', title: 'Location', numeric: false },
  { id: 'share', title: 'Share', numeric: true },
  { id: 'time', title: 'Time', numeric: true },
  { id: 'executions', title: 'Executions', numeric: true },
  { id: 'simt', title: 'SIMT', numeric: true },
];

export interface BlockSort {
  readonly column: BlockColumnId;
  readonly descending: boolean;
}

/** Hottest first: blockTable's own order. */
export const DEFAULT_BLOCK_SORT: BlockSort = { column: 'time', descending: true };

/** Clicking a header: the same column reverses, another starts descending (numbers: largest first) or ascending (location). */
export function nextBlockSort(current: BlockSort, column: BlockColumnId): BlockSort {
  if (current.column === column) return { column, descending: !current.descending };
  return { column, descending: column !== 'location' };
}

/** A row's sort value (null sorts last whatever the direction). */
function sortValue(s: BlockStat, column: BlockColumnId): number | string | null {
  switch (column) {
    case 'location':
      return s.file === null ? `\uffff${s.function}` : `${s.file}\u0000${String(s.line).padStart(10, '0')}`;
    case 'share':
      return s.tickShare;
    // ns compare across clocks; ticks only where the rate is unknown.
    case 'time':
      return s.ns ?? s.ticks;
    case 'executions':
      return s.executions;
    case 'simt':
      return s.simtEfficiency;
  }
}

/** The stats sorted (stable: ties keep blockTable's hottest-first order). */
export function sortBlockStats(stats: readonly BlockStat[], sort: BlockSort): BlockStat[] {
  const sign = sort.descending ? -1 : 1;
  const keyed = stats.map((s, k) => ({ s, k, v: sortValue(s, sort.column) }));
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) return a.v === b.v ? a.k - b.k : a.v === null ? 1 : -1;
    const c = typeof a.v === 'string' ? a.v.localeCompare(b.v as string) : a.v - (b.v as number);
    return c !== 0 ? sign * c : a.k - b.k;
  });
  return keyed.map((e) => e.s);
}

/** The last part of a path (a row's short name; the full path is in its tooltip). */
export function baseName(file: string): string {
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return cut < 0 ? file : file.slice(cut + 1);
}

export interface BlockLocation {
  /** file:line (by block also :column and the block number), or the function for a block without a line. */
  readonly primary: string;
  /** The disassembly of a block without a line (null otherwise). */
  readonly detail: string | null;
  /** Everything, unabridged: the row's tooltip. */
  readonly title: string;
}

export function blockLocation(s: BlockStat): BlockLocation {
  const blocks = s.blocks.length === 1 ? `block ${s.blocks[0]}` : `blocks ${s.blocks.join(', ')}`;
  if (s.file === null || s.line === null) {
    return { primary: `${s.function} #${s.blocks[0]}`, detail: s.text, title: `${s.moduleName}: ${s.function}, ${blocks} (no line information)${s.text === null ? '' : `\n${s.text}`}` };
  }
  const column = s.column === null ? '' : `:${s.column}`;
  const primary = s.blocks.length === 1 && s.column !== null ? `${baseName(s.file)}:${s.line}${column} #${s.blocks[0]}` : `${baseName(s.file)}:${s.line}`;
  return { primary, detail: null, title: `${s.moduleName}: ${s.file}:${s.line}${column} in ${s.function}, ${blocks}` };
}

/** A module's stages as a short tag ("VS", "FS", "VS+FS"); its name when it has none. */
export function moduleTag(m: BlockModule): string {
  return m.stages.length === 0 ? m.name : m.stages.join('+');
}

/**
 * One formatter for every count: Number.prototype.toLocaleString builds a formatter per
 * call (~10 µs), which a table of a few hundred rows with several counts each would feel.
 * Made on first use: the page's first formatter loads ICU's locale data, which would
 * otherwise land in the task that evaluates the page's modules (a third of it, cold).
 */
let integerFormat: Intl.NumberFormat | null = null;
const integer = () => (integerFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }));

/** 1234 → "1,234". */
export function formatInteger(n: number): string {
  return integer().format(n);
}

/** 1234 → "1,234"; past 100 000, "123.4k" and "12.3M", so the column stays narrow. */
export function formatCount(n: number): string {
  if (n < 100_000) return integer().format(Math.round(n));
  if (n < 100_000_000) return `${(n / 1e3).toFixed(1)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

/** The time cell: ns when the clock's rate is known, else ticks in their clock. */
export function formatBlockTime(s: BlockStat): string {
  if (s.ns !== null) return formatNs(s.ns);
  return `${formatCount(s.ticks)} ${s.clock === 'sm' ? 'cycles' : 'ticks'}`;
}

/** The SIMT cell's tooltip: the lanes behind the efficiency. */
export function lanesText(s: BlockStat, subgroupSize: number): string {
  if (s.simtEfficiency === null) return `${formatCount(s.executions)} invocations: the module counts per invocation, so no SIMT efficiency`;
  return `${formatInteger(s.lanes)} live lanes of ${formatInteger(subgroupSize * s.executions)} (${subgroupSize} × ${formatInteger(s.executions)} executions)`;
}

/** A row's identity within one table (its module and first block: a table's rows hold disjoint blocks). */
export function statKey(s: BlockStat): string {
  return `${s.module}:${s.blocks[0]}`;
}
