/**
 * The selected warp's marks in <wt-warp-details> (Trace.marks,
 * shared-schema/mark-model.ts): each mark in order with its label
 * (analysis/marks.ts markLabel), its time from the warp's start and the lanes
 * live at it; then the warp's phases (start → first mark, mark to mark, last
 * mark → end) with their durations and share of the warp. Reads the mark
 * columns of this one warp only (a binary search: mark-ticks.ts marksOfWarp).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { markLabel, phaseLabel } from '../../analysis/marks.js';
import { formatNs, formatShare } from '../../analysis/format.js';
import { popcount32 } from '../../shared-schema/columns.js';
import type { MarkColumns, Trace } from '../../shared-schema/index.js';
import { marksOfWarp } from '../model/mark-ticks.js';

/** One phase of one warp: its ends' mark ids (null: the warp's start or end) and ns from the warp's start. */
export interface WarpPhase {
  readonly from: number | null;
  readonly to: number | null;
  readonly startNs: number;
  readonly endNs: number;
}

/** Lanes live at mark k. */
export function markLanes(marks: MarkColumns, k: number): number {
  return popcount32(marks.activeMask[k]!) + (marks.activeMaskHi === null ? 0 : popcount32(marks.activeMaskHi[k]!));
}

/** The warp's phases, cut at its marks (empty when it has none): as analysis/marks.ts's phaseTable cuts them. */
export function warpPhases(trace: Trace, row: number): WarpPhase[] {
  const marks = trace.marks ?? null;
  if (marks === null) return [];
  const [begin, end] = marksOfWarp(marks, row);
  if (begin === end) return [];
  const out: WarpPhase[] = [{ from: null, to: marks.id[begin]!, startNs: 0, endNs: marks.offsetNs[begin]! }];
  for (let k = begin; k + 1 < end; k++) out.push({ from: marks.id[k]!, to: marks.id[k + 1]!, startNs: marks.offsetNs[k]!, endNs: marks.offsetNs[k + 1]! });
  out.push({ from: marks.id[end - 1]!, to: null, startNs: marks.offsetNs[end - 1]!, endNs: trace.warps.durationNs[row]! });
  return out;
}

/** The marks and phases of warp `row`; nothing when the trace has no marks, a line when this warp has none. */
export function renderWarpMarks(trace: Trace, row: number): TemplateResult | typeof nothing {
  const marks = trace.marks ?? null;
  if (marks === null || marks.count === 0) return nothing;
  const [begin, end] = marksOfWarp(marks, row);
  if (begin === end) return html`<p class="muted marks-none">No marks: this warp passed none.</p>`;
  const ks: number[] = [];
  for (let k = begin; k < end; k++) ks.push(k);
  const duration = trace.warps.durationNs[row]!;
  const subgroup = trace.device.subgroupSize;
  return html`
    <table class="marks" data-table="marks">
      <thead>
        <tr><th>mark</th><th class="num">at</th><th class="num">lanes</th></tr>
      </thead>
      <tbody>
        ${ks.map(
          (k) => html`<tr data-mark=${k - begin}>
            <td data-cell="label" title=${`id 0x${marks.id[k]!.toString(16)}, sequence ${marks.sequence[k]}`}>${markLabel(marks.id[k]!)}</td>
            <td class="num" data-cell="at">${formatNs(marks.offsetNs[k]!, 4)}</td>
            <td class="num" data-cell="lanes">${markLanes(marks, k)} / ${subgroup}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <table class="phases" data-table="warp-phases">
      <thead>
        <tr><th>phase</th><th class="num">time</th><th class="num">share</th></tr>
      </thead>
      <tbody>
        ${warpPhases(trace, row).map(
          (p) => html`<tr>
            <td data-cell="label">${phaseLabel(p.from, p.to)}</td>
            <td class="num" data-cell="time">${formatNs(p.endNs - p.startNs, 4)}</td>
            <td class="num" data-cell="share">${duration > 0 ? formatShare((p.endNs - p.startNs) / duration) : '–'}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  `;
}
