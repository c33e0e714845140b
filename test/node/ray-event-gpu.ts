// A ray-tracing launch played on the CPU through the instrumenter's emitted ray-event functions
// (spirv-interpreter.ts runs them), beside an expected table built from the contract alone
// (shared-schema/ray-event-layout.ts, README "Ray events"): which cell a pixel counts in, what each
// event adds, and which accepted any-hits are useless by definition (accepted, but not the hit the
// traversal committed to).
import {
  DRAW_RAY_ROW_WORD,
  NO_RAY_ROW,
  RAY_CELL_WORDS,
  RAY_EVENT_HEADER_WORDS,
  RAY_ROW_HEADER_WORDS,
  RAY_SCRATCH_WORDS,
  RayCellWord,
  RayEventHeaderWord,
  RayRowHeaderWord,
  rayCellGrid,
  type RayCellGrid,
} from '../../shared-schema/ray-event-layout.js';
import type { DeviceMemory, SpirvInterpreter } from './spirv-interpreter.js';

export type Vec3 = readonly [number, number, number];
export type RayStage = 'RAYGEN' | 'INTERSECTION' | 'ANY_HIT' | 'CLOSEST_HIT' | 'MISS' | 'CALLABLE';
/** A traced draw's id (any but 0xffffffff), and the id of a draw the host does not trace. */
export const TRACED_DRAW = 0;
export const UNTRACED = 0xffffffff;

/** One candidate hit along a ray, in the order traversal finds it. */
export interface Candidate {
  readonly t: number;
  /** Opaque geometry: committed without an any-hit. */
  readonly opaque: boolean;
  /** Procedural geometry: an intersection shader runs first. */
  readonly procedural: boolean;
  readonly anyHit: 'accept' | 'ignore' | 'terminate';
}

export interface Traversal {
  readonly candidates: readonly Candidate[];
  /** The hit group has a closest-hit shader and the ray does not skip it. */
  readonly closestHit: boolean;
  /** The closest-hit shader calls a callable shader. */
  readonly callable: boolean;
  /** A ray the closest-hit or miss shader traces in turn. */
  readonly nested: Traversal | null;
}

/** The table the host allocates: header words written, minima at 0xffffffff, scratch entries holding garbage (it must survive). */
export function hostTable(cells: number, rows: number, scratchPixels: number): Uint32Array {
  const words = new Uint32Array(RAY_EVENT_HEADER_WORDS + rows * RAY_ROW_HEADER_WORDS + rows * cells * RAY_CELL_WORDS + scratchPixels * RAY_SCRATCH_WORDS);
  words[RayEventHeaderWord.CELLS] = cells;
  words[RayEventHeaderWord.ROWS] = rows;
  words[RayEventHeaderWord.SCRATCH_PIXELS] = scratchPixels;
  for (let r = 0; r < rows; r++) {
    const at = RAY_EVENT_HEADER_WORDS + r * RAY_ROW_HEADER_WORDS;
    words.fill(0xffffffff, at + RayRowHeaderWord.MIN_WIDTH, at + RayRowHeaderWord.MIN_DEPTH + 1);
  }
  const scratch = RAY_EVENT_HEADER_WORDS + rows * RAY_ROW_HEADER_WORDS + rows * cells * RAY_CELL_WORDS;
  for (let i = scratch; i < words.length; i++) words[i] = (0x9e3779b9 * (i + 1)) >>> 0;
  return words;
}

/** The word index of a cell's counter (rows hold their counters as planes of `cells` words), or of a row header's word. */
export function cellWord(table: Uint32Array, row: number, cell: number, word: number): number {
  const cells = table[RayEventHeaderWord.CELLS]!;
  const rows = table[RayEventHeaderWord.ROWS]!;
  return RAY_EVENT_HEADER_WORDS + rows * RAY_ROW_HEADER_WORDS + row * cells * RAY_CELL_WORDS + word * cells + cell;
}
export function rowHeaderWord(row: number, word: number): number {
  return RAY_EVENT_HEADER_WORDS + row * RAY_ROW_HEADER_WORDS + word;
}

const ENTRY_WORD = { INTERSECTION: RayCellWord.INTERSECTIONS, ANY_HIT: RayCellWord.ANY_HITS, CLOSEST_HIT: RayCellWord.CLOSEST_HITS, MISS: RayCellWord.MISSES, CALLABLE: RayCellWord.CALLABLES } as const;
type HitStage = keyof typeof ENTRY_WORD;

const floatWords = new Float32Array(1);
const floatBits = new Uint32Array(floatWords.buffer);
function bitsOf(t: number): number {
  floatWords[0] = t;
  return floatBits[0]!;
}

/** One launch of (draw id, row) played pixel by pixel through the interpreter, and the table the contract expects. */
/** An invocation: the module it runs and its private variables. */
type Invocation = readonly [SpirvInterpreter, Map<number, number>];

export class PlayedLaunch {
  private readonly memory: DeviceMemory;
  private readonly grid: RayCellGrid | null;
  private readonly profiled: boolean;
  /** The launch counts into its row (else, profiled, into DROPPED). */
  readonly counted: boolean;
  constructor(
    /** The module whose functions an invocation of each stage runs (one per stage, or a linked pipeline's for all). */
    private readonly shaders: (stage: RayStage) => SpirvInterpreter,
    readonly actual: Uint32Array,
    readonly expected: Uint32Array,
    private readonly size: Vec3,
    drawId: number,
    private readonly row: number,
  ) {
    const uniform = new Uint32Array(3);
    uniform[0] = drawId;
    uniform[DRAW_RAY_ROW_WORD] = row;
    this.memory = { buffer: actual, uniform };
    this.profiled = drawId !== UNTRACED && row !== NO_RAY_ROW;
    this.grid = rayCellGrid(size[0], size[1], size[2], expected[RayEventHeaderWord.CELLS]!);
    this.counted = this.profiled && this.grid !== null && row < expected[RayEventHeaderWord.ROWS]!;
  }

  /** The ray-generation invocation of pixel `id`: its prologue, then each trace in turn. */
  rayGeneration(id: Vec3, traces: readonly Traversal[]): void {
    const rayGeneration = this.prologue('RAYGEN', id, null);
    if (this.counted && id[0] === 0 && id[1] === 0 && id[2] === 0) {
      const at = (word: number) => rowHeaderWord(this.row, word);
      this.expected[at(RayRowHeaderWord.LAUNCHES)]!++;
      [RayRowHeaderWord.MAX_WIDTH, RayRowHeaderWord.MAX_HEIGHT, RayRowHeaderWord.MAX_DEPTH].forEach((w, c) => (this.expected[at(w)] = Math.max(this.expected[at(w)]!, this.size[c]!)));
      [RayRowHeaderWord.MIN_WIDTH, RayRowHeaderWord.MIN_HEIGHT, RayRowHeaderWord.MIN_DEPTH].forEach((w, c) => (this.expected[at(w)] = Math.min(this.expected[at(w)]!, this.size[c]!)));
    }
    for (const trace of traces) this.traceRay(rayGeneration, id, trace);
  }

  /** What every ray-tracing entry point's prologue does (the structural tests check the instructions). */
  private prologue(stage: HitStage | 'RAYGEN', id: Vec3, t: number | null): Invocation {
    const gpu = this.shaders(stage);
    const privates = gpu.invocation();
    gpu.call(this.memory, privates, 'warptrace_ray_pixel', id, this.size);
    if (stage === 'RAYGEN') gpu.call(this.memory, privates, 'warptrace_ray_launch', id, this.size);
    if (t !== null) privates.set(gpu.idOf('warptrace_ray_t'), bitsOf(t));
    if (stage !== 'RAYGEN') {
      gpu.call(this.memory, privates, 'warptrace_ray_event', ENTRY_WORD[stage], 1);
      this.count(id, ENTRY_WORD[stage], 1);
    }
    if (stage === 'CLOSEST_HIT') gpu.call(this.memory, privates, 'warptrace_ray_closest_hit');
    return [gpu, privates];
  }

  /** OpTraceRayKHR from the invocation `caller`: its any-hits, intersections, closest hit or miss, and what the contract expects of them. */
  private traceRay([gpu, caller]: Invocation, id: Vec3, traversal: Traversal): void {
    const saved = gpu.call(this.memory, caller, 'warptrace_ray_trace_begin') as readonly number[];
    this.count(id, RayCellWord.TRACE_CALLS, 1);
    let tMax = Infinity;
    let committed: Candidate | null = null;
    const accepted: Candidate[] = [];
    for (const c of traversal.candidates) {
      if (c.procedural) this.prologue('INTERSECTION', id, null);
      if (c.t >= tMax) continue;
      if (c.opaque) {
        committed = c;
        tMax = c.t;
        continue;
      }
      const [anyHit, privates] = this.prologue('ANY_HIT', id, c.t);
      if (c.anyHit === 'ignore') {
        anyHit.call(this.memory, privates, 'warptrace_ray_event', RayCellWord.ANY_HITS_IGNORED, 1);
        this.count(id, RayCellWord.ANY_HITS_IGNORED, 1);
        continue;
      }
      anyHit.call(this.memory, privates, 'warptrace_ray_accept');
      accepted.push(c);
      committed = c;
      tMax = c.t;
      if (c.anyHit === 'terminate') break;
    }
    const ranClosestHit = committed !== null && traversal.closestHit;
    if (ranClosestHit) {
      const closest = this.prologue('CLOSEST_HIT', id, committed!.t);
      if (traversal.callable) this.prologue('CALLABLE', id, null);
      if (traversal.nested !== null) this.traceRay(closest, id, traversal.nested);
    } else if (committed === null) {
      const miss = this.prologue('MISS', id, null);
      if (traversal.nested !== null) this.traceRay(miss, id, traversal.nested);
    }
    gpu.call(this.memory, caller, 'warptrace_ray_trace_end', saved);
    // Useless: accepted, and not the hit committed to; without a closest hit the contract counts all but the last.
    const useless = ranClosestHit ? accepted.filter((c) => c !== committed).length : Math.max(accepted.length - 1, 0);
    if (!this.profiled) return;
    if (!this.hasScratch(id)) this.expected[RayEventHeaderWord.UNCOUNTED_TRAVERSALS]!++;
    else if (useless > 0) this.count(id, RayCellWord.USELESS_ANY_HITS, useless);
  }

  private hasScratch(id: Vec3): boolean {
    const [w, h] = this.size;
    return id[0] + w * (id[1] + h * id[2]) < this.expected[RayEventHeaderWord.SCRATCH_PIXELS]!;
  }

  /** The contract's cell of pixel `id`: ((z × ch) + (y >> scale)) × cw + (x >> scale). */
  private count(id: Vec3, word: number, n: number): void {
    if (!this.profiled) return;
    if (!this.counted) {
      this.expected[RayEventHeaderWord.DROPPED] += n;
      return;
    }
    const { scale, width, height } = this.grid!;
    const cell = (id[2] * height + (id[1] >> scale)) * width + (id[0] >> scale);
    this.expected[cellWord(this.expected, this.row, cell, word)] += n;
  }
}
