/**
 * Which draw of trace A is which draw of trace B, for A/B comparison. A frame
 * captured twice rarely keeps its draw indices (a draw inserted early shifts
 * every later index), and another build may name its meshes differently, so
 * neither index nor label alone says which draw is which. Draws are matched
 * in rounds, each over the draws still unmatched:
 *
 *   1. Per pass (the region path, "Shadows / CSM0", render passes without
 *      their running number), by order (draw-align.ts): 'label-pass' where
 *      the labels agree, 'order' where they do not. Strong where the pass's
 *      draws line up one to one (same count, kinds and pipelines), weak where
 *      an insertion or removal had to be placed.
 *   2. 'label': same kind and label (the draw moved to another pass). Strong
 *      when the label is unique in both traces and the traces' labels agree
 *      in round 1; else weak.
 *   3. 'pipeline': same kind, pass and pipeline name. Weak.
 *   4. 'index': same kind and index, where nothing else matched. Weak.
 *
 * Within one key of rounds 2-4 the k-th such draw of A pairs with the k-th of
 * B (submission order). Labels that only number the draw ("draw 12", what
 * files without labels get) name nothing. Draws left over are only in A
 * (removed) or only in B (inserted). Pure; columnar results.
 */
import type { Trace } from '../shared-schema/index.js';
import { alignPass, labelKey, pipelineName } from './draw-align.js';

/** What names a draw, as far as matching goes. */
export interface DrawIdentity {
  readonly kind: string;
  readonly label: string;
  /** Region path from the outermost region, joined by " / " (render passes without their number); null outside regions or unknown. */
  readonly pass: string | null;
  readonly pipeline: string | null;
}

export type MatchHow = 'label-pass' | 'order' | 'label' | 'pipeline' | 'index';
export const MATCH_HOWS: readonly MatchHow[] = ['label-pass', 'order', 'label', 'pipeline', 'index'];
/** How sure a pair is: only strong pairs lead a comparison's highlights. */
export type MatchConfidence = 'strong' | 'weak';

export interface DrawMatching {
  /** B draw paired with A draw i, or -1 (only in A). */
  readonly bOfA: Int32Array;
  /** A draw paired with B draw j, or -1 (only in B). */
  readonly aOfB: Int32Array;
  /** How B draw j was paired (index into MATCH_HOWS), or -1. */
  readonly howOfB: Int8Array;
  /** 1 where B draw j's pair is strong, 0 where it is weak or there is none. */
  readonly strongOfB: Uint8Array;
  /** Pairs per way of matching, in MATCH_HOWS order. */
  readonly counts: Readonly<Record<MatchHow, number>>;
  readonly strong: number;
  readonly weak: number;
  readonly onlyA: readonly number[];
  readonly onlyB: readonly number[];
}

/** The region path of each region ("Frame / Shadows / CSM0"); a render pass's running number is left out (an earlier pass shifts it). */
function regionPaths(trace: Trace): string[] {
  const paths: string[] = [];
  for (const r of trace.regions) {
    const label = r.source === 'render-pass' ? r.label.replace(/ #\d+/, '') : r.label;
    paths.push(r.parent === null ? label : `${paths[r.parent]} / ${label}`);
  }
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

class Pairing {
  readonly bOfA: Int32Array;
  readonly aOfB: Int32Array;
  readonly howOfB: Int8Array;
  readonly strongOfB: Uint8Array;
  readonly counts: Record<MatchHow, number> = { 'label-pass': 0, order: 0, label: 0, pipeline: 0, index: 0 };
  strong = 0;

  constructor(aCount: number, bCount: number) {
    this.bOfA = new Int32Array(aCount).fill(-1);
    this.aOfB = new Int32Array(bCount).fill(-1);
    this.howOfB = new Int8Array(bCount).fill(-1);
    this.strongOfB = new Uint8Array(bCount);
  }

  pair(i: number, j: number, how: MatchHow, strong: boolean): void {
    this.bOfA[i] = j;
    this.aOfB[j] = i;
    this.howOfB[j] = MATCH_HOWS.indexOf(how);
    this.strongOfB[j] = strong ? 1 : 0;
    this.counts[how]++;
    if (strong) this.strong++;
  }

  /** Pairs the unmatched draws with equal keys, the k-th of A with the k-th of B. */
  pairByKey(a: readonly DrawIdentity[], b: readonly DrawIdentity[], how: MatchHow, keyOf: (d: DrawIdentity, index: number) => string | null, strong: (key: string) => boolean): void {
    const waiting = new Map<string, number[]>();
    for (let i = 0; i < a.length; i++) {
      if (this.bOfA[i] !== -1) continue;
      const key = keyOf(a[i]!, i);
      if (key === null) continue;
      const list = waiting.get(key);
      if (list === undefined) waiting.set(key, [i]);
      else list.push(i);
    }
    const taken = new Map<string, number>();
    for (let j = 0; j < b.length; j++) {
      if (this.aOfB[j] !== -1) continue;
      const key = keyOf(b[j]!, j);
      const list = key === null ? undefined : waiting.get(key);
      const k = taken.get(key!) ?? 0;
      if (list === undefined || k >= list.length) continue;
      taken.set(key!, k + 1);
      this.pair(list[k]!, j, how, strong(key!));
    }
  }
}

/** Draw indices per pass, in submission order. */
function byPass(ids: readonly DrawIdentity[]): Map<string, number[]> {
  const passes = new Map<string, number[]>();
  ids.forEach((d, i) => {
    const key = d.pass ?? '\u0000outside passes';
    const list = passes.get(key);
    if (list === undefined) passes.set(key, [i]);
    else list.push(i);
  });
  return passes;
}

/** How many draws of a trace carry each label key. */
function labelCounts(ids: readonly DrawIdentity[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of ids) {
    const key = labelKey(d);
    if (key !== null) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export function matchDraws(a: readonly DrawIdentity[], b: readonly DrawIdentity[]): DrawMatching {
  const m = new Pairing(a.length, b.length);
  const labelsA = labelCounts(a);
  const labelsB = labelCounts(b);
  const passesA = byPass(a);
  const labelInA = new Set(labelsA.keys());
  const labelInB = new Set(labelsB.keys());
  for (const [pass, inB] of byPass(b)) {
    const inA = passesA.get(pass);
    if (inA === undefined) continue;
    alignPass({ a, b, inA, inB, labelInA, labelInB }, (i, j, strong) => {
      const key = labelKey(a[i]!);
      m.pair(i, j, key !== null && key === labelKey(b[j]!) ? 'label-pass' : 'order', strong);
    });
  }
  // A label that the traces share is evidence only if their labels mostly agreed where their passes lined up.
  const byOrder = m.counts['label-pass'] + m.counts.order;
  const labelsAgree = byOrder === 0 || m.counts['label-pass'] * 2 >= byOrder;
  m.pairByKey(a, b, 'label', labelKey, (key) => labelsAgree && labelsA.get(key) === 1 && labelsB.get(key) === 1);
  m.pairByKey(a, b, 'pipeline', (d) => {
    const name = pipelineName(d);
    return name === null ? null : `${d.kind}\u0000${d.pass ?? ''}\u0000${name}`;
  }, () => false);
  m.pairByKey(a, b, 'index', (d, index) => `${d.kind}\u0000${index}`, () => false);
  const onlyA: number[] = [];
  const onlyB: number[] = [];
  for (let i = 0; i < a.length; i++) if (m.bOfA[i] === -1) onlyA.push(i);
  for (let j = 0; j < b.length; j++) if (m.aOfB[j] === -1) onlyB.push(j);
  const paired = b.length - onlyB.length;
  return { bOfA: m.bOfA, aOfB: m.aOfB, howOfB: m.howOfB, strongOfB: m.strongOfB, counts: m.counts, strong: m.strong, weak: paired - m.strong, onlyA, onlyB };
}
