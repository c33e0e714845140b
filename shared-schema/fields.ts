/**
 * Readers for untrusted decoded values (JSON, msgpack): each returns a value
 * of the expected type or throws a TraceFormatError naming the field.
 */
import { describeValue, fail } from './errors.js';

export type Obj = Readonly<Record<string, unknown>>;

const LONE_SURROGATE = /\p{Cs}/u;

export function readObject(value: unknown, field: string): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail('bad-type', field, `expected an object, got ${describeValue(value)}`);
  }
  return value as Obj;
}

export function readString(o: Obj, key: string, field: string, maxLength = 4096): string {
  return checkString(o[key], `${field}.${key}`, maxLength);
}

/** `value` as a string of at most maxLength characters, well formed; `field` names it in the error. */
export function checkString(value: unknown, field: string, maxLength = 4096): string {
  if (typeof value !== 'string') fail('bad-type', field, `expected a string, got ${describeValue(value)}`);
  if (value.length > maxLength) fail('too-large', field, `string of ${value.length} characters exceeds ${maxLength}`);
  checkWellFormed(value, field);
  return value;
}

/** .wtrace stores strings as UTF-8, which has no lone surrogate: one would come back as U+FFFD. */
export function checkWellFormed(text: string, field: string): void {
  if (LONE_SURROGATE.test(text)) fail('bad-value', field, 'not valid Unicode (a lone surrogate)');
}

export function readOptionalString(o: Obj, key: string, field: string, fallback: string): string {
  return o[key] === undefined || o[key] === null ? fallback : readString(o, key, field);
}

export function readBoolean(o: Obj, key: string, field: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') fail('bad-type', `${field}.${key}`, `expected true or false, got ${describeValue(v)}`);
  return v;
}

export function readNumber(o: Obj, key: string, field: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    fail('bad-type', `${field}.${key}`, `expected a finite number, got ${describeValue(v)}`);
  }
  // −0 as 0: JSON writes both as 0.
  return v + 0;
}

export function readNullableNumber(o: Obj, key: string, field: string): number | null {
  return o[key] === undefined || o[key] === null ? null : readNumber(o, key, field);
}

export function readInteger(o: Obj, key: string, field: string, min: number, max: number): number {
  const v = readNumber(o, key, field);
  if (!Number.isInteger(v) || v < min || v > max) {
    fail('bad-value', `${field}.${key}`, `expected an integer in [${min}, ${max}], got ${describeValue(v)}`);
  }
  return v;
}

export function readNullableInteger(o: Obj, key: string, field: string, min: number, max: number): number | null {
  return o[key] === undefined || o[key] === null ? null : readInteger(o, key, field, min, max);
}

export function readArray(o: Obj, key: string, field: string, maxLength: number): readonly unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) fail('bad-type', `${field}.${key}`, `expected an array, got ${describeValue(v)}`);
  if (v.length > maxLength) fail('too-large', `${field}.${key}`, `${v.length} entries exceed the limit of ${maxLength}`);
  return v;
}

export function readEnum<T extends string>(o: Obj, key: string, field: string, allowed: readonly T[]): T {
  const v = readString(o, key, field);
  if (!(allowed as readonly string[]).includes(v)) {
    fail('bad-value', `${field}.${key}`, `expected one of ${allowed.join(', ')}, got ${describeValue(v)}`);
  }
  return v as T;
}

/** A decimal string of an unsigned 64-bit integer (exact device-clock values). */
export function readNullableU64String(o: Obj, key: string, field: string): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !/^[0-9]{1,20}$/.test(v) || BigInt(v) > 0xffffffffffffffffn) {
    fail('bad-value', `${field}.${key}`, `expected a decimal unsigned 64-bit integer string, got ${describeValue(v)}`);
  }
  return v;
}
