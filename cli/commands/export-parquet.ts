/**
 * `warptrace export FILE --parquet DIR`: the SQL tables of `warptrace query`
 * as Parquet files, one per table, for pandas, Polars, DuckDB or Spark.
 * DuckDB writes them (COPY ... (FORMAT parquet), zstd) from the same views a
 * query reads, so a file holds exactly what `SELECT * FROM warps` gives,
 * in the same order. Each file is written beside its destination under a
 * temporary name and renamed into place, as every warptrace output is.
 */
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AnalysisSummary, Thresholds } from '../../analysis/index.js';
import { SQL_TABLES, SQL_TABLES_VERSION } from '../../analysis/sql-schema.js';
import { traceSqlTables } from '../../analysis/sql-tables.js';
import type { Trace } from '../../shared-schema/model.js';
import { InputError } from '../command.js';
import { formatBytes, systemMessage, type Output } from '../files.js';
import { canonicalPath, statOrNull } from '../paths.js';
import { removeOnSignal } from '../signals.js';
import { duckdbErrorLine } from '../sql/run-sql.js';
import { openTraceDatabase } from '../sql/trace-database.js';

/**
 * How DuckDB writes the files: zstd at level 1 is as small as its default
 * level 3 within 2% (14 B a warp) for half the CPU time; snappy is 1.6x larger.
 */
export const PARQUET_COPY_OPTIONS = 'FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1';

export const PARQUET_HELP = `  --parquet DIR    the tables of warptrace query (warps, draws, regions,
                   findings; columns in warptrace query --help) as
                   DIR/warps.parquet, draws.parquet, regions.parquet,
                   findings.parquet (zstd; DIR is made if missing, its
                   parent must exist)`;

/** The files `--parquet DIR` writes, for the output checks. */
export function parquetOutputs(dir: string): Output[] {
  return SQL_TABLES.map((t) => ({ option: '--parquet', path: join(dir, `${t.name}.parquet`) }));
}

/**
 * Refuses a DIR that cannot be written before any work (a file, or a missing
 * parent); returns whether it exists (its files are then checked like other outputs).
 */
export function checkParquetDir(dir: string): boolean {
  const stat = statOrNull(dir);
  if (stat !== null && !stat.isDirectory()) throw new InputError(`--parquet ${dir}: not a directory`);
  if (stat === null && !statOrNull(dirname(canonicalPath(dir)))?.isDirectory()) throw new InputError(`--parquet ${dir}: no such directory ${dirname(dir)}`);
  return stat !== null;
}

export interface ParquetExport {
  readonly dir: string;
  readonly thresholds: Thresholds;
  /** The summary when the export made one: findings then run no analysis again. */
  readonly summary: AnalysisSummary | null;
  readonly force: boolean;
}

/** Writes the four files; returns one line per file for the user. */
export async function writeParquetTables(trace: Trace, spec: ParquetExport): Promise<string[]> {
  if (statOrNull(spec.dir) === null) {
    try {
      mkdirSync(spec.dir);
    } catch (error) {
      throw new InputError(`cannot make ${spec.dir}: ${systemMessage(error)}`);
    }
  }
  const tables = traceSqlTables(trace, { thresholds: spec.thresholds, ...(spec.summary === null ? {} : { summary: spec.summary }) });
  const database = await openTraceDatabase(tables);
  const lines: string[] = [];
  try {
    for (const [k, output] of parquetOutputs(spec.dir).entries()) {
      const table = tables[k]!;
      const target = canonicalPath(output.path);
      if (!spec.force && statOrNull(target) !== null) throw new InputError(`${output.path} already exists (use --force to replace it)`);
      const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
      const release = removeOnSignal(temp);
      try {
        await database.connection.run(
          `COPY (SELECT * FROM ${table.doc.name}) TO ${sqlString(temp)} ` +
            `(${PARQUET_COPY_OPTIONS}, KV_METADATA {warptrace_table: ${sqlString(table.doc.name)}, warptrace_sql_tables_version: '${SQL_TABLES_VERSION}'})`,
        );
        renameSync(temp, target);
      } catch (error) {
        rmSync(temp, { force: true });
        const message = error instanceof Error ? error.message : String(error);
        throw new InputError(`cannot write ${output.path}: ${'code' in Object(error) ? systemMessage(error) : duckdbErrorLine(message)}`);
      } finally {
        release();
      }
      const rows = table.data().rows;
      lines.push(`wrote ${output.path} (${formatBytes(statSync(target).size)}, ${rows.toLocaleString('en-US')} row${rows === 1 ? '' : 's'})`);
    }
  } finally {
    database.close();
  }
  return lines;
}

/** A path as an SQL string literal (COPY takes no parameters). */
function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
