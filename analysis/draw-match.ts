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
import { alignPass, matchSides, type MatchSide } from './draw-align.js';

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

  /** Pairs the unmatched draws with equal keys (null: none), the k-th of A with the k-th of B. */
  pairByKey<K>(how: MatchHow, keyOfA: (i: number) => K | null, keyOfB: (j: number) => K | null, strong: (key: K) => boolean): void {
    const waiting = new Map<K, number[]>();
    for (let i = 0; i < this.bOfA.length; i++) {
      if (this.bOfA[i] !== -1) continue;
      const key = keyOfA(i);
      if (key === null) continue;
      const list = waiting.get(key);
      if (list === undefined) waiting.set(key, [i]);
      else list.push(i);
    }
    const taken = new Map<K, number>();
    for (let j = 0; j < this.aOfB.length; j++) {
      if (this.aOfB[j] !== -1) continue;
      const key = keyOfB(j);
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
  let lastKey: string | null = null;
  let last: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    const key = ids[i]!.pass ?? '\u0000outside passes';
    // Draws of one pass come in runs: look the pass up once per run.
    if (key !== lastKey) {
      lastKey = key;
      last = passes.get(key) ?? [];
      if (last.length === 0) passes.set(key, last);
    }
    last.push(i);
  }
  return passes;
}

export function matchDraws(a: readonly DrawIdentity[], b: readonly DrawIdentity[]): DrawMatching {
  const m = new Pairing(a.length, b.length);
  const { a: sideA, b: sideB, labels } = matchSides(a, b);
  const passesA = byPass(a);
  const cursor = new Int32Array(labels).fill(-1);
  for (const [pass, inB] of byPass(b)) {
    const inA = passesA.get(pass);
    if (inA === undefined) continue;
    alignPass({ a: sideA, b: sideB, inA, inB, cursor }, (i, j, strong) => {
      const n = sideA.label[i]!;
      m.pair(i, j, n >= 0 && n === sideB.label[j] ? 'label-pass' : 'order', strong);
    });
  }
  // A label that the traces share is evidence only if their labels mostly agreed where their passes lined up.
  const byOrder = m.counts['label-pass'] + m.counts.order;
  const labelsAgree = byOrder === 0 || m.counts['label-pass'] * 2 >= byOrder;
  const labelOf = (side: MatchSide) => (k: number) => (side.label[k]! < 0 ? null : side.label[k]!);
  m.pairByKey('label', labelOf(sideA), labelOf(sideB), (n) => labelsAgree && sideA.labelCount[n] === 1 && sideB.labelCount[n] === 1);
  const pipelineKey = (ids: readonly DrawIdentity[], side: MatchSide) => (k: number) => {
    const name = side.pipeline[k]!;
    return name === null ? null : `${side.kind[k]}\u0000${ids[k]!.pass ?? ''}\u0000${name}`;
  };
  m.pairByKey('pipeline', pipelineKey(a, sideA), pipelineKey(b, sideB), () => false);
  m.pairByKey('index', (i) => `${sideA.kind[i]}\u0000${i}`, (j) => `${sideB.kind[j]}\u0000${j}`, () => false);
  const onlyA: number[] = [];
  const onlyB: number[] = [];
  for (let i = 0; i < a.length; i++) if (m.bOfA[i] === -1) onlyA.push(i);
  for (let j = 0; j < b.length; j++) if (m.aOfB[j] === -1) onlyB.push(j);
  const paired = b.length - onlyB.length;
  return { bOfA: m.bOfA, aOfB: m.aOfB, howOfB: m.howOfB, strongOfB: m.strongOfB, counts: m.counts, strong: m.strong, weak: paired - m.strong, onlyA, onlyB };
}
