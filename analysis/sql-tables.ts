/**
 * The data behind the SQL tables of sql-schema.ts. `warps` is read from the
 * trace's columns a slice at a time (sql-warps.ts); `draws`, `regions` and
 * `findings` are small and come as one array per column. Each table's data
 * is made when first asked for: `findings` runs the analyses, which a query
 * that never reads it should not wait for.
 */
import { UNKNOWN_SM, type DrawInfo, type DrawParamName, type RegionInfo, type Trace } from '../shared-schema/model.js';
import { analyzeTrace } from './analyze.js';
import { DRAWS_TABLE, FINDINGS_TABLE, REGIONS_TABLE, WARPS_TABLE, type SqlTableDoc } from './sql-schema.js';
import type { AnalysisSummary, Finding } from './summary.js';
import type { Thresholds } from './thresholds.js';
import { warpColumnSources, type NumericColumnSource } from './sql-warps.js';
import { sampleEveryByCode } from '../shared-schema/sampling.js';

export type SqlValue = string | number | boolean | null;

/** Rows read a slice at a time from typed columns. */
export interface ColumnarTableData {
  readonly kind: 'columnar';
  readonly rows: number;
  readonly columns: readonly NumericColumnSource[];
}

/** Rows as one array of values per column, in the table's column order. */
export interface ValueTableData {
  readonly kind: 'values';
  readonly rows: number;
  readonly columns: readonly (readonly SqlValue[])[];
}

export type SqlTableData = ColumnarTableData | ValueTableData;

export interface TraceSqlTable {
  readonly doc: SqlTableDoc;
  /** Rows, when known without making the data (not for findings): the query planner's cardinality. */
  readonly knownRows: number | null;
  /** The rows, made on the first call and kept. */
  data(): SqlTableData;
}

export interface SqlTableOptions {
  /** Thresholds of the analyses behind `findings`. */
  readonly thresholds?: Thresholds;
  /** The trace's summary when already made (with the same thresholds): `findings` then runs nothing. */
  readonly summary?: AnalysisSummary;
}

/** The four tables of `trace`, in SQL_TABLES' order. */
export function traceSqlTables(trace: Trace, options: SqlTableOptions = {}): TraceSqlTable[] {
  return [
    lazyTable(WARPS_TABLE, trace.warps.count, () => ({ kind: 'columnar', rows: trace.warps.count, columns: warpColumnSources(trace.warps, sampleEveryByCode(trace.capture.sampling)) })),
    lazyTable(DRAWS_TABLE, trace.draws.length, () => valueTable(DRAWS_TABLE, trace.draws, drawRow)),
    lazyTable(REGIONS_TABLE, trace.regions.length, () => regionTable(trace.regions)),
    lazyTable(FINDINGS_TABLE, null, () => findingTable(options.summary ?? analyzeTrace(trace, { thresholds: options.thresholds }))),
  ];
}

function lazyTable(doc: SqlTableDoc, knownRows: number | null, make: () => SqlTableData): TraceSqlTable {
  let made: SqlTableData | null = null;
  return { doc, knownRows, data: () => (made ??= make()) };
}

/** Columns from one row of values per item (a draw, a region, a finding: at most a few hundred thousand). */
function valueTable<T>(doc: SqlTableDoc, items: readonly T[], row: (item: T, index: number) => readonly SqlValue[]): ValueTableData {
  const columns: SqlValue[][] = doc.columns.map(() => new Array<SqlValue>(items.length));
  items.forEach((item, i) => {
    const values = row(item, i);
    for (let c = 0; c < columns.length; c++) columns[c]![i] = values[c] ?? null;
  });
  return { kind: 'values', rows: items.length, columns };
}

const PARAM_COLUMNS: readonly DrawParamName[] = [
  'vertexCount', 'instanceCount', 'indexCount', 'drawCount', 'groupCountX', 'groupCountY', 'groupCountZ', 'firstVertex', 'firstInstance', 'firstIndex', 'vertexOffset',
];

function drawRow(d: DrawInfo, index: number): SqlValue[] {
  return [
    index,
    d.label,
    d.kind,
    d.call,
    d.pipeline,
    d.region,
    d.gpuBeginNs,
    d.gpuEndNs,
    d.target?.width ?? null,
    d.target?.height ?? null,
    d.untraced,
    ...PARAM_COLUMNS.map((p) => d.params?.[p] ?? null),
  ];
}

function regionTable(regions: readonly RegionInfo[]): ValueTableData {
  // A parent is always an earlier region (the model guarantees it), so one pass finds depths and passes.
  const depth: number[] = [];
  const top: number[] = [];
  regions.forEach((r, i) => {
    const parent = r.parent !== null && r.parent < i ? r.parent : null;
    depth.push(parent === null ? 0 : depth[parent]! + 1);
    top.push(parent === null ? i : top[parent]!);
  });
  return valueTable(REGIONS_TABLE, regions, (r, i) => [i, r.label, r.parent, r.source, depth[i]!, top[i]!]);
}

function findingTable(summary: AnalysisSummary): ValueTableData {
  const groupOf = new Map<string, { id: string; hidden: boolean }>();
  for (const g of summary.findingGroups) for (const id of g.findingIds) groupOf.set(id, { id: g.id, hidden: g.hidden });
  return valueTable(FINDINGS_TABLE, summary.findings, (f: Finding, i) => {
    const group = groupOf.get(f.id) ?? null;
    return [i, f.id, f.kind, f.title, f.detail, f.startNs, f.endNs, f.costNs, f.shareOfFrame, f.sm === UNKNOWN_SM ? null : f.sm, f.draw, f.stage, f.reliable, group?.id ?? null, group?.hidden ?? null];
  });
}
