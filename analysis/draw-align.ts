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
 *     them are paired by order, except draws whose label names a draw
 *     elsewhere in the other trace (they moved: the label round pairs them).
 *     Otherwise the labels only coincide (names drawn from a common pool) and
 *     the whole pass is paired by order.
 *   - A stretch that lines up one to one (as many draws on each side, the same
 *     kind at each place, no pipeline named differently) pairs place by place:
 *     strong. Any other stretch is aligned by kind and pipeline (an insertion
 *     or removal whose place is inferred): those pairs are weak. Stretches too
 *     long to align (over MAX_ALIGN_CELLS) pair place by place, weakly.
 */
import type { DrawIdentity } from './draw-match.js';

/** Receives each pair (draw indices of A and B) and whether it is strong. */
export type PairSink = (i: number, j: number, strong: boolean) => void;

/** What matching compares of one trace's draws, worked out once per draw. */
export interface MatchSide {
  readonly kind: readonly string[];
  /** Each draw's kind and label as a number shared by both traces (matchSides); -1 where the label names nothing. */
  readonly label: Int32Array;
  /** pipelineName of each draw. */
  readonly pipeline: readonly (string | null)[];
  /** How many of this trace's draws carry each label number. */
  readonly labelCount: Int32Array;
}

export interface PassDraws {
  readonly a: MatchSide;
  readonly b: MatchSide;
  /** The pass's draws of A and of B, in submission order. */
  readonly inA: readonly number[];
  readonly inB: readonly number[];
  /** Scratch of one entry per label number, -1 between calls. */
  readonly cursor: Int32Array;
}

/** Alignments beyond this many cells pair stretches place by place instead (weak). */
const MAX_ALIGN_CELLS = 4_000_000;
/** Share of a pass's draws the ordered label anchors must cover for its labels to be trusted. */
const TRUSTED_LABEL_SHARE = 0.5;

const NUMBERING_LABEL = /^(draw|dispatch|trace-rays) \d+$/;
const HANDLE = /^0x[0-9a-f]+$/i;

/** A pipeline's debug name; null when unknown or only a handle (handles differ from capture to capture). */
function pipelineName(d: DrawIdentity): string | null {
  return d.pipeline === null || d.pipeline === '' || HANDLE.test(d.pipeline) ? null : d.pipeline;
}

/**
 * Both traces' draws as matching compares them: a label (with its kind) is
 * numbered once for both traces, so the rounds compare numbers, not strings.
 * Labels that only number the draw ("draw 12") or are empty name nothing.
 */
export function matchSides(a: readonly DrawIdentity[], b: readonly DrawIdentity[]): { a: MatchSide; b: MatchSide; labels: number } {
  const numbers = new Map<string, Map<string, number>>();
  let labels = 0;
  const numberOf = (d: DrawIdentity): number => {
    if (d.label === '' || NUMBERING_LABEL.test(d.label)) return -1;
    let ofKind = numbers.get(d.kind);
    if (ofKind === undefined) numbers.set(d.kind, (ofKind = new Map()));
    let n = ofKind.get(d.label);
    if (n === undefined) ofKind.set(d.label, (n = labels++));
    return n;
  };
  const label = (ids: readonly DrawIdentity[]) => {
    const numbered = new Int32Array(ids.length);
    // Draws in a row often share a label (instances of one mesh): number it once.
    for (let k = 0; k < ids.length; k++) numbered[k] = k > 0 && ids[k]!.label === ids[k - 1]!.label && ids[k]!.kind === ids[k - 1]!.kind ? numbered[k - 1]! : numberOf(ids[k]!);
    return numbered;
  };
  const labelA = label(a);
  const labelB = label(b);
  const side = (ids: readonly DrawIdentity[], numbered: Int32Array): MatchSide => {
    const labelCount = new Int32Array(labels);
    for (const n of numbered) if (n >= 0) labelCount[n]!++;
    return { kind: ids.map((d) => d.kind), label: numbered, pipeline: ids.map(pipelineName), labelCount };
  };
  return { a: side(a, labelA), b: side(b, labelB), labels };
}

/** Whether A's draw i and B's draw j can share a place: the same kind, and no pipeline named otherwise. */
function lineUp(p: PassDraws, i: number, j: number): boolean {
  const x = p.a.pipeline[i]!;
  const y = p.b.pipeline[j]!;
  return p.a.kind[i] === p.b.kind[j] && (x === null || y === null || x === y);
}

export function alignPass(p: PassDraws, pair: PairSink): void {
  const anchors = labelAnchors(p);
  const count = anchors.a.length;
  const trusted = count > 0 && count >= TRUSTED_LABEL_SHARE * Math.min(p.inA.length, p.inB.length);
  if (!trusted) {
    pairStretch(p, p.inA, p.inB, pair);
    return;
  }
  // In a trusted pass a draw whose label names a draw elsewhere in the other trace moved there: not paired by order here.
  const stays = (n: number, other: MatchSide) => n < 0 || other.labelCount[n] === 0;
  let fromA = 0;
  let fromB = 0;
  for (let k = 0; k <= count; k++) {
    const pa = k < count ? anchors.a[k]! : p.inA.length;
    const pb = k < count ? anchors.b[k]! : p.inB.length;
    const stretchA = p.inA.slice(fromA, pa).filter((i) => stays(p.a.label[i]!, p.b));
    const stretchB = p.inB.slice(fromB, pb).filter((j) => stays(p.b.label[j]!, p.a));
    pairStretch(p, stretchA, stretchB, pair);
    if (k < count) pair(p.inA[pa]!, p.inB[pb]!, true);
    fromA = pa + 1;
    fromB = pb + 1;
  }
}

/**
 * Positions (within the pass) of the draws paired by label, the longest chain
 * that runs in order on both sides: candidates (the k-th draw of a label in
 * A with its k-th in B) come in B's order, and the longest strictly
 * increasing run of their A positions is kept.
 */
function labelAnchors(p: PassDraws): { a: Int32Array; b: Int32Array } {
  const { inA, inB, cursor } = p;
  // Per label, its A positions in order as a linked list: cursor[label] → first, nextInA[pa] → the next.
  const nextInA = new Int32Array(inA.length);
  for (let pa = inA.length - 1; pa >= 0; pa--) {
    const n = p.a.label[inA[pa]!]!;
    if (n < 0) continue;
    nextInA[pa] = cursor[n]!;
    cursor[n] = pa;
  }
  const candA = new Int32Array(inB.length);
  const candB = new Int32Array(inB.length);
  let count = 0;
  for (let pb = 0; pb < inB.length; pb++) {
    const n = p.b.label[inB[pb]!]!;
    if (n < 0 || cursor[n]! < 0) continue;
    candA[count] = cursor[n]!;
    candB[count++] = pb;
    cursor[n] = nextInA[cursor[n]!]!;
  }
  for (const i of inA) if (p.a.label[i]! >= 0) cursor[p.a.label[i]!] = -1;
  // Patience sorting: tails[len] is the candidate ending the best chain of length len + 1.
  const tails = new Int32Array(count);
  let longest = 0;
  const previous = new Int32Array(count).fill(-1);
  for (let c = 0; c < count; c++) {
    let lo = 0;
    let hi = longest;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (candA[tails[mid]!]! < candA[c]!) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[c] = tails[lo - 1]!;
    tails[lo] = c;
    if (lo === longest) longest++;
  }
  const chainA = new Int32Array(longest);
  const chainB = new Int32Array(longest);
  for (let k = longest - 1, c = longest > 0 ? tails[longest - 1]! : -1; k >= 0; k--, c = previous[c]!) {
    chainA[k] = candA[c]!;
    chainB[k] = candB[c]!;
  }
  return { a: chainA, b: chainB };
}

/** Pairs two stretches of a pass: place by place when they line up one to one (strong), else by an alignment (weak). */
function pairStretch(p: PassDraws, stretchA: readonly number[], stretchB: readonly number[], pair: PairSink): void {
  if (stretchA.length === 0 || stretchB.length === 0) return;
  if (stretchA.length === stretchB.length && stretchA.every((i, k) => lineUp(p, i, stretchB[k]!))) {
    stretchA.forEach((i, k) => pair(i, stretchB[k]!, true));
    return;
  }
  if ((stretchA.length + 1) * (stretchB.length + 1) > MAX_ALIGN_CELLS) {
    // Too long to align: place by place where the kinds agree.
    for (let k = 0; k < Math.min(stretchA.length, stretchB.length); k++) {
      if (p.a.kind[stretchA[k]!] === p.b.kind[stretchB[k]!]) pair(stretchA[k]!, stretchB[k]!, false);
    }
    return;
  }
  alignStretch(p, stretchA, stretchB, pair);
}

/** What pairing A's draw i with B's draw j is worth in the alignment; 0: they cannot pair (different kinds). */
function pairScore(p: PassDraws, i: number, j: number): number {
  if (p.a.kind[i] !== p.b.kind[j]) return 0;
  const x = p.a.pipeline[i]!;
  const y = p.b.pipeline[j]!;
  const label = p.a.label[i]!;
  return (x === null || y === null ? 3 : x === y ? 5 : 1) + (label >= 0 && label === p.b.label[j] ? 1 : 0);
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
    const x = stretchA[i - 1]!;
    row[0] = 0;
    step[i * width] = SKIP_A;
    for (let j = 1; j <= m; j++) {
      const score = pairScore(p, x, stretchB[j - 1]!);
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
