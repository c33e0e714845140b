/** Markdown table lines and draw names, shared by the reports (markdown.ts, markdown-sections.ts). */
import { mdText } from './escape.js';

export const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
export const header = (cells: readonly string[], align: readonly ('l' | 'r')[]): string =>
  [row(cells), row(align.map((a) => (a === 'r' ? '---:' : '---')))].join('\n');

/** "12", or '12 "Shadow pass"' when the label says more than the number. */
export function drawName(d: { index: number; label: string }): string {
  return d.label && d.label !== `draw ${d.index}` ? `${d.index} "${mdText(d.label)}"` : String(d.index);
}
