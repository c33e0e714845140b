/**
 * Checks for untrusted JSON (stored summaries): small combinators that
 * describe a shape and throw a JsonShapeError naming the field path
 * (`summary.stages[3].meanNs: expected a number, got "12"`), plus a depth
 * limit so nothing nested without end reaches a recursive reader
 * (JSON.stringify overflows the stack at ~10,000 levels).
 */
import { describeValue } from '../shared-schema/errors.js';

export class JsonShapeError extends Error {
  constructor(
    /** Path of the offending field, e.g. "summary.stages[3].meanNs". */
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/** Throws JsonShapeError when `value` (at `field`) does not have the shape. */
export type Check = (value: unknown, field: string) => void;

function expected(what: string, value: unknown, field: string): never {
  throw new JsonShapeError(field, `expected ${what}, got ${describeValue(value)}`);
}

export const num: Check = (v, field) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) expected('a number', v, field);
};

/** A whole number ≥ 0 (counts, indices). */
export const count: Check = (v, field) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) expected('a whole number ≥ 0', v, field);
};

export const str: Check = (v, field) => {
  if (typeof v !== 'string') expected('a string', v, field);
};

export const bool: Check = (v, field) => {
  if (typeof v !== 'boolean') expected('true or false', v, field);
};

export function nullable(check: Check): Check {
  return (v, field) => {
    if (v !== null) check(v, field);
  };
}

/** A key only some values have (absent: none). */
export function optional(check: Check): Check {
  return (v, field) => {
    if (v !== undefined) check(v, field);
  };
}

export function oneOf(values: readonly (string | number)[]): Check {
  const allowed = new Set<unknown>(values);
  const list = values.length > 16 ? `${values.slice(0, 16).join(', ')}…` : values.join(', ');
  return (v, field) => {
    if (!allowed.has(v)) expected(`one of ${list}`, v, field);
  };
}

export function arrayOf(item: Check): Check {
  return (v, field) => {
    if (!Array.isArray(v)) expected('an array', v, field);
    for (let i = 0; i < v.length; i++) item(v[i], `${field}[${i}]`);
  };
}

export type Fields = Readonly<Record<string, Check>>;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An object with (at least) these fields, and `more`; others are left alone. */
export function objectOf(fieldChecks: Fields, more: Fields = {}): Check {
  const fields = Object.entries({ ...fieldChecks, ...more });
  return (v, field) => {
    if (!isObject(v)) expected('an object', v, field);
    for (const [key, check] of fields) check(v[key], `${field}.${key}`);
  };
}

/** An object whose every value passes `check` (a map keyed by name). */
export function recordOf(check: Check): Check {
  return (v, field) => {
    if (!isObject(v)) expected('an object', v, field);
    for (const [key, value] of Object.entries(v)) check(value, `${field}.${key}`);
  };
}

/**
 * Throws when `value` nests arrays or objects deeper than `maxDepth`
 * (anywhere, fields nobody reads included). Iterative: depth costs no stack.
 */
export function checkDepth(value: unknown, field: string, maxDepth: number): void {
  interface Item {
    readonly value: object;
    readonly depth: number;
    readonly parent: Item | null;
    readonly key: string | number;
  }
  // Paths are put together only for the error: a summary holds millions of values.
  const pathOf = (item: Item): string => {
    const keys: (string | number)[] = [];
    for (let at: Item | null = item; at !== null && at.parent !== null; at = at.parent) keys.push(at.key);
    return field + keys.reverse().map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('');
  };
  const stack: Item[] = typeof value === 'object' && value !== null ? [{ value, depth: 0, parent: null, key: '' }] : [];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.depth >= maxDepth) throw new JsonShapeError(pathOf(item), `nested deeper than ${maxDepth} levels`);
    const push = (v: unknown, key: string | number) => {
      if (typeof v === 'object' && v !== null) stack.push({ value: v, depth: item.depth + 1, parent: item, key });
    };
    if (Array.isArray(item.value)) for (let i = 0; i < item.value.length; i++) push(item.value[i], i);
    else for (const [key, v] of Object.entries(item.value)) push(v, key);
  }
}
