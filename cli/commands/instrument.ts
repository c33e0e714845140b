import { existsSync, mkdirSync, readlinkSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { InputError, UsageError, oneLine, parseCommandArgs, type Command } from '../command.js';
import { checkOutputs, readInputFile, systemMessage, writeFileAtomic } from '../files.js';
import { lstatOrNull } from '../paths.js';
import { SpirvFormatError } from '../../instrument/model/binary.js';
import { FlagError, INSTRUMENT_ARG_OPTIONS, INSTRUMENT_FLAGS_HELP, optionsFromFlags } from '../../instrument/cli-options.js';
import { InstrumentError } from '../../instrument/errors.js';
import { instrumentSpirv, type InstrumentResult } from '../../instrument/instrument.js';
import { describeResult } from '../../instrument/report.js';

export const instrumentCommand: Command = {
  name: 'instrument',
  summary: 'add warp-trace records to compiled shaders (SPIR-V in, SPIR-V out)',
  help: `usage: warptrace instrument IN.spv -o OUT.spv [options]
       warptrace instrument A.spv B.spv ... -o DIR/ [options]

Wraps every entry point of each SPIR-V module (1.0-1.6; vertex, tessellation,
geometry, fragment, compute, task, mesh, ray tracing) so that each warp writes
one warp-trace record to a storage buffer: the same record, bit for bit, as the
GLSL library. Nothing else in the shader changes (instructions that end an
invocation early run after the record). With several inputs, OUT is a directory
and the outputs keep their names; if any input fails, nothing is written.

The host binds the trace buffer (std430 { uint count, capacity, flags,
reserved; uvec4 records[]; }) at --set/--binding and a uniform block
{ uint drawId; } at binding + 1, as a dynamic uniform buffer.

Options:
  -o, --output OUT      the file (one input) or directory (several) to write
  --force               replace existing outputs
  --json                print what was done as JSON
${INSTRUMENT_FLAGS_HELP}

A module that already uses the chosen set/binding, is already instrumented, or
cannot be instrumented is refused with a clear message and not written.
Exit status: 0 ok, 1 bad input, 2 usage error.

Examples:
  warptrace instrument shader.frag.spv -o shader.frag.traced.spv
  warptrace instrument build/*.spv -o build/traced/ --target lavapipe
  warptrace instrument terrain.tesc.spv -o t.spv --set 3 --binding 8 --stage-id tcs=invocation-id
  warptrace instrument scene.frag.spv -o scene.frag.traced.spv --sampling none`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      output: { type: 'string', short: 'o' },
      force: { type: 'boolean' },
      json: { type: 'boolean' },
      ...INSTRUMENT_ARG_OPTIONS,
    });
    if (positionals.length === 0) throw new UsageError('expected at least one input .spv file');
    if (values.output === undefined) throw new UsageError('missing -o OUT');
    let options;
    try {
      options = optionsFromFlags({
        target: values.target,
        set: values.set,
        binding: values.binding,
        smBuiltins: values['sm-builtins'],
        noSmBuiltins: values['no-sm-builtins'],
        subgroupStages: values['subgroup-stages'],
        clocks: values.clocks,
        stageId: values['stage-id'],
        legacySubgroup: values['legacy-subgroup'],
        entry: values.entry,
        discard: values.discard,
        sampleFs: values['sample-fs'],
        sampling: values.sampling,
        position: values.position,
        blocks: values.blocks,
        marks: values.marks,
        rayEvents: values['ray-events'],
      });
    } catch (error) {
      if (error instanceof FlagError) throw new UsageError(error.message);
      throw error;
    }

    const outputs = outputPaths(positionals, values.output);
    const force = values.force === true;
    // Into a directory still to be made: nothing there to clash with (outputPaths saw to duplicate names).
    if (positionals.length === 1 || existsSync(values.output)) checkOutputs(outputs.map((path) => ({ option: '-o', path })), positionals, force);
    // Instrument everything in memory first: one bad module writes nothing.
    const results: { input: string; output: string; result: InstrumentResult }[] = [];
    const failures: string[] = [];
    for (const [i, input] of positionals.entries()) {
      try {
        results.push({ input, output: outputs[i]!, result: instrumentSpirv(readInputFile(input), options) });
      } catch (error) {
        if (error instanceof InstrumentError || error instanceof SpirvFormatError || error instanceof InputError) failures.push(`${input}: ${error.message}`);
        else throw error;
      }
    }
    if (failures.length > 0) {
      for (const f of failures.slice(0, -1)) io.err(`warptrace instrument: ${oneLine(f)}`);
      throw new InputError(`${failures.at(-1)!}${positionals.length > 1 ? ` (${failures.length} of ${positionals.length} inputs failed; nothing written)` : ''}`);
    }
    if (positionals.length > 1 && !existsSync(values.output)) {
      // A symbolic link to a missing directory is not made through: mkdir would fail on the link's name.
      if (lstatOrNull(values.output)?.isSymbolicLink()) throw new InputError(`cannot make the directory ${values.output}: it is a symbolic link to ${readlinkSync(values.output)}, which is missing (nothing written)`);
      try {
        mkdirSync(values.output, { recursive: true });
      } catch (error) {
        throw new InputError(`cannot make the directory ${values.output}: ${systemMessage(error)} (nothing written)`);
      }
    }
    for (const r of results) await writeFileAtomic(r.output, [r.result.bytes], { overwrite: force });

    if (values.json) {
      io.out(JSON.stringify(results.map((r) => ({ input: r.input, output: r.output, set: options.set, binding: options.binding, ...summary(r.result) })), null, 2));
    } else {
      for (const r of results) io.out(describeResult(r.output, r.result, options));
    }
    return 0;
  },
};

function summary(result: InstrumentResult) {
  return { inputVersion: result.inputVersion, outputVersion: result.outputVersion, bytes: result.bytes.length, entryPoints: result.entryPoints, notes: result.notes };
}

function outputPaths(inputs: readonly string[], output: string): string[] {
  if (inputs.length === 1) {
    const isDir = existsSync(output) && statSync(output).isDirectory();
    const path = isDir ? join(output, basename(inputs[0]!)) : output;
    if (resolve(path) === resolve(inputs[0]!)) throw new UsageError('OUT must differ from IN (instrumenting in place would lose the original)');
    return [path];
  }
  if (existsSync(output) && !statSync(output).isDirectory()) throw new UsageError(`with several inputs, -o must be a directory (${output} is a file)`);
  const paths = inputs.map((i) => join(output, basename(i)));
  const seen = new Set<string>();
  for (const [k, p] of paths.entries()) {
    if (seen.has(p)) throw new UsageError(`two inputs are named ${basename(p)}: their outputs would collide in ${output}`);
    if (resolve(p) === resolve(inputs[k]!)) throw new UsageError(`${inputs[k]} would be overwritten in place; choose another output directory`);
    seen.add(p);
  }
  return paths;
}

