/**
 * App start-up with and without the capture layer (capture/layer/), on the
 * apps of the lavapipe CI: `vkcube --c 1` (one frame, then exit: its wall time
 * is its start-up) and `vkd3d-gears` (never exits: timed to its first present,
 * seen in the X server's framebuffer, then killed). Configurations, each timed
 * spawn → exit (or first present), N runs interleaved round-robin after one
 * untimed warm-up round:
 *   no layer; layer loaded but not tracing (no WARPTRACE_SOCKET: it forwards);
 *   tracing with the instrument server already up in this process (the CLI's
 *   own start is timed apart) and a warm on-disk SPIR-V cache; the same with a
 *   fresh, empty SPIR-V cache per run; and breakdowns (Mesa's shader cache
 *   cold too; a 1,024-record trace buffer; STAGES=tcs, a stage these apps do
 *   not have: tracing set up, no twin pipeline; STAGES=cs: compute twins only).
 *   WARPTRACE_FRAME=100000: nothing is captured, only start-up is timed.
 * The X server is one Xvfb (what `xvfb-run -a` starts) run by the bench with
 * -fbdir, so that a present shows as pixels in a file; its start is not timed.
 *   npm run bench:layer-startup                 (7 runs each)
 *   npm run bench:layer-startup -- --runs 15 --apps vkcube
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { layerEnvironment, type CaptureSelection } from '../capture/capture-run/app-environment.js';
import { LAYER_LIBRARY, LAYER_MANIFEST, buildLayer } from '../capture/capture-run/layer-build.js';
import { REPO_ROOT } from '../capture/capture-run/paths.js';
import type { LayerEvent } from '../capture/layer-server/requests.js';
import { InstrumentServer } from '../capture/layer-server/server.js';

interface App {
  readonly name: string;
  readonly argv: readonly string[];
  /** Timed to the first present (the app never exits), else to its exit. */
  readonly untilPresent: boolean;
}

interface Config {
  readonly name: string;
  readonly layer: 'none' | 'forward' | 'trace';
  readonly spirvCache: 'warm' | 'cold';
  readonly driverCache: 'warm' | 'cold';
  readonly env: Readonly<Record<string, string>>;
}

interface RunResult {
  readonly ms: number;
  /** Instrument requests answered, of which served from the SPIR-V cache. */
  readonly requests: number;
  readonly hits: number;
  readonly skipped: number;
  /** CPU time of this process during the run: the instrument server, and for apps timed to a present the framebuffer polling. */
  readonly serverCpuMs: number;
  readonly device: string | null;
}

const APPS: readonly App[] = [
  { name: 'vkcube', argv: ['vkcube', '--c', '1'], untilPresent: false },
  { name: 'vkd3d-gears', argv: ['vkd3d-gears'], untilPresent: true },
];

const CONFIGS: readonly Config[] = [
  { name: 'no layer', layer: 'none', spirvCache: 'warm', driverCache: 'warm', env: {} },
  { name: 'layer, not tracing (no socket)', layer: 'forward', spirvCache: 'warm', driverCache: 'warm', env: {} },
  { name: 'tracing, warm SPIR-V cache', layer: 'trace', spirvCache: 'warm', driverCache: 'warm', env: {} },
  { name: 'tracing, cold SPIR-V cache', layer: 'trace', spirvCache: 'cold', driverCache: 'warm', env: {} },
  { name: 'no layer, cold Mesa cache', layer: 'none', spirvCache: 'warm', driverCache: 'cold', env: {} },
  { name: 'tracing, cold SPIR-V + Mesa caches', layer: 'trace', spirvCache: 'cold', driverCache: 'cold', env: {} },
  { name: 'tracing, warm, CAPACITY=1024', layer: 'trace', spirvCache: 'warm', driverCache: 'warm', env: { WARPTRACE_CAPACITY: '1024' } },
  { name: 'tracing, warm, STAGES=tcs (no twins)', layer: 'trace', spirvCache: 'warm', driverCache: 'warm', env: { WARPTRACE_STAGES: 'tcs' } },
  { name: 'tracing, warm, STAGES=cs (no graphics twins)', layer: 'trace', spirvCache: 'warm', driverCache: 'warm', env: { WARPTRACE_STAGES: 'cs' } },
];

/** A frame the apps never reach: the layer arms a capture that never starts. */
const NEVER_FRAME = 100_000;
const RUN_TIMEOUT_MS = 120_000;

function option(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

const runs = Number(option('--runs') ?? process.env['RUNS'] ?? 7);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: expected a positive integer, got ${option('--runs')}`);
const appNames = (option('--apps') ?? APPS.map((a) => a.name).join(',')).split(',');
const apps = APPS.filter((a) => appNames.includes(a.name) && onPath(a.argv[0]!));
const missing = appNames.filter((n) => !apps.some((a) => a.name === n));

function onPath(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Spawns a command and resolves with its wall time in ms (spawn → exit) and exit code. */
function timeCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: performance.now() - t0, code }));
  });
}

/** An Xvfb of our own, with its screen in a file (-fbdir): a present is pixels that change there. */
class VirtualScreen {
  private readonly fd: number;
  private readonly pixelOffset: number;
  private readonly rowBytes: number;
  /** Rows of the top-left corner (where windows open without a window manager) that are sampled. */
  private readonly rows = [24, 96, 160];
  private readonly sample = Buffer.alloc(256 * 4);

  private constructor(
    private readonly server: ChildProcess,
    readonly display: string,
    fbFile: string,
  ) {
    this.fd = openSync(fbFile, 'r');
    const header = Buffer.alloc(100);
    readSync(this.fd, header, 0, header.length, 0);
    // XWD header (big-endian u32s): [0] header size, [11] bits per pixel, [12] bytes per line, [19] colormap entries (12 B each).
    if (header.readUInt32BE(11 * 4) !== 32) throw new Error('Xvfb framebuffer: expected 32 bits per pixel');
    this.rowBytes = header.readUInt32BE(12 * 4);
    this.pixelOffset = header.readUInt32BE(0) + header.readUInt32BE(19 * 4) * 12;
  }

  static async start(dir: string): Promise<VirtualScreen> {
    const server = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '640x480x24', '-nolisten', 'tcp', '-fbdir', dir], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    });
    const display = await new Promise<string>((resolve, reject) => {
      let text = '';
      server.once('error', (e) => reject(new Error(`cannot start Xvfb (install xvfb): ${e.message}`)));
      server.once('exit', (code) => reject(new Error(`Xvfb exited (${code}) before it was ready`)));
      server.stdio[3]?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(`:${text.trim()}`);
      });
    });
    return new VirtualScreen(server, display, join(dir, 'Xvfb_screen0'));
  }

  /** True when a sampled pixel is not the black root window (a window's background is black too, or left alone). */
  painted(): boolean {
    for (const y of this.rows) {
      readSync(this.fd, this.sample, 0, this.sample.length, this.pixelOffset + y * this.rowBytes);
      for (let i = 0; i < this.sample.length; i += 4) if (this.sample.readUInt32LE(i) !== 0) return true;
    }
    return false;
  }

  /** Waits until the last app's window is gone from the screen. */
  async waitBlank(): Promise<void> {
    const t0 = performance.now();
    while (this.painted()) {
      if (performance.now() - t0 > 5000) throw new Error('the screen is not blank 5 s after the last app exited');
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  stop(): void {
    closeSync(this.fd);
    this.server.kill('SIGTERM');
  }
}

/** One timed run of `app` in `config`. */
async function runOnce(app: App, config: Config, ctx: { manifestDir: string; screen: VirtualScreen; temp: string; warmSpirv: string; warmMesa: string; run: number }): Promise<RunResult> {
  const selection: CaptureSelection = { frame: NEVER_FRAME, submits: null, trigger: null, stages: null, draws: null, capacity: null };
  const runDir = join(ctx.temp, `run-${ctx.run}`);
  mkdirSync(runDir, { recursive: true });
  const base: NodeJS.ProcessEnv = { ...process.env, DISPLAY: ctx.screen.display };
  for (const name of Object.keys(base)) if (name.startsWith('WARPTRACE_') || name === 'VK_INSTANCE_LAYERS' || name === 'VK_ADD_LAYER_PATH') delete base[name];
  base['MESA_SHADER_CACHE_DIR'] = config.driverCache === 'warm' ? ctx.warmMesa : join(runDir, 'mesa');
  let server: InstrumentServer | null = null;
  let skipped = 0;
  let env: NodeJS.ProcessEnv = base;
  if (config.layer !== 'none') {
    const socketPath = join(runDir, 'layer.sock');
    if (config.layer === 'trace') {
      const cacheDir = config.spirvCache === 'warm' ? ctx.warmSpirv : join(runDir, 'spirv');
      const onEvent = (event: LayerEvent) => {
        if (event.event === 'skipped') skipped++;
      };
      server = await InstrumentServer.start({ socketPath, cacheDir, onEvent });
    }
    env = { ...layerEnvironment(base, { manifestDir: ctx.manifestDir, socketPath, rawOutput: join(runDir, 'never.wtraw'), selection }), ...config.env };
    if (config.layer === 'forward') {
      delete env['WARPTRACE_SOCKET'];
      delete env['WARPTRACE_OUTPUT'];
    }
  }
  let stderr = '';
  await ctx.screen.waitBlank();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const child = spawn(app.argv[0]!, app.argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A program that cannot start reads as "exit code null" with the error in stderr.
  const exited = new Promise<string>((resolve) => {
    child.once('error', (e) => ((stderr += e.message), resolve('exit code null')));
    child.once('exit', (code, signal) => resolve(signal !== null ? `killed by ${signal}` : `exit code ${code}`));
  });
  let ms: number;
  try {
    if (app.untilPresent) {
      ms = await new Promise<number>((resolve, reject) => {
        const poll = setInterval(() => {
          const now = performance.now();
          const painted = ctx.screen.painted();
          if (painted || now - t0 > RUN_TIMEOUT_MS) clearInterval(poll);
          if (painted) resolve(now - t0);
          else if (now - t0 > RUN_TIMEOUT_MS) reject(new Error(`${app.name}: no present within ${RUN_TIMEOUT_MS} ms`));
        }, 1);
        void exited.then((code) => {
          clearInterval(poll);
          reject(new Error(`${app.name} (${config.name}): ${code} before its first present: ${stderr.trim()}`));
        });
      });
    } else {
      const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
      const code = await exited;
      ms = performance.now() - t0;
      clearTimeout(timer);
      if (code !== 'exit code 0') throw new Error(`${app.name} (${config.name}): ${code}: ${stderr.trim()}`);
    }
  } finally {
    // Gears once it has presented, or any app on an error of ours: never left running.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    if (server !== null) await server.close();
  }
  const cpu = process.cpuUsage(cpu0);
  const layerSaid = stderr.includes('warptrace-layer:');
  if ((config.layer === 'forward') !== layerSaid && config.layer !== 'trace') {
    throw new Error(`${app.name} (${config.name}): the layer ${layerSaid ? 'spoke' : 'said nothing'}; expected ${config.layer === 'forward' ? 'its not-traced line' : 'no layer'}`);
  }
  let result: RunResult = { ms, requests: 0, hits: 0, skipped: 0, serverCpuMs: (cpu.user + cpu.system) / 1000, device: null };
  if (server !== null) {
    // The layer's requests are answered before the pipeline call returns: all are in by the first present or the exit.
    const s = server.stats;
    const hello = server.hellos[0];
    if (hello === undefined) throw new Error(`${app.name} (${config.name}): the layer never connected: ${stderr.trim()}`);
    const name = hello.device['name'] ?? hello.device['deviceName'];
    result = { ...result, requests: s.instrumented + s.cacheHits + s.refused, hits: s.cacheHits, skipped, device: typeof name === 'string' ? name : null };
  }
  rmSync(runDir, { recursive: true, force: true });
  return result;
}

const temp = mkdtempSync(join(tmpdir(), 'warptrace-startup-'));
const loadBefore = loadavg();
const started = new Date();
try {
  const buildStart = performance.now();
  const builtDir = await buildLayer();
  const firstBuildMs = performance.now() - buildStart;
  // A private copy: the build folder is shared, and a rebuild during the bench must not change the layer timed.
  const manifestDir = join(temp, 'layer');
  mkdirSync(manifestDir);
  for (const name of [LAYER_MANIFEST, LAYER_LIBRARY]) copyFileSync(join(builtDir, name), join(manifestDir, name));
  const commit = spawnSync('git', ['-C', REPO_ROOT, 'log', '-1', '--format=%h', '--', 'capture/layer'], { encoding: 'utf8' }).stdout.trim() || builtDir;
  mkdirSync(join(temp, 'fb'));
  const screen = await VirtualScreen.start(join(temp, 'fb'));
  const ctx = { manifestDir, screen, temp, warmSpirv: join(temp, 'spirv-warm'), warmMesa: join(temp, 'mesa-warm'), run: 0 };
  const results = new Map<string, RunResult[]>();
  const key = (app: App, config: Config) => `${app.name}\0${config.name}`;
  try {
    for (const app of apps) {
      // Round 0 is the warm-up (fills the warm caches, the page cache); rounds 1..N are timed, configurations interleaved.
      for (let round = 0; round <= runs; round++) {
        for (const config of CONFIGS) {
          ctx.run++;
          const r = await runOnce(app, config, ctx);
          if (round > 0) results.set(key(app, config), [...(results.get(key(app, config)) ?? []), r]);
        }
        process.stderr.write(`\r${app.name}: round ${round}/${runs}`);
      }
      process.stderr.write('\n');
    }
  } finally {
    screen.stop();
  }

  // What `warptrace capture -- APP` adds before the app starts: node loading the CLI, and the layer build check (cmake).
  const node = process.execPath;
  const cli: { name: string; ms: number[] }[] = [
    { name: '`node -e 0` (Node itself)', ms: [] },
    { name: '`node bin/warptrace.js --help`', ms: [] },
    { name: 'buildLayer() when up to date (`cmake --build`)', ms: [] },
    { name: 'InstrumentServer.start() + close()', ms: [] },
  ];
  for (let round = 0; round <= runs; round++) {
    const times = [
      (await timeCommand([node, '-e', '0'], process.env)).ms,
      (await timeCommand([node, join(REPO_ROOT, 'bin', 'warptrace.js'), '--help'], process.env)).ms,
    ];
    let t = performance.now();
    await buildLayer();
    times.push(performance.now() - t);
    t = performance.now();
    const s = await InstrumentServer.start({ socketPath: join(temp, 'cli.sock'), cacheDir: join(temp, 'spirv-warm') });
    await s.close();
    times.push(performance.now() - t);
    if (round > 0) times.forEach((ms, i) => cli[i]!.ms.push(ms));
  }

  const fmt = (ms: number) => ms.toFixed(0);
  const rows: string[][] = [];
  let device: string | null = null;
  for (const app of apps) {
    const baseline = median(results.get(key(app, CONFIGS[0]!))!.map((r) => r.ms));
    for (const config of CONFIGS) {
      const rs = results.get(key(app, config))!;
      const ms = rs.map((r) => r.ms);
      const med = median(ms);
      const last = rs[rs.length - 1]!;
      device ??= last.device;
      const requests = config.layer === 'trace' ? `${last.requests} (${last.hits} cached)${last.skipped > 0 ? `, ${last.skipped} skipped` : ''}` : '';
      rows.push([
        app.name,
        config.name,
        fmt(med),
        fmt(Math.min(...ms)),
        config === CONFIGS[0] ? '' : `${med - baseline >= 0 ? '+' : ''}${fmt(med - baseline)}`,
        requests,
        fmt(median(rs.map((r) => r.serverCpuMs))),
      ]);
    }
  }
  const headers = ['app (timed until)', 'configuration', 'median ms', 'min ms', 'Δ median', 'instrument requests', 'bench CPU ms'];
  const table = (hs: readonly string[], rs: readonly string[][]) => {
    const widths = hs.map((h, i) => Math.max(h.length, ...rs.map((r) => r[i]!.length)));
    const line = (r: readonly string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
    return [line(hs), line(widths.map((w) => '-'.repeat(w))), ...rs.map(line)].join('\n');
  };
  const until = (app: App) => (app.untilPresent ? 'first present' : 'exit');
  for (const row of rows) row[0] = `${row[0]} (${until(apps.find((a) => a.name === row[0])!)})`;
  const loadAfter = loadavg();
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  console.log(`${started.toISOString().slice(0, 16)}Z, node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${device ?? 'device ?'}`);
  console.log(`median and min of ${runs} runs per configuration (interleaved, after a warm-up round); load average ${load(loadBefore)} before, ${load(loadAfter)} after`);
  console.log(`layer ${commit} (first buildLayer() of this bench: ${fmt(firstBuildMs)} ms); WARPTRACE_FRAME=${NEVER_FRAME} (nothing captured)`);
  if (missing.length > 0) console.log(`not on this machine (skipped): ${missing.join(', ')}`);
  console.log(table(headers, rows));
  console.log('');
  console.log(table(['what `warptrace capture` adds before the app', 'median ms', 'min ms'], cli.map((c) => [c.name, fmt(median(c.ms)), fmt(Math.min(...c.ms))])));
} finally {
  rmSync(temp, { recursive: true, force: true });
}
