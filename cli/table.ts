/** Plain-text tables for terminal output: left-aligned text, right-aligned numbers. */
export function formatTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? c.toLocaleString('en-US') : c)));
  const numeric = headers.map((_, col) => rows.length > 0 && rows.every((r) => typeof r[col] === 'number'));
  // A loop, not Math.max(...column): a trace may have hundreds of thousands of rows.
  const widths = headers.map((h) => h.length);
  for (const r of cells) r.forEach((c, col) => (widths[col] = Math.max(widths[col] ?? 0, c.length)));
  const line = (r: readonly string[]) =>
    r.map((c, col) => (numeric[col] ? c.padStart(widths[col]!) : c.padEnd(widths[col]!))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
