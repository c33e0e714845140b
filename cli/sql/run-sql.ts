/**
 * Runs the user's SQL on a trace database and prints the last statement's
 * rows: a text table (the first `maxRows`), CSV or JSON (every row, written
 * 2,048 rows at a time as DuckDB hands them over). DuckDB's errors become
 * one line with their own words and where in the SQL they point.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBValueConverter, Json } from '@duckdb/node-api';
import { csvField } from '../../analysis/export/escape.js';
import { InputError, UsageError, oneLine, type CliIo } from '../command.js';
import { loadDuckDB } from './trace-database.js';

export type QueryFormat = 'text' | 'csv' | 'json';

export interface QueryOutput {
  readonly format: QueryFormat;
  /** Text rows shown at most (0: all). */
  readonly maxRows: number;
}

/** Runs every statement of `sql`, printing the rows of the last one. */
export async function runSql(connection: DuckDBConnection, sql: string, output: QueryOutput, io: CliIo): Promise<void> {
  const result = await sqlStep(async () => {
    const statements = await connection.extractStatements(sql).catch((error: unknown) => {
      // SQL without a statement (only comments) fails inside the bindings while asking why, without DuckDB's prefix.
      if (error instanceof Error && !error.message.startsWith('Failed to extract statements: ')) throw new UsageError('the SQL holds no statement');
      throw error;
    });
    for (let k = 0; k < statements.count - 1; k++) {
      const prepared = await statements.prepare(k);
      try {
        await prepared.run();
      } finally {
        prepared.destroySync();
      }
    }
    return (await statements.prepare(statements.count - 1)).stream();
  });
  const columns = await describeColumns(result);
  if (output.format === 'text') await printText(result, columns, output.maxRows, io);
  else await printRows(result, columns, output.format, io);
}

/** DuckDB's error as one InputError line (what DuckDB said, and where in the SQL it points). */
async function sqlStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof UsageError || error instanceof InputError) throw error;
    throw new InputError(duckdbErrorLine(error instanceof Error ? error.message : String(error)));
  }
}

/**
 * `SQL: Parser Error: syntax error at or near "warps" (line 1, near "warps")`
 * from DuckDB's several lines (the message, hints, then `LINE n: <sql>`
 * over a caret under the place; the text from the caret on is quoted).
 */
export function duckdbErrorLine(message: string): string {
  const lines = message.replace(/^Failed to extract statements: /, '').split('\n');
  const at = lines.findIndex((l) => /^LINE \d+: /.test(l));
  const text = (at < 0 ? lines : lines.slice(0, at)).map((l) => l.trim()).filter((l) => l !== '').join(' ');
  if (at < 0) return `SQL: ${text}`;
  const m = /^LINE (\d+): /.exec(lines[at]!)!;
  const caret = lines[at + 1]?.indexOf('^') ?? -1;
  return `SQL: ${text} (line ${m[1]}${caret >= m[0].length ? `, near "${lines[at]!.slice(caret, caret + 24).trimEnd()}"` : ''})`;
}

/** The next rows of the result, null at its end (errors while the query runs, e.g. a failed cast, are DuckDB's too). */
async function nextChunk(result: DuckDBResult): Promise<DuckDBDataChunk | null> {
  const chunk = await sqlStep(() => result.fetchChunk());
  return chunk === null || chunk.rowCount === 0 ? null : chunk;
}

interface ColumnInfo {
  readonly names: readonly string[];
  /** Columns shown right-aligned in text: numbers. */
  readonly numeric: readonly boolean[];
  /** Columns whose JSON value DuckDB gives as a string though it is a number (64- and 128-bit integers, decimals). */
  readonly numberText: readonly boolean[];
  /** DuckDB's values as JSON values (DuckDB's own conversion: text for what JSON has no type for). */
  readonly converter: DuckDBValueConverter<Json>;
}

async function describeColumns(result: DuckDBResult): Promise<ColumnInfo> {
  const { DuckDBTypeId: T, JsonDuckDBValueConverter } = (await loadDuckDB()).api;
  const numericIds = new Set<number>([T.TINYINT, T.SMALLINT, T.INTEGER, T.BIGINT, T.HUGEINT, T.UTINYINT, T.USMALLINT, T.UINTEGER, T.UBIGINT, T.UHUGEINT, T.FLOAT, T.DOUBLE, T.DECIMAL]);
  const textIds = new Set<number>([T.BIGINT, T.HUGEINT, T.UBIGINT, T.UHUGEINT, T.DECIMAL]);
  const types = result.columnTypes().map((t) => t.typeId as number);
  return { names: result.columnNames(), numeric: types.map((t) => numericIds.has(t)), numberText: types.map((t) => textIds.has(t)), converter: JsonDuckDBValueConverter };
}

/** A JSON value of a column: integers DuckDB wrote as text become numbers where a double holds them exactly. */
function jsonValue(value: Json, numberText: boolean): Json {
  if (!numberText || typeof value !== 'string') return value;
  const n = Number(value);
  if (!Number.isFinite(n)) return value;
  return /^-?\d+$/.test(value) && !Number.isSafeInteger(n) ? value : n;
}

function textCell(value: Json): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return oneLine(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return oneLine(JSON.stringify(value));
}

async function printText(result: DuckDBResult, columns: ColumnInfo, maxRows: number, io: CliIo): Promise<void> {
  const rows: string[][] = [];
  let total = 0;
  for (let chunk = await nextChunk(result); chunk !== null; chunk = await nextChunk(result)) {
    total += chunk.rowCount;
    // Rows past the limit are counted, not converted.
    if (maxRows > 0 && rows.length >= maxRows) continue;
    for (const row of chunk.convertRows(columns.converter)) {
      if (maxRows > 0 && rows.length >= maxRows) break;
      rows.push(row.map(textCell));
    }
  }
  io.out(textTable(columns.names.map(oneLine), rows, columns.numeric));
  if (total > rows.length) io.out(`(${rows.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows shown: --max-rows 0 shows all, --csv and --json print every row)`);
}

/** Left-aligned text, right-aligned numbers, two spaces between columns, a rule under the header. */
export function textTable(headers: readonly string[], rows: readonly (readonly string[])[], rightAligned: readonly boolean[]): string {
  const widths = headers.map((h) => h.length);
  for (const r of rows) r.forEach((c, k) => (widths[k] = Math.max(widths[k]!, c.length)));
  const line = (r: readonly string[]) => r.map((c, k) => (rightAligned[k] ? c.padStart(widths[k]!) : c.padEnd(widths[k]!))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function printRows(result: DuckDBResult, columns: ColumnInfo, format: 'csv' | 'json', io: CliIo): Promise<void> {
  const chunks: string[] = [];
  const emit = (text: string) => (io.write !== undefined ? io.write(text) : chunks.push(text));
  const keys = uniqueNames(columns.names);
  if (format === 'csv') emit(`${columns.names.map(csvField).join(',')}\n`);
  else emit('[');
  let first = true;
  for (let chunk = await nextChunk(result); chunk !== null; chunk = await nextChunk(result)) {
    const lines: string[] = [];
    for (const row of chunk.convertRows(columns.converter)) {
      if (format === 'csv') lines.push(`${row.map((v, k) => csvCell(jsonValue(v, columns.numberText[k]!))).join(',')}\n`);
      else {
        const object: Record<string, Json> = {};
        row.forEach((v, k) => (object[keys[k]!] = jsonValue(v, columns.numberText[k]!)));
        lines.push(`${first ? '\n' : ',\n'}  ${JSON.stringify(object)}`);
        first = false;
      }
    }
    emit(lines.join(''));
  }
  if (format === 'json') emit(first ? ']\n' : '\n]\n');
  if (io.write === undefined) io.out(chunks.join('').replace(/\n$/, ''));
}

function csvCell(value: Json): string {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return csvField(value);
  return csvField(JSON.stringify(value));
}

/** Column names as JSON keys: a repeated name gets _2, _3... (SELECT 1 AS a, 2 AS a). */
function uniqueNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}
