// The app's warp filters (model/warp-filter.ts): the find box's matches, a duration range picked
// on a Statistics histogram (`wt-duration-filter`) and the screen panel's brush (the app's
// `highlightRows`). Whenever one changes, the highlight the timeline draws is built again, a
// slice of rows per step and ~10 ms of steps per task (traces up to 300 k warps, and a brush
// alone, at once); the timeline keeps the previous highlight until the new one is complete.
// A new trace drops the find and duration filters.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { rowHighlight } from '../model/row-highlight.js';
import { hasFilters, stageMaskOfQuery, warpFilterSteps, type DurationFilter, type FindFilter, type WarpFilters, type WarpHighlight } from '../model/warp-filter.js';
import { runSteps } from '../model/color-by.js';
import { runInTasks } from '../base/tasks.js';
import type { OpenedTrace } from './app-types.js';
import { DismissController } from './dismiss-controller.js';

export interface WarpFilterHost extends ReactiveControllerHost, EventTarget {
  readonly opened: OpenedTrace | null;
  /** The screen panel's brush. */
  readonly highlightRows: Uint32Array | null;
  readonly timeline: { revealWarp(row: number): void } | null;
  readonly drawList: { setQuery(query: string): void } | null;
  selectWarp(row: number): void;
}

const SYNC_WARPS = 300_000;
const SLICE_ROWS = 65_536;
const TASK_MS = 10;

export class WarpFilterSync implements ReactiveController {
  find: FindFilter | null = null;
  duration: DurationFilter | null = null;
  /** What the timeline highlights (null: nothing, every warp in its colors). */
  highlight: WarpHighlight | null = null;
  /** The list of the longest highlighted warps is open. */
  listOpen = false;
  /** Settles when the last highlight asked for is built or given up (tests). */
  settled: Promise<void> = Promise.resolve();
  private wanted: { trace: OpenedTrace['trace']; find: FindFilter | null; duration: DurationFilter | null; rows: Uint32Array | null } | null = null;
  private generation = 0;

  constructor(private readonly host: WarpFilterHost) {
    host.addController(this);
    new DismissController(
      host,
      () => this.listOpen,
      (t) => t instanceof HTMLElement && (t.classList.contains('filter-list') || t.hasAttribute('data-filter-list-toggle')),
      () => this.toggleList(),
    );
    host.addEventListener('wt-draw-filter', (e) => {
      const { matches } = (e as CustomEvent<{ matches: Uint32Array | null }>).detail;
      const source = e.composedPath()[0];
      const text = source instanceof HTMLElement && 'query' in source && typeof source.query === 'string' ? source.query : '';
      this.find = matches === null ? null : { draws: matches, stageMask: stageMaskOfQuery(text), text: text.trim() };
      host.requestUpdate();
    });
    host.addEventListener('wt-duration-filter', (e) => this.setDuration((e as CustomEvent<{ filter: DurationFilter | null }>).detail.filter));
  }

  /** A warp of the list: selected, its lane expanded and the warp brought into view. */
  pick(row: number): void {
    this.host.selectWarp(row);
    this.host.timeline?.revealWarp(row);
  }

  /** Empties the find box (its matches go, and with them the find filter). */
  clearFind(): void {
    this.host.drawList?.setQuery('');
  }

  toggleList(): void {
    this.listOpen = !this.listOpen;
    this.host.requestUpdate();
  }

  setDuration(filter: DurationFilter | null): void {
    this.duration = filter;
    this.host.requestUpdate();
  }

  /** Drops the find and duration filters (the brush is the screen panel's to clear). */
  clear(): void {
    this.find = null;
    this.duration = null;
    this.listOpen = false;
    this.host.requestUpdate();
  }

  hostUpdate(): void {
    const o = this.host.opened;
    const w = this.wanted;
    if (o !== null && w !== null && w.trace !== o.trace) {
      // A new trace: its draws and durations are not the old filters'.
      this.find = null;
      this.duration = null;
      this.listOpen = false;
    }
    const rows = this.host.highlightRows;
    if (o !== null && w !== null && w.trace === o.trace && w.find === this.find && w.duration === this.duration && w.rows === rows) return;
    const generation = ++this.generation;
    this.wanted = o === null ? null : { trace: o.trace, find: this.find, duration: this.duration, rows };
    const filters: WarpFilters = { find: this.find, duration: this.duration, rows: o === null || rows === null ? null : rowHighlight(rows, o.trace.warps.count) };
    if (o === null || !hasFilters(filters)) {
      this.highlight = null;
      this.listOpen = false;
      return;
    }
    // A brush alone walks its own rows: at once.
    if (o.trace.warps.count <= SYNC_WARPS || (filters.find === null && filters.duration === null)) {
      this.highlight = runSteps(warpFilterSteps(o.trace, filters, Infinity));
      return;
    }
    this.settled = this.run(warpFilterSteps(o.trace, filters, SLICE_ROWS), generation);
  }

  private async run(steps: Generator<void, WarpHighlight>, generation: number): Promise<void> {
    const done = await runInTasks(steps, TASK_MS, () => generation === this.generation);
    if (done === null) return;
    this.highlight = done.value;
    this.host.requestUpdate();
  }
}
