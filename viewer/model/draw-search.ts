/**
 * Finding draws: a small query language over a trace's draws.
 *
 * A query is whitespace-separated terms; a draw matches when it matches
 * every term (case-insensitive):
 * - `#12` the draw of that index; `#10-20` an index range
 * - `stage:FS` draws with warps of that stage (`stage:FS,VS` either)
 * - `pass:shadow*` a region (pass) the draw lies in, at any depth, by name
 * - `kind:dispatch` the draw kind (draw, dispatch, trace-rays)
 * - anything else: a label substring, or a glob when it holds `*` or `?`
 *   (matched against the whole label); a bare word also matches the
 *   names of the draw's regions, so `Shadows` finds every draw of that pass
 */
import { parseStageName, type Trace } from '../../shared-schema/index.js';

export type SearchTerm =
  | { readonly kind: 'index'; readonly from: number; readonly to: number }
  | { readonly kind: 'stage'; readonly stages: readonly number[] }
  | { readonly kind: 'pass'; readonly match: (s: string) => boolean }
  | { readonly kind: 'draw-kind'; readonly value: string }
  | { readonly kind: 'text'; readonly match: (s: string) => boolean };

export interface DrawQuery {
  readonly terms: readonly SearchTerm[];
  /** Terms that could not be read (e.g. `stage:XX`), for the UI to name. */
  readonly errors: readonly string[];
}

/** A glob (`*` any run, `?` one character) as an anchored case-insensitive RegExp. */
export function globToRegExp(glob: string): RegExp {
  let src = '';
  for (const ch of glob) {
    if (ch === '*') src += '.*';
    else if (ch === '?') src += '.';
    else src += ch.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${src}$`, 'is');
}

/** A matcher for one word: a glob over the whole string when it has `*` or `?`, else a substring. */
export function wordMatcher(word: string): (s: string) => boolean {
  if (/[*?]/.test(word)) {
    const re = globToRegExp(word);
    return (s) => re.test(s);
  }
  const w = word.toLowerCase();
  return (s) => s.toLowerCase().includes(w);
}

export function parseDrawQuery(query: string): DrawQuery {
  const terms: SearchTerm[] = [];
  const errors: string[] = [];
  for (const word of query.trim().split(/\s+/)) {
    if (word === '') continue;
    const index = /^#(\d+)(?:-(\d+))?$/.exec(word);
    const colon = /^(stage|pass|region|kind):(.*)$/i.exec(word);
    if (index !== null) {
      const from = Number(index[1]);
      terms.push({ kind: 'index', from, to: index[2] === undefined ? from : Number(index[2]) });
    } else if (colon !== null) {
      const key = colon[1]!.toLowerCase();
      const value = colon[2]!;
      if (value === '') {
        errors.push(word);
      } else if (key === 'stage') {
        const stages = value.split(',').map((v) => parseStageName(v));
        if (stages.some((s) => s === undefined)) errors.push(word);
        else terms.push({ kind: 'stage', stages: stages as number[] });
      } else if (key === 'kind') {
        terms.push({ kind: 'draw-kind', value: value.toLowerCase() });
      } else {
        terms.push({ kind: 'pass', match: wordMatcher(value) });
      }
    } else {
      terms.push({ kind: 'text', match: wordMatcher(word) });
    }
  }
  return { terms, errors };
}

/** Per draw, a bit mask of the stages its warps ran (bit = stage code). One pass over the warps. */
export function drawStageMasks(trace: Trace): Uint32Array {
  const masks = new Uint32Array(trace.draws.length);
  const { draw, stage, count } = trace.warps;
  for (let i = 0; i < count; i++) {
    const d = draw[i]!;
    if (d < masks.length) masks[d]! |= 1 << stage[i]!;
  }
  return masks;
}

/** Names of the regions a draw lies in, innermost first. */
export function regionPath(trace: Trace, region: number | null): string[] {
  const out: string[] = [];
  for (let r = region; r !== null && r >= 0 && r < trace.regions.length; r = trace.regions[r]!.parent) out.push(trace.regions[r]!.label);
  return out;
}

export interface DrawMatcher {
  /** True when the query has no terms (nothing is filtered). */
  readonly empty: boolean;
  matches(draw: number): boolean;
}

export function drawMatcher(trace: Trace, query: DrawQuery, stageMasks: () => Uint32Array): DrawMatcher {
  const terms = query.terms;
  return {
    empty: terms.length === 0,
    matches(d: number): boolean {
      const info = trace.draws[d];
      if (info === undefined) return false;
      let path: string[] | null = null;
      for (const t of terms) {
        switch (t.kind) {
          case 'index':
            if (d < t.from || d > t.to) return false;
            break;
          case 'stage': {
            const m = stageMasks()[d]!;
            if (!t.stages.some((s) => (m & (1 << s)) !== 0)) return false;
            break;
          }
          case 'draw-kind':
            if (info.kind !== t.value) return false;
            break;
          case 'pass':
            path ??= regionPath(trace, info.region);
            if (!path.some(t.match)) return false;
            break;
          case 'text':
            if (t.match(info.label)) break;
            path ??= regionPath(trace, info.region);
            if (!path.some(t.match)) return false;
            break;
        }
      }
      return true;
    },
  };
}

/** Indices of the draws matching `query`, ascending; null for an empty query. */
export function findDraws(trace: Trace, query: string, stageMasks?: Uint32Array): Uint32Array | null {
  const q = parseDrawQuery(query);
  if (q.terms.length === 0) return null;
  let masks = stageMasks ?? null;
  const m = drawMatcher(trace, q, () => (masks ??= drawStageMasks(trace)));
  const out: number[] = [];
  for (let d = 0; d < trace.draws.length; d++) if (m.matches(d)) out.push(d);
  return Uint32Array.from(out);
}

/** The match after (delta 1) or before (-1) `current` in `matches`, wrapping around; -1 when none. */
export function stepMatch(matches: ArrayLike<number>, current: number, delta: number): number {
  const n = matches.length;
  if (n === 0) return -1;
  if (delta > 0) {
    for (let i = 0; i < n; i++) if (matches[i]! > current) return matches[i]!;
    return matches[0]!;
  }
  for (let i = n - 1; i >= 0; i--) if (matches[i]! < current || current < 0) return matches[i]!;
  return matches[n - 1]!;
}

/**
 * `[` / `]` from `current` (-1: none): the next or previous of the find box's matches (wrapping)
 * while it filters, else the next or previous draw that has a span (`spans`: start, end per draw;
 * NaN for a draw without warps), or -1 past either end.
 */
export function stepDrawIndex(spans: Float64Array, drawCount: number, matches: Uint32Array | null, current: number, delta: number): number {
  if (matches !== null) return stepMatch(matches, current, delta);
  let d = current < 0 ? (delta > 0 ? -1 : drawCount) : current;
  for (let k = 0; k < drawCount; k++) {
    d += delta;
    if (d < 0 || d >= drawCount) return -1;
    if (!Number.isNaN(spans[2 * d]!)) return d;
  }
  return -1;
}
