/**
 * The SQL tables of a trace, as `warptrace query` shows them to DuckDB and
 * `warptrace export --parquet` writes them: their names, columns, types and
 * units. One list serves the tables, the command's help, the README check
 * and the tests, so the documentation cannot drift from what is queried.
 * Times are ns since the capture origin (as everywhere in warptrace), sizes
 * in pixels; NULL stands for "not recorded" or "none".
 */
import { STAGES } from '../shared-schema/stages.js';

/** Bumped when a column is renamed, retyped or removed (adding one is compatible); written into Parquet files. */
export const SQL_TABLES_VERSION = 1;

/** DuckDB types; STAGE is an ENUM of the stage names (shared-schema/stages.ts), in code order. */
export type SqlType = 'DOUBLE' | 'FLOAT' | 'UTINYINT' | 'USMALLINT' | 'UINTEGER' | 'INTEGER' | 'BOOLEAN' | 'VARCHAR' | 'STAGE';
export type NumericSqlType = Exclude<SqlType, 'BOOLEAN' | 'VARCHAR'>;

/** The stage names, index = stage code: the STAGE enum's values. */
export const STAGE_ENUM_VALUES: readonly string[] = STAGES.map((s) => s.name);

export interface SqlColumnDoc {
  readonly name: string;
  readonly type: SqlType;
  /** Unit and meaning, one line; says when the column can be NULL. */
  readonly doc: string;
}

export type SqlTableName = 'warps' | 'draws' | 'regions' | 'findings';

export interface SqlTableDoc {
  readonly name: SqlTableName;
  /** What one row is. */
  readonly doc: string;
  readonly columns: readonly SqlColumnDoc[];
}

const col = (name: string, type: SqlType, doc: string): SqlColumnDoc => ({ name, type, doc });

export const WARPS_TABLE: SqlTableDoc = {
  name: 'warps',
  doc: 'one row per warp, in the trace\'s order: by SM (unknown SM last), then by start',
  columns: [
    col('row', 'UINTEGER', 'the warp\'s row in the trace (0-based; the order above)'),
    col('start_ns', 'DOUBLE', 'start, ns since the capture origin (a multiple of 1/16 ns)'),
    col('duration_ns', 'FLOAT', 'duration, ns (float32, as the trace stores it)'),
    col('end_ns', 'DOUBLE', 'start_ns + duration_ns, ns'),
    col('sm', 'USMALLINT', 'SM id; NULL on devices without SM ids'),
    col('slot', 'UTINYINT', 'hardware warp slot on its SM; NULL when not recorded'),
    col('stage', 'STAGE', 'shader stage: VS, TCS, TES, GS, FS, CS, TASK, MESH, RAYGEN, ANY_HIT, CLOSEST_HIT, MISS, INTERSECTION, CALLABLE, RAYGEN_REORDERED'),
    col('sampled_every', 'UINTEGER', 'one warp in this many of its stage was recorded (a sampled capture: --sample); 1: every warp. sum(sampled_every) estimates a count'),
    col('draw', 'UINTEGER', 'the draw (or dispatch, trace-rays call) it belongs to: draws.draw'),
    col('custom_id', 'UINTEGER', 'id chosen by the shader (primitive id, workgroup id, ...)'),
    col('live_lanes', 'UTINYINT', 'active lanes: the bits set in active_mask and active_mask_hi (1..subgroup size)'),
    col('active_mask', 'UINTEGER', 'active lanes 0..31, bit i = lane i'),
    col('active_mask_hi', 'UINTEGER', 'active lanes 32..63; NULL for subgroups of 32 lanes or fewer'),
    col('x_px', 'USMALLINT', 'footprint corner on the draw\'s target, smallest x of the active lanes, pixels; NULL without a position'),
    col('y_px', 'USMALLINT', 'footprint corner, smallest y, pixels; NULL without a position'),
    col('width_px', 'UTINYINT', 'footprint width, pixels (a power of two up to 128, covering the lanes); NULL without a position'),
    col('height_px', 'UTINYINT', 'footprint height, pixels (a power of two up to 128); NULL without a position'),
    col('start_cycles', 'DOUBLE', 'raw SM-clock start, cycles since the SM\'s first warp; NULL when not recorded'),
    col('duration_cycles', 'UINTEGER', 'raw SM-clock duration, cycles; NULL when not recorded'),
  ],
};

export const DRAWS_TABLE: SqlTableDoc = {
  name: 'draws',
  doc: 'one row per draw, dispatch or trace-rays call, in submission order (untraced ones too, with no warps)',
  columns: [
    col('draw', 'UINTEGER', 'index (warps.draw)'),
    col('label', 'VARCHAR', 'the draw\'s label'),
    col('kind', 'VARCHAR', 'draw, dispatch or trace-rays'),
    col('call', 'VARCHAR', 'the command recorded (vkCmdDrawIndexed, ...); NULL when unknown'),
    col('pipeline', 'VARCHAR', 'the bound pipeline\'s debug name or 0x... handle; NULL when unknown'),
    col('region', 'UINTEGER', 'innermost region it lies in (regions.region); NULL when in none'),
    col('gpu_begin_ns', 'DOUBLE', 'GPU timestamp-query begin, ns; NULL when not queried'),
    col('gpu_end_ns', 'DOUBLE', 'GPU timestamp-query end, ns; NULL when not queried'),
    col('target_width_px', 'UINTEGER', 'width of the grid positions lie on (render area, launch size, dispatch grid), pixels; NULL when unknown'),
    col('target_height_px', 'UINTEGER', 'height of that grid, pixels; NULL when unknown'),
    col('untraced', 'VARCHAR', 'why the draw ran untraced (it then has no warps); NULL when traced'),
    col('vertex_count', 'UINTEGER', 'the call\'s vertexCount; NULL when it had none (likewise the counts below)'),
    col('instance_count', 'UINTEGER', 'instanceCount'),
    col('index_count', 'UINTEGER', 'indexCount'),
    col('draw_count', 'UINTEGER', 'drawCount (indirect calls)'),
    col('group_count_x', 'UINTEGER', 'groupCountX (dispatches)'),
    col('group_count_y', 'UINTEGER', 'groupCountY'),
    col('group_count_z', 'UINTEGER', 'groupCountZ'),
    col('first_vertex', 'UINTEGER', 'firstVertex'),
    col('first_instance', 'UINTEGER', 'firstInstance'),
    col('first_index', 'UINTEGER', 'firstIndex'),
    col('vertex_offset', 'INTEGER', 'vertexOffset'),
  ],
};

export const REGIONS_TABLE: SqlTableDoc = {
  name: 'regions',
  doc: 'one row per labelled region (debug label or render pass), in the order they opened; regions nest',
  columns: [
    col('region', 'UINTEGER', 'index (draws.region)'),
    col('label', 'VARCHAR', 'the region\'s label'),
    col('parent', 'UINTEGER', 'the enclosing region; NULL at the top level'),
    col('source', 'VARCHAR', 'debug-label or render-pass'),
    col('depth', 'UINTEGER', 'nesting depth: 0 at the top level'),
    col('top_region', 'UINTEGER', 'its top-level ancestor (itself at the top level): the pass'),
  ],
};

export const FINDINGS_TABLE: SqlTableDoc = {
  name: 'findings',
  doc: 'one row per finding of the analyses (as warptrace stats lists them), costliest first',
  columns: [
    col('finding', 'UINTEGER', 'rank: 0 is the costliest'),
    col('id', 'VARCHAR', 'stable id within the trace, e.g. sync-12, stall-4031'),
    col('kind', 'VARCHAR', 'sync, idle, leftover, stall or occupancy-cap'),
    col('title', 'VARCHAR', 'one line'),
    col('detail', 'VARCHAR', 'a sentence or two'),
    col('start_ns', 'DOUBLE', 'where it starts, ns'),
    col('end_ns', 'DOUBLE', 'where it ends, ns'),
    col('cost_ns', 'DOUBLE', 'GPU time it costs (or may cost), ns; 0 for observations'),
    col('share_of_frame', 'DOUBLE', 'cost_ns / the frame span (0..1)'),
    col('sm', 'USMALLINT', 'the SM it is about; NULL when several or unknown'),
    col('draw', 'UINTEGER', 'the draw it is about; NULL when none'),
    col('stage', 'STAGE', 'the stage it is about; NULL when several or none'),
    col('reliable', 'BOOLEAN', 'false when it rests on cross-SM times that are not aligned'),
    col('group_id', 'VARCHAR', 'its group (kind:cause, e.g. stall:TCS), as the viewer and the CSV group them'),
    col('group_hidden', 'BOOLEAN', 'the group is below findingGroupMinShare of the frame (listed last)'),
  ],
};

export const SQL_TABLES: readonly SqlTableDoc[] = [WARPS_TABLE, DRAWS_TABLE, REGIONS_TABLE, FINDINGS_TABLE];

/** `warptrace query --help`'s list of tables and columns. */
export function sqlTablesHelp(): string {
  const width = SQL_TABLES.reduce((w, t) => t.columns.reduce((v, c) => Math.max(v, c.name.length), w), 0);
  return SQL_TABLES.map((t) => [`${t.name}: ${t.doc}`, ...t.columns.map((c) => `  ${c.name.padEnd(width)}  ${c.type.padEnd(10)}${c.doc}`)].join('\n')).join('\n\n');
}
