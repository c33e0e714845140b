import { encodeWtrace, traceToJson } from '../../../shared-schema/index.js';
import { UsageError, parseCommandArgs, type Command } from '../command.js';
import { formatBytes, readTraceFile, writeFileAtomic } from '../files.js';

export const convertCommand: Command = {
  name: 'convert',
  summary: 'convert a trace (.wtraw, JSON, .wtrace) to .wtrace or JSON, calibrating raw clocks',
  help: `usage: warptrace convert IN -o OUT [--force]

Reads IN (.wtraw raw GPU dump, warptrace JSON, or .wtrace, recognized by
content) and writes OUT as .wtrace, or as warptrace JSON when OUT ends in
.json. Raw dumps are calibrated on the way: each SM's clock is mapped to the
device clock (see shared-schema/README.md).

Options:
  -o, --output OUT   the file to write (required)
  --force            replace OUT if it exists
  -h, --help

The output is written to a temporary file and renamed into place, so a failed
run never leaves a partial file and never clobbers an existing one without
--force. Exit status: 0 ok, 1 bad input or unwritable output, 2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      output: { type: 'string', short: 'o' },
      force: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one input file');
    if (values.output === undefined) throw new UsageError('missing -o OUT');
    const input = positionals[0]!;
    const output = values.output;
    const trace = readTraceFile(input);
    const asJson = output.toLowerCase().endsWith('.json');
    const bytes = asJson ? new TextEncoder().encode(JSON.stringify(traceToJson(trace))) : encodeWtrace(trace);
    if (resolvePath(input) === resolvePath(output)) throw new UsageError('OUT must differ from IN');
    writeFileAtomic(output, [bytes], { overwrite: values.force === true });
    const cal = trace.capture.calibration;
    const perWarp = trace.warps.count > 0 ? `, ${(bytes.length / trace.warps.count).toFixed(1)} B/warp` : '';
    io.out(
      `wrote ${output}: ${trace.warps.count.toLocaleString('en-US')} warps, ${formatBytes(bytes.length)}${perWarp}; ` +
        `calibration ${cal.method}, SMs aligned: ${cal.alignedAcrossSms ? 'yes' : 'NO'}; ` +
        `${trace.capture.recordsWritten - trace.capture.recordsKept} records dropped`,
    );
    return 0;
  },
};

function resolvePath(p: string): string {
  return new URL(p, `file://${process.cwd()}/`).pathname;
}
