/** Escaping for text formats: trace strings (draw labels, workload names) are untrusted. */

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, quote or line break;
 * a leading = + - @ or tab/CR gets a ' so spreadsheets do not run it as a formula.
 */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  let text = value;
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Inline Markdown text (inside table cells and list items): no HTML, no
 * table breaks, no emphasis, code or links from labels. Parentheses stay
 * as they are: without brackets they cannot form a link.
 */
export function mdText(value: string): string {
  return value
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1');
}
