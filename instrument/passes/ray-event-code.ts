/**
 * The functions of the ray-events pass (passes/ray-events.ts), emitted once per module, each only when a site
 * calls it (or another emitted one does). They read no built-in: every ray-tracing entry point's prologue
 * passes its LaunchIdKHR and LaunchSizeKHR to `warptrace_ray_pixel`, which keeps the pixel's cell and scratch
 * entry in private variables, and stores RayTmaxKHR's bits in a third (any-hit, closest-hit), so the calls may
 * sit in any function the entry points reach. Indices are into the table's word array (table word
 * RAY_EVENT_HEADER_WORDS + i is words[i]); every one is checked against the buffer's real length.
 *
 *   void warptrace_ray_pixel(uvec3 id, uvec3 size)     // cell = the pixel's cell, DROP or NONE; scratch = its entry, UNCOUNTED or NONE
 *   void warptrace_ray_launch(uvec3 id, uvec3 size)    // id (0,0,0) of a counted launch: LAUNCHES += 1, max/min of the size
 *   void warptrace_ray_event(uint word, uint n)        // cell[word] += n, or DROPPED += n
 *   uvec2 warptrace_ray_scratch_save()                 // the entry, then zero it
 *   void warptrace_ray_scratch_restore(uvec2 saved)
 *   uvec2 warptrace_ray_trace_begin()                  // before OpTraceRayKHR: TRACE_CALLS; UNCOUNTED_TRAVERSALS without an entry; save
 *   void warptrace_ray_trace_end(uvec2 saved)          // after it: USELESS_ANY_HITS += the traversal's, restore
 *   uvec2 warptrace_ray_trace_uncounted()              // before other traces: TRACE_CALLS, UNCOUNTED_TRAVERSALS; save (restore after)
 *   void warptrace_ray_accept()                        // any-hit accepts: STATE += 1, LAST_ACCEPTED_T = t
 *   void warptrace_ray_closest_hit()                   // closest-hit entry: bit 30, and bit 31 when t is the last accepted one
 *
 * Counters are relaxed OpAtomicIAdd (max/min: OpAtomicUMax/UMin) whose results are unused; the scratch entry
 * is plain loads and stores (only the pixel's own shader-call chain touches it).
 */
import {
  DRAW_RAY_ROW_WORD,
  MAX_RAY_SCALE,
  NO_RAY_ROW,
  RAY_CELL_WORDS,
  RAY_EVENT_BINDING_OFFSET,
  RAY_ROW_HEADER_WORDS,
  RAY_SCRATCH_ACCEPTED_MASK,
  RAY_SCRATCH_CLOSEST_HIT_RAN,
  RAY_SCRATCH_FINAL_ACCEPTED,
  RAY_SCRATCH_WORDS,
  RayCellWord,
  RayEventHeaderWord,
  RayRowHeaderWord,
  RayScratchWord,
} from '../../shared-schema/ray-event-layout.js';
import type { Instruction } from '../model/binary.js';
import { FunctionCode } from '../model/function-code.js';
import { Op } from '../model/spec.js';
import { UNTRACED_DRAW } from './record-wrapper.js';
import type { PassContext } from './pass.js';
import { RayTableCode, SCRATCH_UNCOUNTED } from './ray-table-code.js';

export { SCRATCH_UNCOUNTED } from './ray-table-code.js';

/** The emitted functions' OpNames: tests and readers of a module find the calls by them. */
export const RAY_FUNCTIONS = {
  pixel: 'warptrace_ray_pixel',
  launch: 'warptrace_ray_launch',
  event: 'warptrace_ray_event',
  scratchSave: 'warptrace_ray_scratch_save',
  scratchRestore: 'warptrace_ray_scratch_restore',
  traceBegin: 'warptrace_ray_trace_begin',
  traceEnd: 'warptrace_ray_trace_end',
  traceUncounted: 'warptrace_ray_trace_uncounted',
  accept: 'warptrace_ray_accept',
  closestHit: 'warptrace_ray_closest_hit',
} as const;
export type RayFunction = keyof typeof RAY_FUNCTIONS;

/** Functions each one calls: asking for one emits those too. */
const CALLS: Readonly<Partial<Record<RayFunction, readonly RayFunction[]>>> = {
  traceBegin: ['event', 'scratchSave'],
  traceEnd: ['event'],
  traceUncounted: ['event', 'scratchSave'],
};

/** `warptrace_ray_cell`: count nothing (no row: an untraced or unprofiled launch, or no pixel() yet). */
export const CELL_NONE = 0xffffffff;
/** `warptrace_ray_cell`: the launch counts into DROPPED (row past ROWS, launch too large, cell past the buffer). */
export const CELL_DROP = 0xfffffffe;
/** `warptrace_ray_scratch`: no row (as CELL_NONE). */
export const SCRATCH_NONE = 0xffffffff;
/** Binning scale meaning "fits no row". */
const NO_SCALE = MAX_RAY_SCALE + 1;

/** The private variables the functions share: per invocation, set by pixel() and the entry prologue. */
export interface RayPrivates {
  readonly cell: number;
  readonly scratch: number;
  /** RayTmaxKHR's bits, in any-hit and closest-hit invocations; null in modules without either. */
  readonly t: number | null;
}

export class RayFunctions extends RayTableCode {
  private readonly ids = new Map<RayFunction, number>();

  constructor(
    private readonly context: PassContext,
    readonly privates: RayPrivates,
    atomicScope: number,
  ) {
    const { decl, options } = context;
    super(new FunctionCode(decl, false, []), decl.rayEventTable(options.set, options.binding + RAY_EVENT_BINDING_OFFSET), decl.drawIdBlock(options.set, options.binding + 1), atomicScope);
  }

  /** The function's id (allocated now if first asked for), and those it calls. */
  id(name: RayFunction): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.context.editor.allocId();
      this.ids.set(name, id);
      for (const callee of CALLS[name] ?? []) this.id(callee);
    }
    return id;
  }

  /** The functions asked for, in RAY_FUNCTIONS order, named; and the globals they reach (for the entry points' interfaces). */
  emit(): { code: Instruction[]; globals: number[] } {
    const { editor } = this.context;
    for (const name of Object.keys(RAY_FUNCTIONS) as RayFunction[]) {
      const id = this.ids.get(name);
      if (id === undefined) continue;
      this[name](id);
      editor.addName(id, RAY_FUNCTIONS[name]);
    }
    return { code: this.g.code, globals: [...this.g.globals] };
  }

  private pixel(id: number): void {
    const { g } = this;
    const { decl } = g;
    const [launchId, launchSize] = this.begin(id, decl.void, [decl.uvec3, decl.uvec3]);
    const drawId = this.drawWord(0);
    const row = this.drawWord(DRAW_RAY_ROW_WORD);
    const profiled = g.value(Op.LogicalAnd, decl.bool, g.value(Op.INotEqual, decl.bool, drawId, decl.u32(UNTRACED_DRAW)), g.value(Op.INotEqual, decl.bool, row, decl.u32(NO_RAY_ROW)));
    g.ifThen(profiled, () => {
      const [x, y, z] = this.components(launchId!);
      const [w, h, d] = this.components(launchSize!);
      const length = this.length();
      const cells = this.load(this.header(RayEventHeaderWord.CELLS));
      const rows = this.load(this.header(RayEventHeaderWord.ROWS));
      const grid = this.binning(w, h, d, cells);
      const cell = this.add(this.mul(this.add(this.mul(z, grid.height), this.shift(y, grid.scale)), grid.width), this.shift(x, grid.scale));
      const rowHeaders = this.mul(rows, decl.u32(RAY_ROW_HEADER_WORDS));
      // Counters are planes (word w of cell c at w × CELLS + c): a warp of neighbouring pixels adds into one line.
      const cellWord = this.add(rowHeaders, this.add(this.mul(this.mul(row, cells), decl.u32(RAY_CELL_WORDS)), cell));
      const lastWord = this.add(cellWord, this.mul(cells, decl.u32(RAY_CELL_WORDS - 1)));
      const counted = this.all(grid.fits, g.value(Op.ULessThan, decl.bool, row, rows), this.inBuffer(lastWord, 1, length));
      g.op(Op.Store, g.global(this.privates.cell), g.value(Op.Select, decl.uint, counted, cellWord, decl.u32(CELL_DROP)));
      const pixel = this.add(x, this.mul(w, this.add(y, this.mul(h, z))));
      const scratchBase = this.add(rowHeaders, this.mul(this.mul(rows, cells), decl.u32(RAY_CELL_WORDS)));
      const scratchWord = this.add(scratchBase, this.mul(pixel, decl.u32(RAY_SCRATCH_WORDS)));
      const inScratch = g.value(Op.ULessThan, decl.bool, pixel, this.load(this.header(RayEventHeaderWord.SCRATCH_PIXELS)));
      const has = this.all(inScratch, this.inBuffer(scratchWord, RAY_SCRATCH_WORDS, length));
      g.op(Op.Store, g.global(this.privates.scratch), g.value(Op.Select, decl.uint, has, scratchWord, decl.u32(SCRATCH_UNCOUNTED)));
    });
    this.end();
  }

  /**
   * The smallest scale 0..MAX_RAY_SCALE at which ceil(w / 2^s) × ceil(h / 2^s) × d ≤ cells (rayCellGrid), without
   * a loop: from the largest scale down, each that fits replaces the one before.
   */
  private binning(w: number, h: number, d: number, cells: number): { fits: number; scale: number; width: number; height: number } {
    const { g } = this;
    const { decl } = g;
    let scale = decl.u32(NO_SCALE);
    let width = decl.u32(0);
    let height = decl.u32(0);
    for (let s = MAX_RAY_SCALE; s >= 0; s--) {
      const binned = (v: number) => (s === 0 ? v : this.shift(this.add(v, decl.u32(2 ** s - 1)), decl.u32(s)));
      const ws = binned(w);
      const hs = binned(h);
      const fits = g.value(Op.ULessThanEqual, decl.bool, this.mul(this.mul(ws, hs), d), cells);
      scale = g.value(Op.Select, decl.uint, fits, decl.u32(s), scale);
      width = g.value(Op.Select, decl.uint, fits, ws, width);
      height = g.value(Op.Select, decl.uint, fits, hs, height);
    }
    return { fits: g.value(Op.ULessThan, decl.bool, scale, decl.u32(NO_SCALE)), scale, width, height };
  }

  private launch(id: number): void {
    const { g } = this;
    const { decl } = g;
    const [launchId, launchSize] = this.begin(id, decl.void, [decl.uvec3, decl.uvec3]);
    const [x, y, z] = this.components(launchId!);
    const origin = g.value(Op.IEqual, decl.bool, g.value(Op.BitwiseOr, decl.uint, g.value(Op.BitwiseOr, decl.uint, x, y), z), decl.u32(0));
    const counted = g.value(Op.ULessThan, decl.bool, this.privateValue(this.privates.cell), decl.u32(CELL_DROP));
    g.ifThen(g.value(Op.LogicalAnd, decl.bool, counted, origin), () => {
      const base = this.mul(this.drawWord(DRAW_RAY_ROW_WORD), decl.u32(RAY_ROW_HEADER_WORDS));
      g.ifThen(this.inBuffer(base, RAY_ROW_HEADER_WORDS, this.length()), () => {
        const at = (word: number) => this.word(this.add(base, decl.u32(word)));
        this.atomic(Op.AtomicIAdd, at(RayRowHeaderWord.LAUNCHES), decl.u32(1));
        const size = this.components(launchSize!);
        const maxima = [RayRowHeaderWord.MAX_WIDTH, RayRowHeaderWord.MAX_HEIGHT, RayRowHeaderWord.MAX_DEPTH];
        const minima = [RayRowHeaderWord.MIN_WIDTH, RayRowHeaderWord.MIN_HEIGHT, RayRowHeaderWord.MIN_DEPTH];
        maxima.forEach((word, c) => this.atomic(Op.AtomicUMax, at(word), size[c]!));
        minima.forEach((word, c) => this.atomic(Op.AtomicUMin, at(word), size[c]!));
      });
    });
    this.end();
  }

  private event(id: number): void {
    const { g } = this;
    const { decl } = g;
    const [word, n] = this.begin(id, decl.void, [decl.uint, decl.uint]);
    const cell = this.privateValue(this.privates.cell);
    g.ifThen(g.value(Op.IEqual, decl.bool, cell, decl.u32(CELL_DROP)), () => this.atomic(Op.AtomicIAdd, this.header(RayEventHeaderWord.DROPPED), n!));
    g.ifThen(g.value(Op.ULessThan, decl.bool, cell, decl.u32(CELL_DROP)), () => {
      const plane = this.mul(word!, this.load(this.header(RayEventHeaderWord.CELLS)));
      this.atomic(Op.AtomicIAdd, this.word(this.add(cell, plane)), n!);
    });
    this.end();
  }

  private scratchSave(id: number): void {
    const { g } = this;
    const { decl } = g;
    this.begin(id, decl.uvec2, []);
    const entry = this.privateValue(this.privates.scratch);
    const saved = g.ifThenValue(
      decl.uvec2,
      this.hasScratch(entry),
      () => {
        const [state, last] = [this.word(entry), this.word(this.add(entry, decl.u32(1)))];
        const value = g.value(Op.CompositeConstruct, decl.uvec2, this.load(state), this.load(last));
        g.op(Op.Store, state, decl.u32(0));
        g.op(Op.Store, last, decl.u32(0));
        return value;
      },
      decl.undef(decl.uvec2),
    );
    this.end(saved);
  }

  private scratchRestore(id: number): void {
    const { g } = this;
    const { decl } = g;
    const [saved] = this.begin(id, decl.void, [decl.uvec2]);
    const entry = this.privateValue(this.privates.scratch);
    g.ifThen(this.hasScratch(entry), () => this.restore(entry, saved!));
    this.end();
  }

  private traceBegin(id: number): void {
    this.traceStart(id, 'without-entry');
  }

  private traceUncounted(id: number): void {
    this.traceStart(id, 'always');
  }

  /**
   * TRACE_CALLS += 1; UNCOUNTED_TRAVERSALS += 1 for a pixel without a scratch entry, or (other trace instructions)
   * for every pixel of a launch with a row; then the entry saved and zeroed, so the traversal's any-hits and
   * closest hit cannot disturb an outer one's.
   */
  private traceStart(id: number, uncountedWhen: 'without-entry' | 'always'): void {
    const { g } = this;
    const { decl } = g;
    this.begin(id, decl.uvec2, []);
    g.value(Op.FunctionCall, decl.void, this.id('event'), decl.u32(RayCellWord.TRACE_CALLS), decl.u32(1));
    const entry = this.privateValue(this.privates.scratch);
    const uncounted =
      uncountedWhen === 'without-entry' ? g.value(Op.IEqual, decl.bool, entry, decl.u32(SCRATCH_UNCOUNTED)) : g.value(Op.INotEqual, decl.bool, entry, decl.u32(SCRATCH_NONE));
    g.ifThen(uncounted, () => this.atomic(Op.AtomicIAdd, this.header(RayEventHeaderWord.UNCOUNTED_TRAVERSALS), decl.u32(1)));
    this.end(g.value(Op.FunctionCall, decl.uvec2, this.id('scratchSave')));
  }

  private traceEnd(id: number): void {
    const { g } = this;
    const { decl } = g;
    const [saved] = this.begin(id, decl.void, [decl.uvec2]);
    const entry = this.privateValue(this.privates.scratch);
    g.ifThen(this.hasScratch(entry), () => {
      const state = this.load(this.word(entry));
      const accepted = g.value(Op.BitwiseAnd, decl.uint, state, decl.u32(RAY_SCRATCH_ACCEPTED_MASK));
      const ran = g.value(Op.INotEqual, decl.bool, g.value(Op.BitwiseAnd, decl.uint, state, decl.u32(RAY_SCRATCH_CLOSEST_HIT_RAN)), decl.u32(0));
      // Bit 31: the closest hit was the last accepted one, so every other accepted hit was replaced.
      const final = g.value(Op.ShiftRightLogical, decl.uint, state, decl.u32(31));
      const someAccepted = g.value(Op.INotEqual, decl.bool, accepted, decl.u32(0));
      // Without a closest-hit shader: every accepted hit but the last (a lower bound).
      const allButLast = g.value(Op.Select, decl.uint, someAccepted, g.value(Op.ISub, decl.uint, accepted, decl.u32(1)), decl.u32(0));
      const useless = g.value(Op.Select, decl.uint, ran, g.value(Op.ISub, decl.uint, accepted, final), allButLast);
      g.ifThen(g.value(Op.INotEqual, decl.bool, useless, decl.u32(0)), () => {
        g.value(Op.FunctionCall, decl.void, this.id('event'), decl.u32(RayCellWord.USELESS_ANY_HITS), useless);
      });
      this.restore(entry, saved!);
    });
    this.end();
  }

  private accept(id: number): void {
    const { g } = this;
    const { decl } = g;
    this.begin(id, decl.void, []);
    const entry = this.privateValue(this.privates.scratch);
    g.ifThen(this.hasScratch(entry), () => {
      const state = this.word(this.add(entry, decl.u32(RayScratchWord.STATE)));
      g.op(Op.Store, state, this.add(this.load(state), decl.u32(1)));
      g.op(Op.Store, this.word(this.add(entry, decl.u32(RayScratchWord.LAST_ACCEPTED_T))), this.privateValue(this.privates.t!));
    });
    this.end();
  }

  private closestHit(id: number): void {
    const { g } = this;
    const { decl } = g;
    this.begin(id, decl.void, []);
    const entry = this.privateValue(this.privates.scratch);
    g.ifThen(this.hasScratch(entry), () => {
      const statePointer = this.word(this.add(entry, decl.u32(RayScratchWord.STATE)));
      const state = this.load(statePointer);
      const last = this.load(this.word(this.add(entry, decl.u32(RayScratchWord.LAST_ACCEPTED_T))));
      const accepted = g.value(Op.INotEqual, decl.bool, g.value(Op.BitwiseAnd, decl.uint, state, decl.u32(RAY_SCRATCH_ACCEPTED_MASK)), decl.u32(0));
      const final = g.value(Op.LogicalAnd, decl.bool, g.value(Op.IEqual, decl.bool, last, this.privateValue(this.privates.t!)), accepted);
      const bits = g.value(Op.Select, decl.uint, final, decl.u32((RAY_SCRATCH_CLOSEST_HIT_RAN | RAY_SCRATCH_FINAL_ACCEPTED) >>> 0), decl.u32(RAY_SCRATCH_CLOSEST_HIT_RAN));
      g.op(Op.Store, statePointer, g.value(Op.BitwiseOr, decl.uint, state, bits));
    });
    this.end();
  }
}
