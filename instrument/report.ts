/** One human-readable paragraph about an instrumented module (CLI output). */
import { RecordFlag } from '../shared-schema/raw-layout.js';
import { DRAW_SAMPLE_WORD } from '../shared-schema/sample-layout.js';
import type { InstrumentResult } from './instrument.js';
import { isRayTracingStage, type InstrumentOptions } from './options.js';

/** Where a position's pixel comes from, per stage that records one (every ray-tracing stage: the launch id). */
function pixelSource(stage: string): string {
  return stage === 'FS' ? 'gl_FragCoord.xy' : stage === 'CS' ? 'gl_GlobalInvocationID.xy' : 'gl_LaunchIDEXT.xy';
}

export function describeResult(output: string, result: InstrumentResult, options: InstrumentOptions): string {
  const version = result.inputVersion === result.outputVersion ? `SPIR-V ${result.outputVersion}` : `SPIR-V ${result.inputVersion} -> ${result.outputVersion}`;
  const rays = options.rayEvents && result.entryPoints.some((e) => isRayTracingStage(e.stage)) ? `, ray-event table binding ${options.binding + 3}` : '';
  const lines = [`wrote ${output} (${version}, ${result.bytes.length.toLocaleString('en-US')} bytes); trace buffer set ${options.set} binding ${options.binding}, draw id binding ${options.binding + 1}${options.blocks ? `, block table binding ${options.binding + 2}` : ''}${rays}`];
  for (const e of result.entryPoints) {
    const record = e.subgroup === 'none' ? 'one record per invocation' : `one record per warp${e.subgroup === 'khr-ballot' ? ' (SPV_KHR_shader_ballot)' : ''}`;
    const clocks = [(e.flags & RecordFlag.SM_CLOCK) !== 0 ? 'SM clock' : null, (e.flags & RecordFlag.DEVICE_CLOCK) !== 0 ? 'device clock' : null].filter((c) => c !== null).join(' + ');
    const position = e.position ? `, screen position (${pixelSource(e.stage)}${e.subgroup === 'none' ? '' : ', subgroups up to 32 lanes'})` : '';
    lines.push(`  ${e.stage.padEnd(3)} "${e.name}": ${record}, ${clocks}, ${e.smBuiltins ? 'SM id and warp slot' : 'no SM id'}, custom id ${e.customId}${position}`);
  }
  lines.push(
    options.sampling === 'runtime'
      ? `  sampling: each warp decides before its first clock from its stage's rate in the draw-id block (words ${DRAW_SAMPLE_WORD}-${DRAW_SAMPLE_WORD + 1}; 0, the default: every warp records)`
      : '  sampling: none (every warp of a traced draw records)',
  );
  for (const note of result.notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}
