/**
 * Output paths checked before any work: a conversion of 10 M warps should
 * not run for a minute and then refuse to write. Paths are file names
 * (`#`, `?`, spaces and Unicode included), compared after resolving `.`,
 * `..` and symbolic links, so `a.json` and `./a.json` are one file. An
 * output that is a symbolic link names the file the link points to, even one
 * that does not exist yet (a dangling link): that file is what is written
 * (writeFileAtomic writes through the link and keeps it), so it is what the
 * checks compare.
 */
import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError, UsageError } from './command.js';

/** An output file and the option that named it (`-o`, `--json`...), for messages. */
export interface Output {
  readonly option: string;
  readonly path: string;
}

/** Links followed before giving up, as Linux does (ELOOP after 40). */
const MAX_LINK_HOPS = 40;

/**
 * The file `path` names: symbolic links resolved, its directory's as far as
 * they exist and its own even when they point to a missing file (a dangling
 * `b.json -> a.json` names a.json, which an output `a.json` also names).
 */
export function canonicalPath(path: string): string {
  let current = resolve(path);
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    const directory = realDirectory(dirname(current));
    const here = join(directory, basename(current));
    let target: string;
    try {
      target = readlinkSync(here);
    } catch {
      return here; // not a link, or not there: the name itself
    }
    current = resolve(directory, target);
  }
  return current; // a loop of links: writing to it fails with its own message
}

/** A directory with its symbolic links resolved, as far as it exists (the rest as given). */
function realDirectory(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    const parent = dirname(dir);
    return parent === dir ? dir : join(realDirectory(parent), basename(dir));
  }
}

/** True when `a` and `b` name the same file. */
export function samePath(a: string, b: string): boolean {
  return canonicalPath(a) === canonicalPath(b);
}

/**
 * Refuses, before any work: an output that is one of the inputs or that
 * another output also names (usage errors, exit 2, naming both); an output
 * that is a directory, whose directory does not exist, or (without `force`)
 * that exists (exit 1).
 */
export function checkOutputs(outputs: readonly Output[], inputs: readonly string[], force: boolean): void {
  const inputPaths = inputs.map(canonicalPath);
  const seen: { output: Output; path: string }[] = [];
  for (const output of outputs) {
    const path = canonicalPath(output.path);
    const input = inputPaths.indexOf(path);
    if (input >= 0) throw new UsageError(`${output.option} ${output.path} is the input ${inputs[input]}: OUT must differ from IN`);
    const twin = seen.find((s) => s.path === path);
    if (twin !== undefined) throw new UsageError(`${twin.output.option} ${twin.output.path} and ${output.option} ${output.path} are the same file`);
    seen.push({ output, path });
  }
  for (const { path } of outputs) {
    const stat = outputStat(path);
    if (stat?.isDirectory()) throw new InputError(`cannot write ${path}: is a directory`);
    // lstat: a symbolic link to a missing file exists too; writing creates the file it points to.
    const link = stat === null && lstatOrNull(path)?.isSymbolicLink() === true;
    if (stat !== null && !force) throw new InputError(`${path} already exists (use --force to replace it)`);
    if (link && !force) {
      const target = readlinkSync(path);
      throw new InputError(`${path} already exists as a symbolic link to ${target}, which is missing (use --force to write ${target} through it)`);
    }
    if (stat !== null) continue;
    const parent = dirname(canonicalPath(path));
    if (!statOrNull(parent)?.isDirectory()) throw new InputError(`cannot write ${path}: no such directory ${link ? parent : dirname(path)}`);
  }
}

/** The output's file (through links), null when there is none; a loop of links is refused. */
function outputStat(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new InputError(`cannot write ${path}: its symbolic links make a loop`);
    return null;
  }
}

/** The file's stat through its links, or null when there is none. */
export function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** The path's own stat (a link itself, not its target), or null when there is none. */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
