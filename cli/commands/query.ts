import { sqlTablesHelp } from '../../analysis/sql-schema.js';
import { traceSqlTables } from '../../analysis/sql-tables.js';
import { UsageError, parseCommandArgs, type Command } from '../command.js';
import { readTraceFile } from '../files.js';
import { runSql, type QueryFormat } from '../sql/run-sql.js';
import { openTraceDatabase } from '../sql/trace-database.js';
import { describeSampling } from '../../shared-schema/sampling.js';
import { integerOption, THRESHOLD_OPTION, thresholdsFrom } from './analysis-shared.js';

const DEFAULT_MAX_ROWS = 1000;

export const queryCommand: Command = {
  name: 'query',
  summary: 'SQL over a trace (DuckDB): tables warps, draws, regions, findings',
  help: `usage: warptrace query FILE SQL [--csv | --json] [--max-rows N] [--threshold NAME=VALUE]...

Runs SQL (DuckDB's dialect) on FILE (.wtrace, .wtraw or warptrace JSON) and
prints the rows of its last statement. The trace is four tables (views over
the trace's own columns: nothing is copied before the query runs, and a
query reads only the columns it names). Times are ns since the capture
origin; NULL means not recorded. \`findings\` runs the analyses of warptrace
stats when a query reads it (--threshold applies).

${sqlTablesHelp()}

Options:
  --csv           every row as CSV
  --json          every row as a JSON array of objects (64-bit integers
                  beyond 2^53 as strings)
  --max-rows N    text table: the first N rows (default ${DEFAULT_MAX_ROWS}; 0: all), then
                  how many there were
  --threshold NAME=VALUE   detector threshold for findings (see warptrace stats --help)
  -h, --help

Examples:
  warptrace query frame.wtrace "SELECT stage, count(*) AS warps, sum(duration_ns) AS warp_time_ns FROM warps GROUP BY stage"
  warptrace query frame.wtrace "SELECT d.draw, d.label, max(w.end_ns) - min(w.start_ns) AS span_ns
      FROM warps w JOIN draws d USING (draw) GROUP BY ALL ORDER BY span_ns DESC LIMIT 10"
  warptrace query frame.wtrace "SELECT kind, count(*), sum(cost_ns) FROM findings GROUP BY kind" --csv

Exit status: 0 ok, 1 unreadable file or an SQL error (DuckDB's message),
2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      csv: { type: 'boolean' },
      json: { type: 'boolean' },
      'max-rows': { type: 'string' },
      threshold: THRESHOLD_OPTION,
    });
    if (positionals.length !== 2) throw new UsageError('expected FILE and SQL (quote the SQL as one argument)');
    if (values.csv === true && values.json === true) throw new UsageError('--csv and --json exclude each other');
    const format: QueryFormat = values.csv === true ? 'csv' : values.json === true ? 'json' : 'text';
    if (values['max-rows'] !== undefined && format !== 'text') throw new UsageError('--max-rows applies to the text table (--csv and --json print every row)');
    const maxRows = integerOption(values['max-rows'], '--max-rows') ?? DEFAULT_MAX_ROWS;
    const thresholds = thresholdsFrom(values.threshold);
    const [file, sql] = positionals as [string, string];
    if (sql.trim() === '') throw new UsageError('the SQL is empty');

    const trace = readTraceFile(file);
    if (trace.capture.sampling !== null) {
      // On standard error, so --csv and --json output stays the rows alone.
      io.err(`warptrace query: a sampled capture (${describeSampling(trace.capture.sampling)}): warps holds the recorded warps; sum(sampled_every) estimates a count, sum(duration_ns * sampled_every) a warp time`);
    }
    const database = await openTraceDatabase(traceSqlTables(trace, { thresholds }));
    try {
      await runSql(database.connection, sql, { format, maxRows }, io);
    } finally {
      database.close();
    }
    return 0;
  },
};
