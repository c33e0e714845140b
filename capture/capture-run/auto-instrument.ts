/**
 * `warptrace capture --instrument auto`: the workloads' plain SPIR-V (no
 * warptrace.glsl) instrumented by the SPIR-V instrumenter for what the device
 * offers, so the reference workloads run with unmodified shaders.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { InputError } from '../../cli/command.js';
import { SpirvFormatError } from '../../instrument/model/binary.js';
import { InstrumentError } from '../../instrument/errors.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { DEFAULT_OPTIONS, INSTRUMENTED_STAGES, type InstrumentOptions } from '../../instrument/options.js';
import { buildDir } from './paths.js';
import { stageOfShaderFile, type DeviceProfile } from './shaders.js';

/** Instrumenter options matching the GLSL library's switches for this device (see traceDefines). */
export function autoInstrumentOptions(profile: DeviceProfile, base: InstrumentOptions = DEFAULT_OPTIONS): InstrumentOptions {
  return {
    ...base,
    smBuiltins: profile.smBuiltins,
    subgroupClock: profile.subgroupClock,
    deviceClock: profile.deviceClock,
    subgroupStages: INSTRUMENTED_STAGES.filter((s) => profile.subgroupStages.includes(s)),
    // As traceDefines sets WT_POSITION=0: no position word on subgroups wider than 32 lanes.
    ...(profile.subgroupSize !== undefined && profile.subgroupSize > 32 ? { positionStages: [] } : {}),
  };
}

/**
 * Instruments every DIR/*.spv of a plain shader set into a new directory
 * (default: under the build directory, keyed by the options) and returns it.
 */
export function autoInstrumentSet(plainDir: string, options: InstrumentOptions, outDir?: string): string {
  // Workload shaders of stages the instrumenter does not take are left out: only the workloads
  // that use them (ray tracing, meshlets) then miss their traced SPIR-V.
  const instrumented = new Set<string>(INSTRUMENTED_STAGES);
  const files = readdirSync(plainDir)
    .filter((f) => f.endsWith('.spv'))
    .filter((f) => {
      const stage = stageOfShaderFile(f);
      return stage === undefined || instrumented.has(stage);
    })
    .sort();
  if (files.length === 0) throw new InputError(`${plainDir}: no .spv files to instrument`);
  const key = createHash('sha256').update(JSON.stringify({ plainDir, options })).digest('hex').slice(0, 12);
  const dir = outDir ?? join(buildDir(), 'spv', `auto-${key}`);
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    let bytes: Uint8Array;
    try {
      bytes = instrumentSpirv(new Uint8Array(readFileSync(join(plainDir, file))), options).bytes;
    } catch (error) {
      if (error instanceof InstrumentError || error instanceof SpirvFormatError) throw new InputError(`cannot instrument ${file}: ${error.message}`);
      throw error;
    }
    const out = join(dir, file);
    const temp = `${out}.${process.pid}.tmp`;
    writeFileSync(temp, bytes);
    renameSync(temp, out);
  }
  return dir;
}
