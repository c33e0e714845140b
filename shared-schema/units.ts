/** Formatting of the model's units (ns) for people: one place, so CLI and viewer agree. */

/**
 * A duration or time in ns with `significant` digits (3: "80 ns", "2.40 µs",
 * "1.23 ms", "1.50 s"; 6 for positions on a timeline: "297.311 µs"); "–" when unknown.
 */
export function formatNs(ns: number | null | undefined, significant = 3): string {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return '–';
  const a = Math.abs(ns);
  if (a === 0) return '0 ns';
  if (a < 1000) return `${fixed(ns, significant - digitsBeforePoint(a))} ns`;
  if (a < 1e6) return `${fixed(ns / 1e3, significant - digitsBeforePoint(a / 1e3))} µs`;
  if (a < 1e9) return `${fixed(ns / 1e6, significant - digitsBeforePoint(a / 1e6))} ms`;
  return `${fixed(ns / 1e9, significant - digitsBeforePoint(a / 1e9))} s`;
}

function digitsBeforePoint(v: number): number {
  return v < 1 ? 1 : Math.floor(Math.log10(v)) + 1;
}

function fixed(v: number, decimals: number): string {
  return v.toFixed(Math.max(0, decimals));
}

/** "0-3, 5, 48-49": sorted integers as compact ranges. */
export function formatRanges(values: Iterable<number>): string {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** The no-SM-id sentinel (model.ts UNKNOWN_SM), repeated here so units.ts imports nothing. */
const NO_SM_ID = 0xffff;

/**
 * SM ids as compact ranges; the no-SM-id sentinel (0xffff, warps of devices
 * without SM builtins, e.g. lavapipe) never appears as a number: "SM ids
 * unknown" when it is the only one, "0-3, and without SM id" beside others.
 */
export function formatSmRanges(values: Iterable<number>): string {
  const all = [...values];
  const known = all.filter((v) => v !== NO_SM_ID);
  if (known.length === all.length) return formatRanges(known);
  return known.length === 0 ? 'SM ids unknown' : `${formatRanges(known)}, and without SM id`;
}

/** How many distinct known SM ids (the no-SM-id sentinel not counted). */
export function knownSmCount(values: Iterable<number>): number {
  const set = new Set(values);
  set.delete(NO_SM_ID);
  return set.size;
}
