/**
 * The shader panel's source view model: a module's embedded source file as
 * lines, each profiled line with its stat and its heat (its share of time
 * against the file's hottest line). Pure: no DOM.
 */
import type { BlockStat } from '../../analysis/blocks.js';
import type { BlockModule } from '../../shared-schema/index.js';

/** The line the source view shows, highlighted (line null: the file, no line in particular). */
export interface SourceFocus {
  readonly module: number;
  readonly file: string;
  readonly line: number | null;
}

/** Lines rendered at most: a window around the focused line (shader sources are rarely longer; the format allows 16 MB). */
export const MAX_SOURCE_LINES = 4000;

export interface HeatLine {
  /** 1-based. */
  readonly number: number;
  readonly text: string;
  /** The line's blocks summed (by-line stat), null when no profiled block has this line. */
  readonly stat: BlockStat | null;
  /** tickShare over the file's hottest line's, 0..1 (0 without a stat). */
  readonly heat: number;
}

export interface SourceHeat {
  readonly file: string;
  readonly lines: readonly HeatLine[];
  /** Lines of the file in all (lines holds a window of them when it is long). */
  readonly lineCount: number;
}

/** The module's embedded text of `file`, or null when it embeds none. */
export function sourceText(module: BlockModule, file: string): string | null {
  return module.sources.find((s) => s.file === file)?.text ?? null;
}

/** Where the source view starts: the hottest row of a module that embeds its file's text (null: no row has one). */
export function defaultFocus(stats: readonly BlockStat[], modules: readonly BlockModule[]): SourceFocus | null {
  for (const s of stats) {
    if (s.file !== null && sourceText(modules[s.module]!, s.file) !== null) return { module: s.module, file: s.file, line: s.line };
  }
  return null;
}

/** The first and last line (1-based, inclusive) of a window of at most `max` lines around `focus`. */
export function sourceWindow(lineCount: number, focus: number | null, max = MAX_SOURCE_LINES): { first: number; last: number } {
  if (lineCount <= max) return { first: 1, last: lineCount };
  const centre = focus === null ? 1 : Math.min(Math.max(focus, 1), lineCount);
  const first = Math.max(1, Math.min(centre - Math.floor(max / 2), lineCount - max + 1));
  return { first, last: first + max - 1 };
}

/**
 * The file's lines with their heat. `lineStats`: a by-line table's stats
 * (those of other modules and files are skipped).
 */
export function sourceHeat(text: string, focus: SourceFocus, lineStats: readonly BlockStat[]): SourceHeat {
  const byLine = new Map<number, BlockStat>();
  let hottest = 0;
  for (const s of lineStats) {
    if (s.module !== focus.module || s.file !== focus.file || s.line === null) continue;
    byLine.set(s.line, s);
    hottest = Math.max(hottest, s.tickShare);
  }
  const all = text.split(/\r\n|\r|\n/);
  const { first, last } = sourceWindow(all.length, focus.line);
  const lines: HeatLine[] = [];
  for (let n = first; n <= last; n++) {
    const stat = byLine.get(n) ?? null;
    lines.push({ number: n, text: all[n - 1]!, stat, heat: stat === null || hottest === 0 ? 0 : stat.tickShare / hottest });
  }
  return { file: focus.file, lines, lineCount: all.length };
}
