/**
 * JSON.stringify's text in chunks: the same characters as
 * `JSON.stringify(value, null, indent)`, yielded a piece at a time so a
 * summary of 300,000 draws (over 500 MB of JSON, past V8's longest string)
 * can be written to a file. Iterative, so depth costs no stack either.
 */

/** Characters per yielded chunk, about (default 1 Mi). */
export const DEFAULT_CHUNK_CHARS = 1 << 20;

interface Frame {
  readonly container: readonly unknown[] | Readonly<Record<string, unknown>>;
  /** Object keys; null for an array. */
  readonly keys: readonly string[] | null;
  next: number;
  /** Whether an item has been written (objects skip undefined values). */
  written: boolean;
  readonly indent: string;
}

/** What JSON.stringify serializes in place of `value` (its toJSON, if any). */
function resolved(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  return value;
}

/** Values JSON.stringify leaves out of objects (and writes as null in arrays). */
function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Values (counted over every level) up to which a container is written by JSON.stringify in one piece. */
const SMALL_VALUES = 4096;
/** ... and levels: JSON.stringify recurses, so nothing deeper goes to it. */
const SMALL_DEPTH = 64;

/** True when `root` has at most SMALL_VALUES values within SMALL_DEPTH levels, and no toJSON of its own. */
function isSmall(root: object): boolean {
  if (typeof (root as { toJSON?: unknown }).toJSON === 'function') return false;
  const stack: { value: object; depth: number }[] = [{ value: root, depth: 0 }];
  let values = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    const items: readonly unknown[] = Array.isArray(value) ? value : Object.values(value);
    values += items.length;
    if (values > SMALL_VALUES) return false;
    for (const item of items) {
      if (typeof item !== 'object' || item === null) continue;
      if (depth + 1 >= SMALL_DEPTH) return false;
      stack.push({ value: item, depth: depth + 1 });
    }
  }
  return true;
}

export function* jsonChunks(value: unknown, indent = 2, chunkChars = DEFAULT_CHUNK_CHARS): Generator<string, void, undefined> {
  const gap = ' '.repeat(Math.max(0, Math.min(10, indent)));
  const newline = gap === '' ? '' : '\n';
  const colon = gap === '' ? ':' : ': ';
  const parts: string[] = [];
  let size = 0;
  const add = (text: string) => {
    parts.push(text);
    size += text.length;
  };
  const stack: Frame[] = [];
  /** The containers being written (JSON.stringify refuses a cycle; without the check this would never end). */
  const open = new Set<unknown>();

  /** Writes a primitive, or opens a container (its items follow from the stack). */
  const write = (v: unknown, indent: string) => {
    if (v === null) return add('null');
    switch (typeof v) {
      case 'string':
        return add(JSON.stringify(v));
      case 'number':
        return add(Number.isFinite(v) ? String(v) : 'null');
      case 'boolean':
        return add(v ? 'true' : 'false');
      case 'bigint':
        throw new TypeError('Do not know how to serialize a BigInt');
      case 'object': {
        if (open.has(v)) throw new TypeError('Converting circular structure to JSON');
        if (isSmall(v)) {
          // JSON.stringify is ~3× faster than this loop: whole for what is known to be small (a draw of a
          // summary), re-indented to where it sits (its newlines are all structure: strings escape theirs).
          const text = JSON.stringify(v, null, gap);
          return add(newline === '' || indent === '' ? text : text.replaceAll('\n', `\n${indent}`));
        }
        if (Array.isArray(v)) {
          if (v.length === 0) return add('[]');
          add('[');
          open.add(v);
          stack.push({ container: v, keys: null, next: 0, written: false, indent });
        } else {
          add('{');
          open.add(v);
          stack.push({ container: v as Record<string, unknown>, keys: Object.keys(v), next: 0, written: false, indent });
        }
        return;
      }
      default:
        return add('null');
    }
  };

  const root = resolved(value, '');
  if (isSkipped(root)) return; // JSON.stringify gives undefined: no text at all
  write(root, '');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const inner = frame.indent + gap;
    if (frame.keys === null) {
      const items = frame.container as readonly unknown[];
      if (frame.next === items.length) {
        add(`${newline}${frame.indent}]`);
        open.delete(stack.pop()!.container);
      } else {
        add(`${frame.next === 0 ? '' : ','}${newline}${inner}`);
        const item = resolved(items[frame.next], String(frame.next));
        frame.next++;
        if (isSkipped(item)) add('null');
        else write(item, inner);
      }
    } else if (frame.next === frame.keys.length) {
      add(frame.written ? `${newline}${frame.indent}}` : '}');
      open.delete(stack.pop()!.container);
    } else {
      const key = frame.keys[frame.next]!;
      frame.next++;
      const item = resolved((frame.container as Readonly<Record<string, unknown>>)[key], key);
      if (!isSkipped(item)) {
        add(`${frame.written ? ',' : ''}${newline}${inner}${JSON.stringify(key)}${colon}`);
        frame.written = true;
        write(item, inner);
      }
    }
    if (size >= chunkChars) {
      yield parts.join('');
      parts.length = 0;
      size = 0;
    }
  }
  if (size > 0) yield parts.join('');
}
