// Keeps <warptrace-app>'s `coloring` (what the timeline colors warps by: model/color-by.ts and
// class-occupancy.ts) in step with its `colorBy` mode, the open trace and the hidden stages.
// A mode change computes the class column, then each lane's class pyramid, a slice of rows per
// step and ~10 ms of steps per task (bench/RESULTS.md "Color by": 0.3-0.8 s at 5 M warps in
// Chromium, in tasks of at most 25-50 ms); the timeline keeps the old colors until all are
// built, so it never shows half a mode. Small traces are done in the update that asked. Stage
// mode needs nothing: coloring null.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Trace } from '../../shared-schema/index.js';
import { runInTasks } from '../base/tasks.js';
import { laneColoringSteps, type LaneColoring } from '../model/class-occupancy.js';
import { colorByKey, colorByOptions, markIdsOf, runSteps, type ColorBy, type ColorByOption } from '../model/color-by.js';
import type { OpenedTrace } from './app-types.js';

export interface ColorByHost extends ReactiveControllerHost {
  readonly opened: OpenedTrace | null;
  readonly colorBy: ColorBy;
  readonly hiddenStages: number;
  coloring: LaneColoring | null;
}

/** Traces up to this many warps get their coloring in the update that asked for it (a few ms). */
const SYNC_WARPS = 300_000;
/** Rows per step, and the time a task spends on steps before it yields to the page. */
const SLICE_ROWS = 65_536;
const TASK_MS = 10;

interface Wanted {
  readonly trace: Trace;
  readonly key: string;
  readonly hiddenStages: number;
}

export class ColorBySync implements ReactiveController {
  private wanted: Wanted | null = null;
  private generation = 0;
  private options: { trace: Trace; list: ColorByOption[] } | null = null;
  /** Settles when the last coloring asked for is built or given up (tests, benchmarks). */
  settled: Promise<void> = Promise.resolve();

  constructor(private readonly host: ColorByHost) {
    host.addController(this);
  }

  /** The modes the open trace offers (a branch per mark id it has), in the selector's order. */
  optionsFor(trace: Trace): ColorByOption[] {
    if (this.options?.trace !== trace) this.options = { trace, list: colorByOptions(markIdsOf(trace.marks), trace) };
    return this.options.list;
  }

  hostUpdate(): void {
    const h = this.host;
    const o = h.opened;
    if (o === null || h.colorBy.kind === 'stage') {
      if (this.wanted !== null) this.generation++;
      this.wanted = null;
      if (h.coloring !== null) h.coloring = null;
      return;
    }
    const want: Wanted = { trace: o.trace, key: colorByKey(h.colorBy), hiddenStages: h.hiddenStages };
    const w = this.wanted;
    if (w !== null && w.trace === want.trace && w.key === want.key && w.hiddenStages === want.hiddenStages) return;
    // Only the hidden stages changed: the classes stand, the pyramids are built again.
    const current = h.coloring?.colors ?? null;
    const reuse = current !== null && w !== null && w.trace === want.trace && w.key === want.key ? current : null;
    this.wanted = want;
    const generation = ++this.generation;
    if (o.trace.warps.count <= SYNC_WARPS) {
      h.coloring = runSteps(laneColoringSteps(o.trace, o.index, h.colorBy, want.hiddenStages, reuse, Infinity));
      return;
    }
    const steps = laneColoringSteps(o.trace, o.index, h.colorBy, want.hiddenStages, reuse, SLICE_ROWS);
    this.settled = this.run(steps, generation);
  }

  private async run(steps: Generator<void, LaneColoring>, generation: number): Promise<void> {
    const done = await runInTasks(steps, TASK_MS, () => generation === this.generation);
    if (done !== null) this.host.coloring = done.value;
  }
}
