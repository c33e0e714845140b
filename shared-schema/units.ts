/** Formatting of the model's units (ns) for people: one place, so CLI and viewer agree. */

/** A duration or time in ns as "812 ns", "3.21 µs", "1.234 ms", "2.50 s". */
export function formatNs(ns: number, digits = 3): string {
  const abs = Math.abs(ns);
  if (abs < 1e3) return `${trim(ns, abs < 10 ? 2 : 1)} ns`;
  if (abs < 1e6) return `${trim(ns / 1e3, digits - 1)} µs`;
  if (abs < 1e9) return `${trim(ns / 1e6, digits)} ms`;
  return `${trim(ns / 1e9, digits)} s`;
}

function trim(value: number, digits: number): string {
  return value.toFixed(digits).replace(/\.?0+$/, '');
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
