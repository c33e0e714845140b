/**
 * File I/O for the CLI: reading traces with clear errors, and writing
 * outputs atomically so a failed run never leaves half a file behind or
 * silently replaces a user's trace.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { decodeTrace, type Trace } from '../../shared-schema/index.js';
import { readShared } from '../../shared-schema/node/convert-pool.js';
import { InputError } from './command.js';

/** Node's readFile limit; traces this large belong in a streaming tool. */
const MAX_FILE_BYTES = 2 ** 31 - 1;

/** A file's bytes; `shared`: in shared memory, for the conversion threads to read in place. */
export function readInputFile(path: string, shared = false): Uint8Array {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new InputError(`${path} is not a file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`cannot read ${path}: ${systemMessage(error)}`);
  }
  if (size > MAX_FILE_BYTES) throw new InputError(`${path} is ${size} bytes; files over 2 GiB are not supported`);
  try {
    if (shared) return readShared(path);
    const buffer = readFileSync(path);
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } catch (error) {
    throw new InputError(`cannot read ${path}: ${systemMessage(error)}`);
  }
}

/** Reads and decodes a trace file of any supported format. */
export function readTraceFile(path: string): Trace {
  return decodeTrace(readInputFile(path));
}

export interface WriteOptions {
  /** Replace an existing file (otherwise refuse: it may be someone's trace). */
  readonly overwrite: boolean;
}

/**
 * Writes `chunks` to `path` through a temporary file in the same directory,
 * fsynced and renamed into place: the old file survives any failure.
 */
export function writeFileAtomic(path: string, chunks: Iterable<Uint8Array | string>, options: WriteOptions): number {
  const target = resolve(path);
  if (!options.overwrite && existsSync(target)) {
    throw new InputError(`${path} already exists (use --force to replace it)`);
  }
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  let fd: number | null = null;
  let written = 0;
  try {
    fd = openSync(temp, 'wx');
    for (const chunk of chunks) written += typeof chunk === 'string' ? writeSync(fd, chunk) : writeSync(fd, chunk);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temp, target);
    return written;
  } catch (error) {
    if (fd !== null) closeSync(fd);
    rmSync(temp, { force: true });
    if (error instanceof InputError) throw error;
    throw new InputError(`cannot write ${path}: ${systemMessage(error)}`);
  }
}

function systemMessage(error: unknown): string {
  if (error instanceof Error && 'code' in error) {
    switch ((error as NodeJS.ErrnoException).code) {
      case 'ENOENT':
        return 'no such file or directory';
      case 'EACCES':
      case 'EPERM':
        return 'permission denied';
      case 'EISDIR':
        return 'is a directory';
      case 'ENOSPC':
        return 'no space left on device';
      default:
        return error.message;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/** Human-readable byte size. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(2)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
