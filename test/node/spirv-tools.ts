// Debian's glslangValidator / spirv-val / spirv-as / spirv-link for the SPIR-V
// tests: compiles test/spirv-corpus at test time, validates with the target
// environment that matches a module's SPIR-V version.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stageOfShaderFile } from '../../capture/capture-run/shaders.js';
import { repoPath } from './paths.js';

const run = promisify(execFile);

/** glslang --target-env values, with the SPIR-V version each produces. */
export const GLSL_TARGETS = [
  { env: 'vulkan1.0', spirv: '1.0' },
  { env: 'spirv1.1', spirv: '1.1' },
  { env: 'spirv1.2', spirv: '1.2' },
  { env: 'vulkan1.1', spirv: '1.3' },
  { env: 'spirv1.4', spirv: '1.4' },
  { env: 'vulkan1.2', spirv: '1.5' },
  { env: 'vulkan1.3', spirv: '1.6' },
] as const;

/** spirv-val --target-env for a module of SPIR-V version `version` ("1.4"). */
export function validationEnv(version: string): string {
  switch (version) {
    case '1.0':
      return 'vulkan1.0';
    case '1.1':
    case '1.2':
    case '1.3':
      return 'vulkan1.1';
    case '1.4':
      return 'vulkan1.1spv1.4';
    case '1.5':
      return 'vulkan1.2';
    case '1.6':
      return 'vulkan1.3';
    default:
      throw new Error(`no Vulkan environment for SPIR-V ${version}`);
  }
}

/** The graphics and compute stages every SPIR-V version has (ray tracing needs 1.4, mesh shaders 1.4 or NV). */
export const CLASSIC_STAGE_NAMES = ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'];

export interface CorpusModule {
  /** e.g. "alpha.frag@vulkan1.0" */
  readonly id: string;
  readonly source: string;
  readonly stage: string;
  readonly env: string;
  readonly spirv: string;
  readonly bytes: Uint8Array;
}

/** SPIR-V before 1.3: subgroup operations only through the legacy extensions. */
export const legacy = (m: CorpusModule): boolean => Number(m.spirv.split('.')[1]) < 3;

/** Runs async jobs with at most `limit` at once (CI has 2 cores). */
export async function pool<T, R>(items: readonly T[], limit: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await job(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export const workDir = mkdtempSync(join(tmpdir(), 'warptrace-spirv-'));

/** Compiles every corpus shader (or those of the stages given) for every target it declares (`// targets: ...`, default all). */
export async function compileCorpus(stages?: readonly string[]): Promise<CorpusModule[]> {
  const dir = repoPath('test', 'spirv-corpus');
  const jobs: { source: string; stage: string; env: string; spirv: string; hlsl: boolean }[] = [];
  for (const source of readdirSync(dir).sort()) {
    const hlsl = source.endsWith('.hlsl');
    const stage = stageOfShaderFile(hlsl ? source.slice(0, -5) : source);
    if (stage === undefined || (stages !== undefined && !stages.includes(stage))) continue;
    const text = readFileSync(join(dir, source), 'utf8');
    const declared = /^\/\/ targets: (.*)$/m.exec(text)?.[1]?.split(/\s+/);
    for (const t of GLSL_TARGETS) if (!declared || declared.includes(t.env)) jobs.push({ source, stage, env: t.env, spirv: t.spirv, hlsl });
  }
  return pool(jobs, 2, async (j) => {
    const out = join(workDir, `${j.source}@${j.env}.spv`);
    const stageArgs = j.hlsl ? ['-D', '-S', j.source.split('.').at(-2)!, '-e', 'main'] : [];
    try {
      await run('glslangValidator', ['-V', ...stageArgs, '--target-env', j.env, join(dir, j.source), '-o', out]);
    } catch (error) {
      throw new Error(`glslangValidator failed on ${j.source} for ${j.env}: ${(error as { stdout?: string }).stdout ?? error}`);
    }
    return { id: `${j.source}@${j.env}`, source: j.source, stage: j.stage, env: j.env, spirv: j.spirv, bytes: new Uint8Array(readFileSync(out)) };
  });
}

let counter = 0;
/** spirv-val; resolves to null when valid, else the validator's message. */
export async function spirvVal(bytes: Uint8Array, env: string): Promise<string | null> {
  const path = join(workDir, `val-${process.pid}-${counter++}.spv`);
  writeFileSync(path, bytes);
  try {
    await run('spirv-val', ['--target-env', env, path]);
    return null;
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string };
    return `${e.stderr ?? ''}${e.stdout ?? ''}`.trim() || String(error);
  }
}

/** spirv-as: assembles SPIR-V text. */
export async function spirvAs(text: string, env: string): Promise<Uint8Array> {
  const input = join(workDir, `as-${counter++}.spvasm`);
  const output = `${input}.spv`;
  writeFileSync(input, text);
  await run('spirv-as', ['--target-env', env, input, '-o', output]);
  return new Uint8Array(readFileSync(output));
}

/** spirv-link: one module with the entry points of all of them. */
export async function spirvLink(modules: readonly Uint8Array[], env: string): Promise<Uint8Array> {
  const inputs = modules.map((m) => {
    const p = join(workDir, `link-${counter++}.spv`);
    writeFileSync(p, m);
    return p;
  });
  const output = join(workDir, `linked-${counter++}.spv`);
  await run('spirv-link', ['--target-env', env, ...inputs, '-o', output]);
  return new Uint8Array(readFileSync(output));
}

export async function spirvDis(bytes: Uint8Array): Promise<string> {
  const path = join(workDir, `dis-${counter++}.spv`);
  writeFileSync(path, bytes);
  return (await run('spirv-dis', ['--raw-id', path], { maxBuffer: 64 * 1024 * 1024 })).stdout;
}

/** Compiles one GLSL source string (for negative tests). */
export async function compileGlsl(source: string, stage: string, env: string): Promise<Uint8Array> {
  const input = join(workDir, `inline-${counter++}.${stage}`);
  writeFileSync(input, source);
  await run('glslangValidator', ['-V', '--target-env', env, input, '-o', `${input}.spv`]);
  return new Uint8Array(readFileSync(`${input}.spv`));
}

/** Compiles one corpus file with extra glslang flags (e.g. -g, -gV for debug info). */
export async function compileCorpusFile(source: string, env: string, extra: readonly string[]): Promise<Uint8Array> {
  const out = join(workDir, `${source}@${env}${extra.join('')}.spv`);
  await run('glslangValidator', ['-V', ...extra, '--target-env', env, repoPath('test', 'spirv-corpus', source), '-o', out]);
  return new Uint8Array(readFileSync(out));
}
