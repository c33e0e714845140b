/**
 * File I/O for the CLI: reading traces with clear errors, and writing
 * outputs atomically so a failed run never leaves half a file behind or
 * silently replaces a user's trace. Command-line arguments are paths, never
 * URLs: `#`, `?`, spaces and any Unicode are just characters of a name.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { TraceFormatError, decodeTrace, type RawDecodeOptions, type Trace } from '../shared-schema/index.js';
import { describeBlocks } from '../instrument/block-map.js';
import { readShared } from '../shared-schema/node/convert-pool.js';
import { checkFileDeclaredSize } from '../shared-schema/node/declared-size.js';
import { InputError } from './command.js';
import { canonicalPath, lstatOrNull, statOrNull } from './paths.js';
import { removeOnSignal } from './signals.js';

export { checkOutputs, samePath, type Output } from './paths.js';

/** Node's readFile limit; traces this large belong in a streaming tool. */
const MAX_FILE_BYTES = 2 ** 31 - 1;
/** Bytes written between returns to the event loop, where a Ctrl-C is handled (the temporary file removed). */
const WRITE_SLICE_BYTES = 8 << 20;

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
    // A header declaring another length than the file's is refused before the file is read whole.
    checkFileDeclaredSize(path, size);
    if (shared) return readShared(path);
    const buffer = readFileSync(path);
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } catch (error) {
    if (error instanceof TraceFormatError) throw error;
    throw new InputError(`cannot read ${path}: ${systemMessage(error)}`);
  }
}

/** How the CLI decodes raw dumps: block-profiled modules mapped to their source (instrument/block-map.ts). */
export const DECODE_OPTIONS: RawDecodeOptions = { describeModule: describeBlocks };

/** Reads and decodes a trace file of any supported format. */
export function readTraceFile(path: string): Trace {
  return decodeTrace(readInputFile(path), DECODE_OPTIONS);
}

/** fs.writeSync's contract: writes up to `length` bytes of `data` from `offset`, returns how many it wrote (maybe fewer). */
export type WriteCall = (fd: number, data: Uint8Array, offset: number, length: number) => number;

export interface WriteOptions {
  /** Replace an existing file (otherwise refuse: it may be someone's trace). */
  readonly overwrite: boolean;
  /** The write call (tests inject short writes and a full disk); fs.writeSync by default. */
  readonly write?: WriteCall;
}

/**
 * Writes `chunks` to `path` through a temporary file in the same directory
 * (`.NAME.PID.tmp`), fsynced and renamed into place: the old file survives
 * any failure, a short write included (a full disk), and SIGINT/SIGTERM/SIGHUP
 * remove the temporary file. Chunks are produced while writing, so an output
 * larger than one string (10 M warps of JSON) never exists in memory.
 * A symbolic link is written through: the file it points to is replaced, or
 * made if the link dangles, and the link stays (renaming onto the link would
 * lose it; checkOutputs compares outputs by that file too). Existing means
 * the name exists, a dangling link included: it needs `overwrite`.
 * Returns the bytes written.
 */
export async function writeFileAtomic(path: string, chunks: Iterable<Uint8Array | string>, options: WriteOptions): Promise<number> {
  const target = canonicalPath(path);
  const existed = statOrNull(target) ?? lstatOrNull(path);
  if (existed !== null && existed.isDirectory()) throw new InputError(`cannot write ${path}: is a directory`);
  if (!options.overwrite && existed !== null) throw new InputError(`${path} already exists (use --force to replace it)`);
  const write: WriteCall = options.write ?? writeSync;
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  const encoder = new TextEncoder();
  const release = removeOnSignal(temp);
  let fd: number | null = null;
  let written = 0;
  try {
    fd = disk(() => openSync(temp, 'wx'));
    let turnAt = 0;
    for (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
      // A write may take fewer bytes than asked (a nearly full disk): go on until all are taken.
      for (let offset = 0; offset < bytes.length; ) {
        const n = disk(() => write(fd!, bytes, offset, Math.min(bytes.length - offset, WRITE_SLICE_BYTES)));
        if (!(n > 0)) throw new DiskError(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
        offset += n;
        written += n;
        if (written - turnAt >= WRITE_SLICE_BYTES) {
          turnAt = written;
          await nextTurn();
        }
      }
    }
    disk(() => fsyncSync(fd!));
    disk(() => closeSync(fd!));
    fd = null;
    disk(() => renameSync(temp, target));
    syncDirectory(dirname(target));
    return written;
  } catch (error) {
    if (fd !== null) closeQuietly(fd);
    rmSync(temp, { force: true });
    if (!(error instanceof DiskError)) throw error; // from making the chunks: not a write error
    const kept = existed !== null ? `${path} is unchanged` : 'nothing was written';
    if (errorCode(error.cause) === 'ENOSPC') throw new InputError(`no space left on device writing ${path} (stopped after ${formatBytes(written)}; ${kept})`);
    throw new InputError(`cannot write ${path}: ${systemMessage(error.cause)} (${kept})`);
  } finally {
    release();
  }
}

/** A failed file-system call while writing (as opposed to an error making the data). */
class DiskError extends Error {
  constructor(override readonly cause: unknown) {
    super(systemMessage(cause));
  }
}

function disk<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw new DiskError(error);
  }
}

/** Lets the event loop run (signal handlers among others) between slices of a long write. */
function nextTurn(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** Makes the rename durable; a directory that cannot be opened or synced (some filesystems) is no error. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The file itself is complete and in place; only its durability across a power cut is less certain.
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already failing: the first error is the one to report.
  }
}



/** An fs error's code (ENOSPC, EPIPE...), or undefined for anything else. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error ? String((error as NodeJS.ErrnoException).code) : undefined;
}

export function systemMessage(error: unknown): string {
  switch (errorCode(error)) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EFBIG':
      return 'file too large (for the filesystem, or past the file size limit of ulimit -f)';
    case 'EROFS':
      return 'read-only filesystem';
    case 'EBADF':
      return 'bad file descriptor';
    case 'EIO':
      return 'input/output error';
    case 'EEXIST':
      return 'a temporary file of that name exists (remove it)';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** Human-readable byte size. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(2)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
