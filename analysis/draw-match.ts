/**
 * Which draw of trace A is which draw of trace B, for A/B comparison. A frame
 * captured twice rarely keeps its draw indices: a draw inserted or removed
 * early shifts every later index, passes get reordered. So draws are matched
 * by what names them, in rounds, each over the draws still unmatched:
 *
 *   1. 'label-pass': same kind, label and pass (the region path, "Shadows / CSM0");
 *   2. 'label':      same kind and label (the draw moved to another pass);
 *   3. 'pipeline':   same kind, pass and pipeline (the label changed);
 *   4. 'index':      same kind and index, where nothing else matched.
 *
 * Within one key, the k-th such draw of A pairs with the k-th of B (submission
 * order). Labels that only number the draw ("draw 12", what files without
 * labels get) name nothing and are left to the later rounds. Draws left over
 * are only in A (removed) or only in B (inserted). Pure; columnar results.
 */
import type { Trace } from '../shared-schema/index.js';

/** What names a draw, as far as matching goes. */
export interface DrawIdentity {
  readonly kind: string;
  readonly label: string;
  /** Region path from the outermost region, joined by " / "; null outside regions or unknown. */
  readonly pass: string | null;
  readonly pipeline: string | null;
}

export type MatchHow = 'label-pass' | 'label' | 'pipeline' | 'index';
export const MATCH_ROUNDS: readonly MatchHow[] = ['label-pass', 'label', 'pipeline', 'index'];

export interface DrawMatching {
  /** B draw paired with A draw i, or -1 (only in A). */
  readonly bOfA: Int32Array;
  /** A draw paired with B draw j, or -1 (only in B). */
  readonly aOfB: Int32Array;
  /** Round that paired B draw j (index into MATCH_ROUNDS), or -1. */
  readonly howOfB: Int8Array;
  /** Pairs per round, in MATCH_ROUNDS order. */
  readonly counts: Readonly<Record<MatchHow, number>>;
  readonly onlyA: readonly number[];
  readonly onlyB: readonly number[];
}

const NUMBERING_LABEL = /^(draw|dispatch|trace-rays) \d+$/;

/** The region path of each region ("Frame / Shadows / CSM0"). */
function regionPaths(trace: Trace): string[] {
  const paths: string[] = [];
  for (const r of trace.regions) paths.push(r.parent === null ? r.label : `${paths[r.parent]} / ${r.label}`);
  return paths;
}

export function drawIdentities(trace: Trace): DrawIdentity[] {
  const paths = regionPaths(trace);
  return trace.draws.map((d) => ({ kind: d.kind, label: d.label, pass: d.region === null ? null : (paths[d.region] ?? null), pipeline: d.pipeline }));
}

/** Identities from what a stored summary keeps of its draws (kind and label: no passes, no pipelines). */
export function summaryDrawIdentities(draws: readonly { readonly kind: string; readonly label: string }[]): DrawIdentity[] {
  return draws.map((d) => ({ kind: d.kind, label: d.label, pass: null, pipeline: null }));
}

/** The key a round matches on, or null when the draw has nothing for it. */
function keyOf(how: MatchHow, d: DrawIdentity, index: number): string | null {
  const named = d.label !== '' && !NUMBERING_LABEL.test(d.label);
  switch (how) {
    case 'label-pass':
      return named ? `${d.kind}\u0000${d.pass ?? ''}\u0000${d.label}` : null;
    case 'label':
      return named ? `${d.kind}\u0000${d.label}` : null;
    case 'pipeline':
      return d.pipeline === null || d.pipeline === '' ? null : `${d.kind}\u0000${d.pass ?? ''}\u0000${d.pipeline}`;
    case 'index':
      return `${d.kind}\u0000${index}`;
  }
}

export function matchDraws(a: readonly DrawIdentity[], b: readonly DrawIdentity[]): DrawMatching {
  const bOfA = new Int32Array(a.length).fill(-1);
  const aOfB = new Int32Array(b.length).fill(-1);
  const howOfB = new Int8Array(b.length).fill(-1);
  const counts = { 'label-pass': 0, label: 0, pipeline: 0, index: 0 };
  MATCH_ROUNDS.forEach((how, round) => {
    // Unmatched A draws by key, in submission order; B draws take them in order.
    const waiting = new Map<string, number[]>();
    for (let i = 0; i < a.length; i++) {
      if (bOfA[i] !== -1) continue;
      const key = keyOf(how, a[i]!, i);
      if (key === null) continue;
      const list = waiting.get(key);
      if (list === undefined) waiting.set(key, [i]);
      else list.push(i);
    }
    const taken = new Map<string, number>();
    for (let j = 0; j < b.length; j++) {
      if (aOfB[j] !== -1) continue;
      const key = keyOf(how, b[j]!, j);
      if (key === null) continue;
      const list = waiting.get(key);
      const k = taken.get(key) ?? 0;
      if (list === undefined || k >= list.length) continue;
      taken.set(key, k + 1);
      const i = list[k]!;
      bOfA[i] = j;
      aOfB[j] = i;
      howOfB[j] = round;
      counts[how]++;
    }
  });
  const onlyA: number[] = [];
  const onlyB: number[] = [];
  for (let i = 0; i < a.length; i++) if (bOfA[i] === -1) onlyA.push(i);
  for (let j = 0; j < b.length; j++) if (aOfB[j] === -1) onlyB.push(j);
  return { bOfA, aOfB, howOfB, counts, onlyA, onlyB };
}
