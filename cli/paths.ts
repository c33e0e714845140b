/**
 * Output paths checked before any work: a conversion of 10 M warps should
 * not run for a minute and then refuse to write. Paths are file names
 * (`#`, `?`, spaces and Unicode included), compared after resolving `.`,
 * `..` and symbolic links, so `a.json` and `./a.json` are one file.
 */
import { realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError, UsageError } from './command.js';

/** An output file and the option that named it (`-o`, `--json`...), for messages. */
export interface Output {
  readonly option: string;
  readonly path: string;
}

/** The file `path` names: symbolic links in it resolved, as far as they exist. */
function canonicalPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    // Not there yet: its directory may be (or may be reached through a link).
  }
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
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
    const stat = statOrNull(path);
    if (stat?.isDirectory()) throw new InputError(`cannot write ${path}: is a directory`);
    if (stat !== null && !force) throw new InputError(`${path} already exists (use --force to replace it)`);
    const parent = dirname(resolve(path));
    if (stat === null && !statOrNull(parent)?.isDirectory()) throw new InputError(`cannot write ${path}: no such directory ${dirname(path)}`);
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
