// The layout of an open trace in <warptrace-app>: the draw list (left column), the timeline
// with whatever is slotted beside it (slot="beside-timeline"), and the detail panels under
// them; the screen panel (viewer/screen/) beside the timeline when the trace has warp
// positions. To add a panel of the trace view: slot it beside the timeline from outside (it
// gets the app's panel properties), or add it here, in `.timeline-row` or `.details`.
import { html, nothing, type TemplateResult } from 'lit';
import type { OpenedTrace } from './app-types.js';
import type { Trace } from '../../shared-schema/index.js';
import type { TimeRange } from '../timeline/frame.js';
import type { RangeCounts } from '../../analysis/range-counts.js';
import type { InFlight } from '../../analysis/in-flight.js';
import type { LaneColoring } from '../model/class-occupancy.js';
import type { WarpHighlight } from '../model/warp-filter.js';
import './wt-timeline.js';
import './wt-draw-list.js';
import './wt-warp-details.js';
import './wt-range-summary.js';
import './wt-in-flight.js';
import '../screen/wt-screen-panel.js';

/** The app state the trace view shows. */
export interface TraceViewState {
  readonly selectedDraw: number;
  readonly selectedWarp: number;
  readonly hiddenStages: number;
  readonly showAllSms: boolean;
  readonly range: TimeRange | null;
  readonly cursorNs: number | null;
  readonly counts: RangeCounts | null;
  readonly inFlight: InFlight | null;
  /** Warps the screen panel's brush highlights (null: none): one of the filters below. */
  readonly highlightRows: Uint32Array | null;
  /** Warps the filters (find, duration, the screen panel's brush) highlight on the timeline (null: none; model/warp-filter.ts). */
  readonly filters: { readonly highlight: WarpHighlight | null };
  /** The A/B baseline trace, drawn as the timeline's ghost track (null: none). */
  readonly baselineTrace: Trace | null;
  /** What the warps are colored by (color-by-sync.ts); null: by stage. */
  readonly coloring: LaneColoring | null;
  /** The selected pass (region), -1 for none: the range summary counts only its draws. */
  readonly selectedPass: number;
}

/**
 * `o` null: the first trace is still loading. The view is there already (empty), so the
 * timeline's renderer starts while the worker decodes, not in the task that shows the trace.
 */
export function traceView(s: TraceViewState, o: OpenedTrace | null, besideTimeline: boolean, onSlotChange: () => void, leftEdge: TemplateResult, detailsToggle: TemplateResult | typeof nothing = nothing) {
  return html`
    <wt-draw-list class="draws" .trace=${o?.trace ?? null} .spans=${o?.drawLayout.spans ?? null} .tree=${o?.drawLayout.tree ?? null} .selectedDraw=${s.selectedDraw}></wt-draw-list>
    <section class="center">
      <div class="timeline-row ${besideTimeline ? 'with-beside' : ''}">
        <wt-timeline
          .trace=${o?.trace ?? null}
          .index=${o?.index ?? null}
          .sharedDrawLayout=${o?.drawLayout ?? null}
          .hiddenStages=${s.hiddenStages}
          .showAllSms=${s.showAllSms}
          .selectedDraw=${s.selectedDraw}
          .selectedWarp=${s.selectedWarp}
          .range=${s.range}
          .cursorNs=${s.cursorNs}
          .highlightRows=${s.highlightRows}
          .filterHighlight=${s.filters.highlight}
          .baseline=${s.baselineTrace}
          .coloring=${s.coloring}
        ></wt-timeline>
        ${o === null || (o.trace.warps.position === null && (o.trace.rayEvents?.rows.length ?? 0) === 0) ? nothing : html`<wt-screen-panel .trace=${o.trace} .range=${s.range} .selectedDraw=${s.selectedDraw}></wt-screen-panel>`}
        <div class="beside-timeline"><slot name="beside-timeline" @slotchange=${onSlotChange}></slot></div>
      </div>
      <div class="details">
        ${detailsToggle}
        <wt-warp-details .trace=${o?.trace ?? null} .row=${s.selectedWarp}></wt-warp-details>
        <wt-range-summary .trace=${o?.trace ?? null} .counts=${s.counts} .selectedPass=${s.selectedPass} .maxDurationNs=${o?.maxDurationNs ?? 0}></wt-range-summary>
        <wt-in-flight .trace=${o?.trace ?? null} .inFlight=${s.inFlight}></wt-in-flight>
      </div>
    </section>
    ${leftEdge}
  `;
}
