// The app's selected pass (a region of the trace): set by `wt-pass-select` {region} from the
// passes panel, its icicle, the draws table or the range summary (-1 clears it). Selecting a
// pass zooms the timeline to its draws' span; the pass goes down to the slotted panels (the
// draws table filters by it) and to the range summary. A new trace starts without one.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { OpenedTrace } from './app-types.js';

interface Host extends ReactiveControllerHost, HTMLElement {
  readonly opened: OpenedTrace | null;
  readonly timeline: { zoomTo(startNs: number, endNs: number, margin?: number): void } | null;
}

export class PassSelection implements ReactiveController {
  /** The selected region, -1 for none. */
  region = -1;

  constructor(private readonly host: Host) {
    host.addController(this);
    host.addEventListener('wt-pass-select', (e) => this.select((e as CustomEvent<{ region: number }>).detail.region));
  }

  hostConnected(): void {}

  /** Selects `region` (anything not a region of the open trace clears) and zooms to its span. */
  select(region: number): void {
    const o = this.host.opened;
    this.region = o !== null && Number.isInteger(region) && region >= 0 && region < o.trace.regions.length ? region : -1;
    this.host.requestUpdate();
    if (this.region < 0 || o === null) return;
    const spans = o.drawLayout.tree.spans;
    const s = spans[2 * this.region]!;
    const e = spans[2 * this.region + 1]!;
    if (!Number.isNaN(s) && e > s) this.host.timeline?.zoomTo(s, e, 0.04);
  }

  clear(): void {
    this.region = -1;
  }
}
