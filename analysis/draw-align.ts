/**
 * Pairs the draws of one pass of trace A with the same pass's draws of trace B
 * by their order, the first round of draw-match.ts. A frame captured twice
 * submits a pass's draws in the same order even when their labels change
 * (another build names the meshes differently), so order is the evidence, and
 * labels count only where they agree with it:
 *
 *   - Label anchors: draws of the same kind and label (the k-th such of A with
 *     the k-th of B), kept only as far as they run in order on both sides (the
 *     longest such chain). When that chain covers at least half the pass, the
 *     pass's labels are trusted: the anchors pair, and the stretches between
 *     them are paired by order. Otherwise the labels only coincide (names drawn
 *     from a common pool) and the whole pass is paired by order.
 *   - A stretch that lines up one to one (as many draws on each side, the same
 *     kind at each place, no pipeline named differently) pairs place by place:
 *     strong. Any other stretch is aligned by kind and pipeline (an insertion
 *     or removal whose place is inferred): those pairs are weak.
 */
import type { DrawIdentity } from './draw-match.js';

/** Receives each pair (draw indices of A and B) and whether it is strong. */
export type PairSink = (i: number, j: number, strong: boolean) => void;

export interface PassDraws {
  readonly a: readonly DrawIdentity[];
  readonly b: readonly DrawIdentity[];
  /** The pass's draws of A and of B, in submission order. */
  readonly inA: readonly number[];
  readonly inB: readonly number[];
  /** Whether a draw's label key (labelKey) names some draw of the other trace: in a trusted pass such a draw waits for the label round. */
  readonly labelInA: ReadonlySet<string>;
  readonly labelInB: ReadonlySet<string>;
}

/** Alignments beyond this many cells pair stretches place by place instead (weak). */
const MAX_ALIGN_CELLS = 4_000_000;
/** Share of a pass's draws the ordered label anchors must cover for its labels to be trusted. */
const TRUSTED_LABEL_SHARE = 0.5;

const NUMBERING_LABEL = /^(draw|dispatch|trace-rays) \d+$/;
const HANDLE = /^0x[0-9a-f]+$/i;

/** Kind and label, or null for a label that names nothing (empty, or only the draw's number). */
export function labelKey(d: DrawIdentity): string | null {
  return d.label === '' || NUMBERING_LABEL.test(d.label) ? null : `${d.kind}\u0000${d.label}`;
}

/** A pipeline's debug name; null when unknown or only a handle (handles differ from capture to capture). */
export function pipelineName(d: DrawIdentity): string | null {
  return d.pipeline === null || d.pipeline === '' || HANDLE.test(d.pipeline) ? null : d.pipeline;
}

function pipelinesConflict(x: DrawIdentity, y: DrawIdentity): boolean {
  const px = pipelineName(x);
  const py = pipelineName(y);
  return px !== null && py !== null && px !== py;
}

export function alignPass(p: PassDraws, pair: PairSink): void {
  const anchors = labelAnchors(p);
  const trusted = anchors.length > 0 && anchors.length >= TRUSTED_LABEL_SHARE * Math.min(p.inA.length, p.inB.length);
  if (!trusted) {
    pairStretch(p, p.inA, p.inB, pair);
    return;
  }
  // In a trusted pass a draw whose label names a draw elsewhere in the other trace moved there: not paired by order here.
  const stays = (d: DrawIdentity, other: ReadonlySet<string>) => {
    const key = labelKey(d);
    return key === null || !other.has(key);
  };
  let fromA = 0;
  let fromB = 0;
  for (const [pa, pb] of [...anchors, [p.inA.length, p.inB.length] as const]) {
    const stretchA = p.inA.slice(fromA, pa).filter((i) => stays(p.a[i]!, p.labelInB));
    const stretchB = p.inB.slice(fromB, pb).filter((j) => stays(p.b[j]!, p.labelInA));
    pairStretch(p, stretchA, stretchB, pair);
    if (pa < p.inA.length) pair(p.inA[pa]!, p.inB[pb]!, true);
    fromA = pa + 1;
    fromB = pb + 1;
  }
}

/**
 * Positions (within the pass) of the draws paired by label, the longest chain
 * that runs in order on both sides: candidates come in B's order, and the
 * longest strictly increasing run of their A positions is kept.
 */
function labelAnchors(p: PassDraws): (readonly [number, number])[] {
  const positionsInA = new Map<string, number[]>();
  p.inA.forEach((i, pa) => {
    const key = labelKey(p.a[i]!);
    if (key === null) return;
    const list = positionsInA.get(key);
    if (list === undefined) positionsInA.set(key, [pa]);
    else list.push(pa);
  });
  const taken = new Map<string, number>();
  const candidates: [number, number][] = [];
  p.inB.forEach((j, pb) => {
    const key = labelKey(p.b[j]!);
    const list = key === null ? undefined : positionsInA.get(key);
    if (list === undefined) return;
    const k = taken.get(key!) ?? 0;
    if (k >= list.length) return;
    taken.set(key!, k + 1);
    candidates.push([list[k]!, pb]);
  });
  // Patience sorting: tails[len] is the candidate ending the best chain of length len + 1.
  const tails: number[] = [];
  const previous = new Int32Array(candidates.length).fill(-1);
  candidates.forEach(([pa], c) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (candidates[tails[mid]!]![0] < pa) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[c] = tails[lo - 1]!;
    tails[lo] = c;
  });
  const chain: (readonly [number, number])[] = [];
  for (let c = tails.length > 0 ? tails[tails.length - 1]! : -1; c >= 0; c = previous[c]!) chain.push(candidates[c]!);
  return chain.reverse();
}

/** Pairs two stretches of a pass: place by place when they line up one to one (strong), else by an alignment (weak). */
function pairStretch(p: PassDraws, stretchA: readonly number[], stretchB: readonly number[], pair: PairSink): void {
  if (stretchA.length === 0 || stretchB.length === 0) return;
  const lineUp =
    stretchA.length === stretchB.length &&
    stretchA.every((i, k) => {
      const x = p.a[i]!;
      const y = p.b[stretchB[k]!]!;
      return x.kind === y.kind && !pipelinesConflict(x, y);
    });
  if (lineUp) {
    stretchA.forEach((i, k) => pair(i, stretchB[k]!, true));
    return;
  }
  if ((stretchA.length + 1) * (stretchB.length + 1) > MAX_ALIGN_CELLS) {
    // Too long to align: place by place where the kinds agree.
    for (let k = 0; k < Math.min(stretchA.length, stretchB.length); k++) {
      if (p.a[stretchA[k]!]!.kind === p.b[stretchB[k]!]!.kind) pair(stretchA[k]!, stretchB[k]!, false);
    }
    return;
  }
  alignStretch(p, stretchA, stretchB, pair);
}

/** What pairing x with y is worth in the alignment; 0: they cannot pair (different kinds). */
function pairScore(x: DrawIdentity, y: DrawIdentity): number {
  if (x.kind !== y.kind) return 0;
  const px = pipelineName(x);
  const py = pipelineName(y);
  const pipeline = px === null || py === null ? 3 : px === py ? 5 : 1;
  const key = labelKey(x);
  return pipeline + (key !== null && key === labelKey(y) ? 1 : 0);
}

/** A small bonus for a pair at the same place from the stretch's start: of otherwise equal alignments, the one keeping draws in place wins. */
const SAME_PLACE = 0.25;
const DIAGONAL = 1;
const SKIP_A = 2;
const SKIP_B = 3;

/** Needleman-Wunsch without gap costs: the pairs in order that score most (same kind, then same pipeline, then label). */
function alignStretch(p: PassDraws, stretchA: readonly number[], stretchB: readonly number[], pair: PairSink): void {
  const n = stretchA.length;
  const m = stretchB.length;
  const width = m + 1;
  const step = new Uint8Array((n + 1) * width);
  let prev = new Float64Array(width);
  let row = new Float64Array(width);
  for (let j = 1; j <= m; j++) step[j] = SKIP_B;
  for (let i = 1; i <= n; i++) {
    const x = p.a[stretchA[i - 1]!]!;
    row[0] = 0;
    step[i * width] = SKIP_A;
    for (let j = 1; j <= m; j++) {
      const score = pairScore(x, p.b[stretchB[j - 1]!]!);
      const s = score > 0 && i === j ? score + SAME_PLACE : score;
      let best = prev[j]!;
      let how = SKIP_A;
      if (row[j - 1]! > best) {
        best = row[j - 1]!;
        how = SKIP_B;
      }
      if (s > 0 && prev[j - 1]! + s >= best) {
        best = prev[j - 1]! + s;
        how = DIAGONAL;
      }
      row[j] = best;
      step[i * width + j] = how;
    }
    [prev, row] = [row, prev];
  }
  for (let i = n, j = m; i > 0 && j > 0; ) {
    const how = step[i * width + j]!;
    if (how === DIAGONAL) {
      pair(stretchA[i - 1]!, stretchB[j - 1]!, false);
      i--;
      j--;
    } else if (how === SKIP_A) i--;
    else j--;
  }
}
