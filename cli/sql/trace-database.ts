/**
 * A trace as an in-memory DuckDB database: each table of analysis/sql-schema.ts
 * is a table function reading the trace's own columns (`warptrace_warps()`,
 * ...) behind a view of the table's name. A scan copies 2,048 rows at a time
 * from the typed arrays into DuckDB's vectors, only the columns the query
 * reads (projection pushdown): nothing is loaded into DuckDB before a query
 * runs, and a query over one column of 10 M warps touches only that column.
 *
 * DuckDB (~70 MB of native code, ~0.3 s to load) is imported here, and this
 * module only by the commands that need it, so other commands start as fast
 * as before.
 */
import type * as DuckDBApi from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBInstance, DuckDBTableFunctionInfo, DuckDBType } from '@duckdb/node-api';
import { STAGE_ENUM_VALUES, type SqlType } from '../../analysis/sql-schema.js';
import type { SqlTableData, TraceSqlTable } from '../../analysis/sql-tables.js';
import { numericArray, type NumericArray } from '../../analysis/sql-warps.js';
import { InputError } from '../command.js';

type Bindings = typeof import('@duckdb/node-bindings');

interface DuckDB {
  readonly api: typeof DuckDBApi;
  readonly bindings: Bindings;
}

let loaded: Promise<DuckDB> | null = null;

/** Imports DuckDB once; a missing or broken install is one line naming the package. */
export function loadDuckDB(): Promise<DuckDB> {
  loaded ??= Promise.all([import('@duckdb/node-api'), import('@duckdb/node-bindings')]).then(
    ([api, bindings]) => ({ api, bindings: bindings.default }),
    (error: unknown) => {
      loaded = null;
      throw new InputError(`DuckDB (the npm package @duckdb/node-api) could not be loaded: ${error instanceof Error ? error.message : String(error)} (run npm install)`);
    },
  );
  return loaded;
}

export interface TraceDatabase {
  readonly connection: DuckDBConnection;
  close(): void;
}

/** DuckDB settings: nothing is fetched from the network (extensions come with the package: parquet, json). */
const DATABASE_OPTIONS: Record<string, string> = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
};

/** Opens an in-memory database whose views `warps`, `draws`, `regions`, `findings` read `tables`. */
export async function openTraceDatabase(tables: readonly TraceSqlTable[]): Promise<TraceDatabase> {
  const duck = await loadDuckDB();
  const instance: DuckDBInstance = await duck.api.DuckDBInstance.create(':memory:', DATABASE_OPTIONS);
  const connection = await instance.connect();
  const close = () => {
    connection.closeSync();
    instance.closeSync();
  };
  try {
    for (const table of tables) {
      const functionName = `warptrace_${table.doc.name}`;
      connection.registerTableFunction(tableFunction(duck, table, functionName));
      await connection.run(`CREATE VIEW ${table.doc.name} AS SELECT * FROM ${functionName}()`);
    }
  } catch (error) {
    close();
    throw error;
  }
  return { connection, close };
}

function duckType(api: typeof DuckDBApi, type: SqlType): DuckDBType {
  switch (type) {
    case 'DOUBLE':
      return api.DOUBLE;
    case 'FLOAT':
      return api.FLOAT;
    case 'UTINYINT':
      return api.UTINYINT;
    case 'USMALLINT':
      return api.USMALLINT;
    case 'UINTEGER':
      return api.UINTEGER;
    case 'INTEGER':
      return api.INTEGER;
    case 'BOOLEAN':
      return api.BOOLEAN;
    case 'VARCHAR':
      return api.VARCHAR;
    case 'STAGE':
      // One byte per value, index = stage code: the trace's stage column is copied as it is.
      return api.ENUM8(STAGE_ENUM_VALUES);
  }
}

/** One scan of a table: the next row, and per projected column the table's column index. */
interface ScanState {
  next: number;
  readonly columns: readonly number[];
  /** Per projected column: the last chunk written had NULLs (its validity must be rewritten). */
  readonly hadNulls: boolean[];
}

function tableFunction(duck: DuckDB, table: TraceSqlTable, name: string) {
  const { api, bindings } = duck;
  const vectorSize = bindings.vector_size();
  const types = table.doc.columns.map((c) => duckType(api, c.type));
  const scratch = new Map<SqlType, NumericArray>();
  const validity = new Uint8Array(Math.ceil(vectorSize / 8));
  return api.DuckDBTableFunction.create({
    name,
    supportsProjectionPushdown: true,
    bindFunction(bind) {
      table.doc.columns.forEach((c, k) => bind.addResultColumn(c.name, types[k]!));
      // Without it DuckDB takes every scan for small and may build a join's hash table on 10 M warps.
      if (table.knownRows !== null) bind.setCardinality(table.knownRows, true);
    },
    initFunction(init) {
      const columns = init.getColumnIndexes();
      init.setInitData({ next: 0, columns, hadNulls: columns.map(() => false) } satisfies ScanState);
      // The scan's state is one cursor: rows come in order from one thread.
      init.setMaxThreads(1);
    },
    mainFunction(info: DuckDBTableFunctionInfo, out: DuckDBDataChunk) {
      try {
        const state = info.getInitData() as ScanState;
        const data = table.data();
        const count = Math.max(0, Math.min(vectorSize, data.rows - state.next));
        out.rowCount = count;
        if (count === 0) return;
        if (data.kind === 'values') writeValues(out, data, state, count);
        else writeColumnar(data, state, count, (k, values, hasNulls) => {
          const vector = bindings.data_chunk_get_vector(out.chunk, k);
          bindings.copy_data_to_vector(vector, 0, values.buffer as ArrayBuffer, values.byteOffset, values.byteLength);
          if (hasNulls || state.hadNulls[k]) {
            bindings.vector_ensure_validity_writable(vector);
            bindings.copy_data_to_vector_validity(vector, 0, validity.buffer, 0, Math.ceil(count / 8));
          }
          state.hadNulls[k] = hasNulls;
        });
        state.next += count;
      } catch (error) {
        info.setError(error instanceof Error ? error.message : String(error));
      }
    },
  });

  function writeColumnar(data: Extract<SqlTableData, { kind: 'columnar' }>, state: ScanState, count: number, write: (k: number, values: NumericArray, hasNulls: boolean) => void): void {
    state.columns.forEach((c, k) => {
      const source = data.columns[c]!;
      let buffer = scratch.get(source.type);
      if (buffer === undefined) scratch.set(source.type, (buffer = numericArray(source.type, vectorSize)));
      const values = buffer.subarray(0, count);
      validity.fill(0xff);
      write(k, values, source.read(state.next, values, validity));
    });
  }
}

function writeValues(out: DuckDBDataChunk, data: Extract<SqlTableData, { kind: 'values' }>, state: ScanState, count: number): void {
  state.columns.forEach((c, k) => out.setColumnValues(k, data.columns[c]!.slice(state.next, state.next + count)));
}
