/**
 * Largest of an array without `Math.max(...values)`: spreading
 * an array into a call puts every element on the stack, and V8 throws
 * RangeError past ~120,000 of them (150,000 draws, a long trace).
 */

/** The largest value, or `empty` when there are none. */
export function maxOf(values: ArrayLike<number>, empty = -Infinity): number {
  if (values.length === 0) return empty;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) > max) max = values[i] as number;
  return max;
}
