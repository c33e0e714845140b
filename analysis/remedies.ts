/**
 * What to do about a finding: one or two plain-text sentences per finding,
 * from what the trace shows about it. A sync names the calls between the two
 * draws in the command stream (the draws, dispatches and untraced calls
 * submitted between them, and the passes that end and begin there): the wait
 * was recorded there. When the capture layer saw pipeline barriers or event
 * waits there (draws[i].barriersBefore) the sentence names them; when it saw
 * some elsewhere but none there, it says so; in a trace without any (older
 * traces, other producers) it says where to look. A tessellation stall says
 * to sort or split patches by cost (the h100-tess-stall sample's sorted draw
 * took 353 µs instead of 574 µs); other kinds say what usually helps.
 */
import type { DrawInfo, RegionInfo } from '../shared-schema/model.js';
import type { StageName } from '../shared-schema/stages.js';
import type { IdleWindow, Leftover, OccupancyCap, Stall } from './summary.js';

/** Calls between two draws named in a sync's remedy, at most. */
export const REMEDY_MAX_CALLS = 4;

export interface CommandStream {
  readonly draws: readonly DrawInfo[];
  readonly regions: readonly RegionInfo[];
}

const TESSELLATION: ReadonlySet<StageName> = new Set(['TCS', 'TES']);
const RAY_STAGES: ReadonlySet<StageName> = new Set(['RAYGEN', 'RAYGEN_REORDERED', 'ANY_HIT', 'CLOSEST_HIT', 'MISS', 'INTERSECTION', 'CALLABLE']);

/** 'draw 12 "Terrain…" (vkCmdDrawIndexed)': the label cut to 40 characters, the call when the capture knew it. */
function callName(draws: readonly DrawInfo[], d: number): string {
  const info = draws[d];
  if (info === undefined) return `draw ${d}`;
  const label = info.label.length > 40 ? `${info.label.slice(0, 39)}…` : info.label;
  const named = label !== '' && label !== `draw ${d}` ? ` "${label}"` : '';
  return `${info.kind === 'dispatch' ? 'dispatch' : 'draw'} ${d}${named}${info.call !== null ? ` (${info.call})` : ''}`;
}

/** Region indices from the outermost to the innermost around draw d. */
function regionPath(s: CommandStream, d: number): number[] {
  const out: number[] = [];
  for (let r = s.draws[d]?.region ?? null; r !== null && r >= 0 && r < s.regions.length && out.length < 64; r = s.regions[r]!.parent) out.unshift(r);
  return out;
}

/** "pass Shadows ends, pass GBuffer begins": the regions left and entered between draws a and b (a submitted first). */
function passChange(s: CommandStream, a: number, b: number): string {
  const pa = regionPath(s, a);
  const pb = regionPath(s, b);
  let common = 0;
  while (common < pa.length && common < pb.length && pa[common] === pb[common]) common++;
  const label = (r: number) => `"${s.regions[r]!.label}"`;
  const ends = pa.slice(common).reverse().map(label);
  const begins = pb.slice(common).map(label);
  const parts = [];
  if (ends.length > 0) parts.push(`${ends.join(', ')} end${ends.length === 1 ? 's' : ''}`);
  if (begins.length > 0) parts.push(`${begins.join(', ')} begin${begins.length === 1 ? 's' : ''}`);
  return parts.join(', ');
}

/** The command stream between a sync's two draws, and what to change there. */
export function syncRemedy(s: CommandStream, afterDraw: number, beforeDraw: number): string {
  const [first, second] = afterDraw < beforeDraw ? [afterDraw, beforeDraw] : [beforeDraw, afterDraw];
  const between: string[] = [];
  for (let d = first + 1; d < second && between.length < REMEDY_MAX_CALLS; d++) between.push(`${callName(s.draws, d)}${s.draws[d]?.untraced != null ? ', untraced' : ''}`);
  const more = second - first - 1 - between.length;
  const change = passChange(s, first, second);
  const stream =
    between.length === 0
      ? `${capitalize(callName(s.draws, second))} follows ${callName(s.draws, first)} directly in the command stream`
      : `Between ${callName(s.draws, first)} and ${callName(s.draws, second)} the command stream has ${between.join(', ')}${more > 0 ? ` and ${more} more call${more === 1 ? '' : 's'}` : ''}`;
  const seen = barriersBetween(s.draws, first, second);
  if (seen.count === 0 && s.draws.some((d) => d.barriersBefore != null && d.barriersBefore.length > 0)) {
    // The layer recorded the frame's barriers and none lies here: naming one to look for would send the reader on a hunt.
    return (
      `${stream}${change !== '' ? `; there ${change}` : ''}. ` +
      `The layer saw no pipeline barrier or event wait recorded there: ${change !== '' ? 'the pass boundary or ' : ''}the driver made the GPU drain. ` +
      `Submit independent work (other draws, async compute) beside these draws so the GPU stays busy${change !== '' ? ', or merge the passes if they can share one' : ''}.`
    );
  }
  if (seen.count === 0) {
    return (
      `${stream}${change !== '' ? `; there ${change}` : ''}. ` +
      `A pipeline barrier, event wait or render-pass boundary recorded there made the GPU drain (the capture records no barriers: look for one between these calls in the API trace). ` +
      `If draw ${beforeDraw} does not read what draw ${afterDraw} writes, narrow the barrier's stage masks or drop it; otherwise move independent work (other draws, async compute) across it so the GPU stays busy.`
    );
  }
  const [its, it] = seen.count === 1 ? ['its', 'it'] : ['their', 'them'];
  return (
    `${stream}${change !== '' ? `; there ${change}` : ''}. ` +
    `The layer saw ${seen.text}: if draw ${beforeDraw} does not read what draw ${afterDraw} writes, narrow ${its} stage masks or drop ${it}; ` +
    `otherwise move independent work (other draws, async compute) across ${it} so the GPU stays busy.`
  );
}

/** Barriers named in a sync's remedy, at most (the layer keeps up to 8 per draw). */
export const REMEDY_MAX_BARRIERS = 4;

/**
 * "vkCmdPipelineBarrier(A → B, 1 image) before draw 13": the barriers the
 * capture layer saw recorded between draws a and b (a submitted first), that is
 * those listed on draws a+1..b, and how many there were.
 */
function barriersBetween(draws: readonly DrawInfo[], a: number, b: number): { text: string; count: number } {
  const parts: string[] = [];
  let count = 0;
  let named = 0;
  for (let d = a + 1; d <= b; d++) {
    const list = draws[d]?.barriersBefore ?? [];
    count += list.length;
    const shown = list.slice(0, Math.max(0, REMEDY_MAX_BARRIERS - named)).map((t) => (t.length > 160 ? `${t.slice(0, 159)}…` : t));
    named += shown.length;
    if (shown.length > 0) parts.push(`${shown.join(', ')} before draw ${d}`);
  }
  const more = count - named;
  return { text: `${parts.join('; ')}${more > 0 ? ` and ${more} more` : ''}`, count };
}

/** An idle window: what ran alone between its edge warps, and what would fill it. */
export function idleRemedy(win: IdleWindow): string {
  const { before, after } = win;
  if (before.draw === after.draw) {
    return (
      `Inside draw ${after.draw}, between its last ${before.stage} warp and its next ${after.stage} warp, only fixed-function work ran (primitive assembly, rasterization, a queue between stages). ` +
      `Give the SMs other work meanwhile: independent draws or async compute submitted beside it, or fewer and larger primitives so the ${before.stage} → ${after.stage} hand-off is shorter.`
    );
  }
  return (
    `Draw ${after.draw}'s warps started only after draw ${before.draw}'s had finished, although both were open: its front end or a dependency held it back. ` +
    `Check for a barrier, a render-pass load or clear between them, and submit independent work that can fill the gap.`
  );
}

/** A leftover tail: split or sort the work so no handful of warps finishes the draw alone. */
export function leftoverRemedy(l: Leftover, stage: StageName | null): string {
  const cut = stage !== null && TESSELLATION.has(stage) ? 'sort or split patches by cost (expensive patches first, or several draws)' : 'split the long items (smaller workgroups, fewer items per invocation) or sort them by cost so the expensive ones start first';
  return `${l.warps === 1 ? 'One warp' : `${l.warps} warps`} finished draw ${l.draw} alone: ${cut}, or let the next draw start under the tail (no barrier right after draw ${l.draw}).`;
}

/** A stall: a few long warps held SMs their draw no longer filled. */
export function stallRemedy(s: Stall): string {
  if (TESSELLATION.has(s.stage)) {
    return (
      `A tessellation stall: a few expensive patches ran long while the draw's other warps had drained. Sort or split patches by cost: ` +
      `expensive ones first (they then overlap the cheap ones) or in a draw of their own, or lower their tessellation factors.`
    );
  }
  if (RAY_STAGES.has(s.stage)) {
    return `A few long ${s.stage} warps (divergent rays) outlasted their draw's other warps: reorder rays by cost (shader execution reordering), split long paths over launches, or start the costly pixels first.`;
  }
  return `A few long ${s.stage} warps outlasted their draw's other warps: split their work over more warps, or sort the work by cost so long warps start first and overlap the short ones.`;
}

/** An occupancy cap: fewer warps of the stage fit an SM than it has slots. */
export function capRemedy(c: OccupancyCap): string {
  return (
    `At most ${c.peakPerSm} of ${c.warpsPerSm} warp slots held ${c.stage} warps: a per-warp resource limits them. ` +
    `Cut registers or shared memory per warp (see the pipeline's register count in the compiler output), or submit more ${c.stage} work at once if too little arrived.`
  );
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
