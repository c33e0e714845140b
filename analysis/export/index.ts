/** The export formatters: pure functions returning strings (the CLI and the viewer write or download them). */
export { summaryToJson, drawReport, DRAW_SUMMARY_SCHEMA, type DrawReport } from './json.js';
export { stagesCsv, drawsCsv, drawStagesCsv, findingsCsv, summaryCsv, CSV_TABLES, type CsvTable } from './csv.js';
export { summaryToMarkdown, diffToMarkdown, type MarkdownOptions } from './markdown.js';
export { perfettoJsonChunks, type PerfettoOptions, type PerfettoStats } from './perfetto.js';
export { perfettoProtoChunks, type PerfettoProtoOptions, type PerfettoProtoStats } from './perfetto-proto.js';
export { drawArgs, type ArgRecord, type ArgValue } from './perfetto-args.js';
export { csvField, mdText } from './escape.js';
