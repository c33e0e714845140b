/**
 * Capture overhead: where the cost of tracing goes.
 *
 *   node dist/bench/overhead.js local [--rounds N]   run the breakdown here (any Vulkan device)
 *   node dist/bench/overhead.js bundle DIR           prepare a run for an NVIDIA GPU elsewhere:
 *                                                    harness, SPIR-V of every variant, run-device.sh
 *   node dist/bench/overhead.js report DIR           print the tables of DIR/bench/*.json
 *
 * Each variant adds one cost to the previous one (capture/shaders/warptrace.glsl,
 * WT_VARIANT_*); all run the same workload in the same process, frames
 * interleaved round by round, and the table gives median GPU frame times
 * (timestamp queries around each frame) relative to the plain twin.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { StageName } from '../shared-schema/index.js';
import { buildNative } from '../capture/capture-run/native.js';
import { probeDevice } from '../capture/capture-run/harness.js';
import { ALL_STAGES, NVIDIA_PROFILE, PLAIN, compileShaderSet, type DeviceProfile, type ShaderSetOptions } from '../capture/capture-run/shaders.js';
import { runTool } from '../capture/capture-run/tools.js';

export interface BenchVariant {
  readonly name: string;
  readonly what: string;
  readonly shaders: ShaderSetOptions;
  /** Host hooks on: draw ids bound and per-draw timestamps written. */
  readonly hooks: boolean;
  /** With hooks: per-draw timestamps off. */
  readonly noTimestamps?: boolean;
}

const only = (stages: StageName[], what: string, name: string): BenchVariant => ({
  name,
  what,
  shaders: { tracedStages: stages },
  hooks: true,
});

/** In table order: the plain baseline, then one cost added at a time, then alternatives. */
export const VARIANTS: readonly BenchVariant[] = [
  { name: 'plain', what: 'plain twin (no tracing)', shaders: PLAIN, hooks: false },
  { name: 'ids-only', what: 'plain shaders + draw-id rebinding per draw (no timestamps)', shaders: PLAIN, hooks: true, noTimestamps: true },
  { name: 'hooks', what: 'plain shaders + host hooks (draw-id rebinding, 2 timestamps per draw)', shaders: PLAIN, hooks: true },
  { name: 'clock', what: '+ SM clock read at start and end (no memory traffic)', shaders: { tracedStages: ALL_STAGES, variant: 1 }, hooks: true },
  { name: 'clocks', what: '+ device clock read at the end', shaders: { tracedStages: ALL_STAGES, variant: 2 }, hooks: true },
  { name: 'ballot', what: '+ ballot and leader election', shaders: { tracedStages: ALL_STAGES, variant: 3 }, hooks: true },
  { name: 'atomic', what: '+ atomic slot allocation (one per warp)', shaders: { tracedStages: ALL_STAGES, variant: 4 }, hooks: true },
  { name: 'record', what: '+ 32-byte record, two 16-byte stores (the shipped default)', shaders: { tracedStages: ALL_STAGES, variant: 5 }, hooks: true },
  { name: 'scalar32', what: 'same record as eight 4-byte stores', shaders: { tracedStages: ALL_STAGES, variant: 6 }, hooks: true },
  { name: 'record16', what: '16-byte record, one vector store (the 2016 size)', shaders: { tracedStages: ALL_STAGES, variant: 7 }, hooks: true },
  { name: 'naive48', what: '48-byte record: 64-bit clocks read twice each, broadcasts, 12 stores', shaders: { tracedStages: ALL_STAGES, variant: 8 }, hooks: true },
  { name: 'early', what: 'record with the slot allocated in the prologue (atomic latency hidden)', shaders: { tracedStages: ALL_STAGES, variant: 9 }, hooks: true },
  { name: 'record-nots', what: 'record without per-draw timestamps', shaders: { tracedStages: ALL_STAGES, variant: 5 }, hooks: true, noTimestamps: true },
  { name: 'ballot-any', what: 'ballot electing any lane (no helper-lane test)', shaders: { tracedStages: ALL_STAGES, variant: 10 }, hooks: true },
  { name: 'ballot-nosm', what: 'ballot without reading gl_SMIDNV / gl_WarpIDNV', shaders: { tracedStages: ALL_STAGES, variant: 11 }, hooks: true },
  { name: 'record-any', what: 'record electing any lane (no helper-lane test; may lose FS records)', shaders: { tracedStages: ALL_STAGES, variant: 12 }, hooks: true },
  { name: 'sharded', what: 'record with one atomic counter per SM (other layout; cost only)', shaders: { tracedStages: ALL_STAGES, variant: 13 }, hooks: true },
  { name: 'sampled8', what: 'record for 1 warp in 8 in every stage (clocks always read)', shaders: { tracedStages: ALL_STAGES, variant: 14 }, hooks: true },
  { name: 'fs-sampled8', what: 'record in every stage, FS warps sampled 1 in 8', shaders: { tracedStages: ALL_STAGES, variant: 5, stageVariants: { FS: 14 } }, hooks: true },
  { name: 'no-FS', what: 'record in every stage but FS', shaders: { tracedStages: ['VS', 'TCS', 'TES', 'GS', 'CS'] }, hooks: true },
  { name: 'helper', what: 'clocks + the helper-lane test', shaders: { tracedStages: ALL_STAGES, variant: 15 }, hooks: true },
  { name: 'smid', what: 'clocks + reading gl_SMIDNV / gl_WarpIDNV', shaders: { tracedStages: ALL_STAGES, variant: 16 }, hooks: true },
  { name: 'lean', what: 'record with ids and draw id read by the leader only', shaders: { tracedStages: ALL_STAGES, variant: 17 }, hooks: true },
  { name: 'dep', what: 'record; the atomic operand depends on both clocks', shaders: { tracedStages: ALL_STAGES, variant: 18 }, hooks: true },
  { name: 'devfirst', what: 'record; device clock read before the SM end clock', shaders: { tracedStages: ALL_STAGES, variant: 19 }, hooks: true },
  { name: 'devfirst-dep', what: 'record; device clock first, atomic depends on both clocks', shaders: { tracedStages: ALL_STAGES, variant: 20 }, hooks: true },
  { name: 'hdrcap', what: 'record bounded by the header capacity word (a load) instead of the array length', shaders: { tracedStages: ALL_STAGES, variant: 21 }, hooks: true },
  { name: 'nocheck', what: 'record without capacity test (unsafe, cost only)', shaders: { tracedStages: ALL_STAGES, variant: 22 }, hooks: true },
  { name: 'nodraw', what: 'record without the draw-id uniform load (cost only)', shaders: { tracedStages: ALL_STAGES, variant: 23 }, hooks: true },
  { name: 'record-efz', what: 'record + early_fragment_tests in the FS (depth test before the shader, as in the plain twin)', shaders: { tracedStages: ALL_STAGES, variant: 5, extraDefines: ['-DWT_EARLY_FRAGMENT_TESTS=1'] }, hooks: true },
  { name: 'record-sampling', what: 'record with the per-warp sampling test at rate 1 (WT_SAMPLING 1, the library default)', shaders: { tracedStages: ALL_STAGES, variant: 5, extraDefines: ['-DWT_SAMPLING=1'] }, hooks: true },
  { name: 'prologue-s8', what: 'record for 1 warp in 8 in every stage, decided in wtBegin before any clock', shaders: { tracedStages: ALL_STAGES, variant: 5, extraDefines: ['-DWT_SAMPLING=1', '-DWT_SAMPLE_LOG2=3'] }, hooks: true },
  { name: 'no-custom-id', what: 'record without the shader\'s custom id (the FS reads no gl_PrimitiveID)', shaders: { tracedStages: ALL_STAGES, variant: 5, extraDefines: ['-DWT_DROP_CUSTOM_ID=1'] }, hooks: true },
  only(['VS'], 'record, VS only traced', 'only-VS'),
  only(['TCS'], 'record, TCS only traced', 'only-TCS'),
  only(['TES'], 'record, TES only traced', 'only-TES'),
  only(['GS'], 'record, GS only traced', 'only-GS'),
  only(['FS'], 'record, FS only traced', 'only-FS'),
  only(['CS'], 'record, CS only traced', 'only-CS'),
];

/** Workload configurations of the breakdown: light and heavy shading. */
export const CONFIGS: readonly { readonly id: string; readonly workload: string; readonly params: readonly string[] }[] = [
  { id: 'aqt-light', workload: 'aqt', params: ['shading=0', 'tcsWork=8', 'tesWork=0'] },
  { id: 'aqt-heavy', workload: 'aqt', params: ['shading=256', 'tcsWork=128', 'tesWork=32'] },
  { id: 'syncs-light', workload: 'syncs', params: ['shading=0'] },
  { id: 'compute-graphics-light', workload: 'compute-graphics', params: ['csWork=4', 'gsWork=0', 'shading=0'] },
];

/** The variants that matter to a workload (stages it has). */
function variantsFor(workload: string): BenchVariant[] {
  const pick = process.env['WT_BENCH_VARIANTS']?.split(',');
  if (pick !== undefined) return VARIANTS.filter((v) => pick.includes(v.name));
  const stages: Record<string, StageName[]> = {
    aqt: ['VS', 'TCS', 'TES', 'FS'],
    syncs: ['VS', 'FS'],
    'compute-graphics': ['VS', 'GS', 'FS', 'CS'],
  };
  const has = stages[workload] ?? ALL_STAGES;
  return VARIANTS.filter((v) => !v.name.startsWith('only-') || has.includes(v.name.slice(5) as StageName));
}

async function compileVariants(profile: DeviceProfile, root: string | null): Promise<Map<string, string>> {
  const dirs = new Map<string, string>();
  for (const v of VARIANTS) {
    // The rows before issue 25 measured shaders without the sampling test: they keep it out unless they ask for it.
    const defines = v.shaders.extraDefines ?? [];
    const shaders = defines.some((d) => d.startsWith('-DWT_SAMPLING=')) ? v.shaders : { ...v.shaders, extraDefines: [...defines, '-DWT_SAMPLING=0'] };
    const dir = await compileShaderSet(profile, shaders, root === null ? undefined : join(root, 'spv', v.name));
    dirs.set(v.name, dir);
  }
  return dirs;
}

function benchArgs(config: (typeof CONFIGS)[number], dirs: Map<string, string>, rounds: number, json: string): string[] {
  const args = ['--bench', '--workload', config.workload, '--rounds', String(rounds), '--warmup', '10', '--json', json];
  for (const p of config.params) args.push('--param', p);
  for (const v of variantsFor(config.workload)) {
    args.push(!v.hooks ? '--plain-variant' : v.noTimestamps === true ? '--variant-no-timestamps' : '--variant', `${v.name}=${dirs.get(v.name)}`);
  }
  return args;
}

async function local(rounds: number): Promise<void> {
  const binary = await buildNative();
  const profile = await probeDevice(binary);
  const dirs = await compileVariants(profile, null);
  const out = resolve('.capture-build', 'bench');
  mkdirSync(join(out, 'bench'), { recursive: true });
  for (const config of CONFIGS) {
    const r = await runTool(binary, benchArgs(config, dirs, rounds, join(out, 'bench', `${config.id}.json`)), '');
    process.stdout.write(r.stdout);
    if (r.code !== 0) throw new Error(r.stderr);
  }
  report(out);
}

/** Writes DIR/{wt-capture-vk, spv/VARIANT/*.spv, run-device.sh} for an NVIDIA GPU (paths relative to the repo root there). */
async function bundle(dir: string): Promise<void> {
  const binary = await buildNative();
  mkdirSync(dir, { recursive: true });
  copyFileSync(binary, join(dir, 'wt-capture-vk'));
  chmodSync(join(dir, 'wt-capture-vk'), 0o755);
  // A second link against the system libstdc++, for machines whose C library predates Debian 12's.
  const objects = join(dirname(binary), 'CMakeFiles', 'wt-capture-vk.dir', 'src');
  const link = await runTool('g++', [...readdirSync(objects).filter((f) => f.endsWith('.o')).map((f) => join(objects, f)), '-lvulkan', '-o', join(dir, 'wt-capture-vk-dyn')], 'install g++');
  if (link.code !== 0) throw new Error(link.stderr);
  const dirs = await compileVariants(NVIDIA_PROFILE, dir);
  const rel = (p: string) => relative(process.cwd(), p);
  const B = rel(dir);
  const relDirs = new Map([...dirs].map(([k, v]) => [k, rel(v)]));
  const lines = [
    '#!/bin/bash',
    '# Generated by bench/overhead.ts bundle: runs on the lent GPU from the repository root.',
    '# Results go to /tmp/r and come back as $OUT/results.tgz.',
    `B=${B}; BIN=$B/wt-capture-vk; R=/tmp/r; mkdir -p $R/raw $R/bench $R/log`,
    "save() { tar czf $OUT/results.tgz -C /tmp r; }; trap save EXIT",
    '# Each step stops early when the 10-minute limit of a run comes near.',
    'left() { [ $SECONDS -lt 470 ] || { echo "skipped: $*"; return 1; }; }',
    'for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig',
    'chmod +x $B/wt-capture-vk $B/wt-capture-vk-dyn',
    '$BIN --probe > $R/probe.json 2> $R/log/probe.err || { BIN=$B/wt-capture-vk-dyn; $BIN --probe > $R/probe.json 2> $R/log/probe.err; }',
    'if ! grep -q NVIDIA $R/probe.json; then export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; $BIN --probe > $R/probe.json 2> $R/log/probe.err; fi',
    'cat $R/probe.json $R/log/probe.err; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.csv 2>&1; cat $R/gpu.csv',
    'cap() { local id=$1; shift; left $id || return; timeout 60 $BIN --shaders $B/spv/record --plain-shaders $B/spv/plain --out $R/raw/$id.wtraw "$@" > $R/log/$id.json 2> $R/log/$id.err; echo "capture $id exit $?"; cat $R/log/$id.json; tail -2 $R/log/$id.err; save; }',
    'WHAT=${WHAT:-captures stats bench}',
    'if [[ $WHAT == *captures* ]]; then',
    'capv() { local v=$1; shift; local id=$1; shift; left $id || return; timeout 60 $BIN --shaders $B/spv/$v --plain-shaders $B/spv/plain --out $R/raw/$id.wtraw "$@" > $R/log/$id.json 2> $R/log/$id.err; echo "capture $id exit $?"; cat $R/log/$id.json; save; }',
    '  for v in record dep devfirst devfirst-dep; do capv $v cg-$v --workload compute-graphics --overhead-frames 30; capv $v busy-$v --workload busy-loop --overhead-frames 10 --param work=512 --param groups=2048 --param width=256 --param height=256; done',
    '  cap aqt --workload aqt --overhead-frames 60',
    '  cap aqt-light --workload aqt --overhead-frames 60 --param shading=0 --param tcsWork=8 --param tesWork=0',
    '  cap aqt-clear --workload aqt --overhead-frames 20 --clear-in-frame',
    '  cap aqt-heavy --workload aqt --overhead-frames 40 --param shading=256 --param tcsWork=128 --param tesWork=32',
    '  cap tess-stall --workload tess-stall --overhead-frames 40',
    '  cap tess-stall-mild --workload tess-stall --overhead-frames 20 --param spikeCost=48',
    '  cap syncs --workload syncs --overhead-frames 60',
    '  cap syncs-light --workload syncs --overhead-frames 60 --param shading=0',
    '  cap compute-graphics --workload compute-graphics --overhead-frames 60',
    '  cap busy-64 --workload busy-loop --overhead-frames 20 --param work=64 --param groups=264 --param width=256 --param height=256',
    '  cap busy-512 --workload busy-loop --overhead-frames 20 --param work=512 --param groups=264 --param width=256 --param height=256',
    'fi',
  ];
  lines.push('if [[ $WHAT == *stats* ]]; then');
  for (const config of CONFIGS) {
    const args = benchArgs(config, relDirs, 1, '/dev/null').map((a) => `'${a}'`);
    lines.push(`  left stats-${config.id} && { timeout 60 $BIN ${args.join(' ')} --warmup 0 --stats $R/bench/stats-${config.id}.jsonl > /dev/null 2> $R/log/stats-${config.id}.err; echo "stats ${config.id} exit $?"; save; }`);
  }
  lines.push('fi', 'if [[ $WHAT == *bench* ]]; then');
  for (const config of CONFIGS) {
    const args = benchArgs(config, relDirs, 100, `$R/bench/${config.id}.json`).map((a) => (a.includes('$R') ? a : `'${a}'`));
    lines.push(
      `  left ${config.id} && { timeout 90 $BIN ${args.join(' ')} 2> $R/log/bench-${config.id}.err | tee $R/log/bench-${config.id}.txt; ` +
        `echo "bench ${config.id} exit $?"; tail -2 $R/log/bench-${config.id}.err; save; }`,
    );
  }
  lines.push('fi', '');
  writeFileSync(join(dir, 'run-device.sh'), lines.join('\n'));
  chmodSync(join(dir, 'run-device.sh'), 0o755);
  process.stdout.write(`bundle in ${dir}: run \`bash ${B}/run-device.sh\` from the repository root on the GPU machine\n`);
}

interface BenchJson {
  readonly workload: string;
  readonly device: string;
  readonly rounds: number;
  readonly parameters: Record<string, number>;
  readonly variants: readonly { name: string; medianNs: number; p25Ns: number; p75Ns: number; ratio: number }[];
}

/** Prints one Markdown table per bench JSON in DIR/bench. */
function report(dir: string): void {
  const benchDir = join(dir, 'bench');
  if (!existsSync(benchDir)) throw new Error(`${benchDir}: no bench results`);
  for (const file of readdirSync(benchDir).filter((f) => f.endsWith('.json')).sort()) {
    const b = JSON.parse(readFileSync(join(benchDir, file), 'utf8')) as BenchJson;
    const params = Object.entries(b.parameters).map(([k, v]) => `${k}=${v}`).join(' ');
    const out = [`### ${file.replace(/\.json$/, '')}: ${b.workload} on ${b.device}, ${b.rounds} rounds`, '', `Parameters: ${params}`, ''];
    out.push('| variant | what it adds | median frame (µs) | p25–p75 (µs) | × plain |', '|---|---|---:|---:|---:|');
    for (const v of b.variants) {
      const what = VARIANTS.find((x) => x.name === v.name)?.what ?? '';
      out.push(`| ${v.name} | ${what} | ${(v.medianNs / 1000).toFixed(1)} | ${(v.p25Ns / 1000).toFixed(1)}–${(v.p75Ns / 1000).toFixed(1)} | ${v.ratio.toFixed(3)} |`);
    }
    process.stdout.write(`${out.join('\n')}\n\n`);
  }
}

const [command, arg] = process.argv.slice(2);
if (command === 'local') {
  const i = process.argv.indexOf('--rounds');
  await local(i > 0 ? Number(process.argv[i + 1]) : 30);
} else if (command === 'bundle' && arg !== undefined) {
  await bundle(resolve(arg));
} else if (command === 'report' && arg !== undefined) {
  report(arg);
} else {
  process.stderr.write('usage: node dist/bench/overhead.js local [--rounds N] | bundle DIR | report DIR\n');
  process.exitCode = 2;
}
