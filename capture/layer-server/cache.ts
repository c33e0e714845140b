/**
 * Instrumented SPIR-V by content: the same shader with the same options
 * gives the same output, so an app's pipelines are instrumented once per
 * machine, not once per run (big games create thousands of pipelines at
 * start-up, and the layer waits for each answer).
 *
 * Key: sha256(input SPIR-V, canonical options JSON, instrumenter version).
 * The version folds in a hash of the instrumenter's own code, so editing the
 * instrumenter never serves a stale module from disk.
 * Disk files carry a magic and the sha256 of their body: a truncated or
 * scribbled file is detected, ignored and rewritten. Writes go through a
 * temporary file and a rename, so readers never see half a file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_VERSION } from '../../cli/version.js';
import type { InstrumentOptions } from '../../instrument/options.js';

/** "WTSC": a warptrace SPIR-V cache file. */
const FILE_MAGIC = 0x43535457;
const FILE_FORMAT = 1;
/** magic, format, body bytes, then the body's sha256. */
const FILE_HEADER_BYTES = 12 + 32;
const SPIRV_MAGIC = 0x07230203;
/** Memory kept for recent modules; older ones are still on disk. */
const DEFAULT_MEMORY_BYTES = 256 << 20;

/** The cache folder: `override`, else $WARPTRACE_SPIRV_CACHE, else $XDG_CACHE_HOME/warptrace/spirv, else ~/.cache/warptrace/spirv. */
export function defaultCacheDir(override?: string): string {
  if (override !== undefined && override !== '') return override;
  const env = process.env['WARPTRACE_SPIRV_CACHE'];
  if (env !== undefined && env !== '') return env;
  const xdg = process.env['XDG_CACHE_HOME'];
  // XDG says a relative value is invalid and must be ignored.
  const base = xdg !== undefined && xdg.startsWith('/') ? xdg : join(homedir(), '.cache');
  return join(base, 'warptrace', 'spirv');
}

let cachedVersion: string | null = null;

/** TOOL_VERSION plus a hash of the compiled instrumenter (every .js of instrument/ next to this build). */
export function instrumenterVersion(): string {
  if (cachedVersion !== null) return cachedVersion;
  const hash = createHash('sha256');
  const instrumentDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'instrument');
  try {
    // Every pass and the module model, by path relative to the instrumenter's folder (tools/ only generates code).
    const files = (readdirSync(instrumentDir, { recursive: true, encoding: 'utf8' }) as string[])
      .filter((n) => n.endsWith('.js') && !n.startsWith('tools'))
      .sort();
    for (const name of files) hash.update(name).update('\0').update(readFileSync(join(instrumentDir, name))).update('\0');
  } catch {
    // Unreadable sources (an odd install): the tool version alone still separates releases.
  }
  cachedVersion = `${TOOL_VERSION}+${hash.digest('hex').slice(0, 16)}`;
  return cachedVersion;
}

/** JSON with object keys sorted at every level, so equal options give equal text whatever order they were built in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function cacheKey(spirv: Uint8Array, options: InstrumentOptions, version = instrumenterVersion()): string {
  const hash = createHash('sha256');
  // Lengths first: no concatenation of one (spirv, options) pair can equal another's.
  hash.update(`${spirv.length}:${version.length}:`).update(spirv).update(canonicalJson(options)).update(version);
  return hash.digest('hex');
}

export interface SpirvCacheOptions {
  /** Folder of the disk cache; null: memory only. */
  readonly dir: string | null;
  readonly memoryBytes?: number;
  /** Told once when the disk cache cannot be used (read-only home...); the cache goes on in memory. */
  readonly warn?: (message: string) => void;
}

export class SpirvCache {
  private readonly memory = new Map<string, Uint8Array>();
  private memoryUsed = 0;
  private readonly memoryLimit: number;
  private dir: string | null;
  private readonly warn: (message: string) => void;

  constructor(options: SpirvCacheOptions) {
    this.dir = options.dir;
    this.memoryLimit = options.memoryBytes ?? DEFAULT_MEMORY_BYTES;
    this.warn = options.warn ?? (() => {});
    if (this.dir !== null) {
      try {
        mkdirSync(this.dir, { recursive: true });
      } catch (error) {
        this.diskFailed(error);
      }
    }
  }

  /** The cached module, or null (absent, or a disk file that failed its checks). */
  get(key: string): Uint8Array | null {
    const hit = this.memory.get(key);
    if (hit !== undefined) {
      // Re-insert: Map order is the eviction order, oldest use first.
      this.memory.delete(key);
      this.memory.set(key, hit);
      return hit;
    }
    if (this.dir === null) return null;
    let file: Uint8Array;
    try {
      const buffer = readFileSync(this.pathOf(key));
      file = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } catch {
      return null;
    }
    const body = checkedBody(file);
    if (body === null) return null; // corrupt: the caller instruments again and put() overwrites it
    this.remember(key, body);
    return body;
  }

  put(key: string, spirv: Uint8Array): void {
    this.remember(key, spirv);
    if (this.dir === null) return;
    const path = this.pathOf(key);
    // Unique per process and call: two CLIs sharing the cache never write the same temporary file.
    const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      writeFileSync(temp, encodeFile(spirv));
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      this.diskFailed(error);
    }
  }

  /** Where a key's file lives (tests corrupt it). */
  pathOf(key: string): string {
    if (this.dir === null) throw new Error('memory-only cache has no files');
    return join(this.dir, `${key}.spv`);
  }

  private remember(key: string, spirv: Uint8Array): void {
    if (spirv.length > this.memoryLimit) return;
    const old = this.memory.get(key);
    if (old !== undefined) this.memoryUsed -= old.length;
    this.memory.delete(key);
    this.memory.set(key, spirv);
    this.memoryUsed += spirv.length;
    for (const [oldest, bytes] of this.memory) {
      if (this.memoryUsed <= this.memoryLimit) break;
      this.memory.delete(oldest);
      this.memoryUsed -= bytes.length;
    }
  }

  private diskFailed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.warn(`SPIR-V cache ${this.dir}: ${message}; caching in memory only`);
    this.dir = null;
  }
}

function encodeFile(spirv: Uint8Array): Uint8Array {
  const out = new Uint8Array(FILE_HEADER_BYTES + spirv.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, FILE_MAGIC, true);
  view.setUint32(4, FILE_FORMAT, true);
  view.setUint32(8, spirv.length, true);
  out.set(createHash('sha256').update(spirv).digest(), 12);
  out.set(spirv, FILE_HEADER_BYTES);
  return out;
}

/** The body of a cache file that passes every check, else null. */
function checkedBody(file: Uint8Array): Uint8Array | null {
  if (file.length < FILE_HEADER_BYTES + 20) return null;
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (view.getUint32(0, true) !== FILE_MAGIC || view.getUint32(4, true) !== FILE_FORMAT) return null;
  if (view.getUint32(8, true) !== file.length - FILE_HEADER_BYTES) return null;
  const body = file.slice(FILE_HEADER_BYTES);
  const digest = createHash('sha256').update(body).digest();
  if (!digest.equals(file.subarray(12, FILE_HEADER_BYTES))) return null;
  if (body.length % 4 !== 0 || new DataView(body.buffer).getUint32(0, true) !== SPIRV_MAGIC) return null;
  return body;
}
