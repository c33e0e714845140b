// The line under the SM line while a filter highlights warps (components/warp-filter-sync.ts):
// how many warps it picked and their warp-time, what picked them (the find text, a duration
// range of a stage, the screen brush) with a button to drop each, and the list of the longest
// of them: a row per warp (duration, stage, draw, SM, start) whose button selects the warp
// and brings it into view. Labels are trace text: lit
// renders them as text, elided by CSS with the whole label in the tooltip.
import { css, html, nothing } from 'lit';
import { formatNs, smOfWarp, stageInfo, type Trace } from '../../shared-schema/index.js';
import type { WarpHighlight } from '../model/warp-filter.js';
import type { WarpFilterSync } from './warp-filter-sync.js';

const count = (n: number) => n.toLocaleString('en-US');

export function filterBar(sync: WarpFilterSync, trace: Trace | null) {
  const h = sync.highlight;
  if (trace === null || (sync.find === null && sync.duration === null && h === null)) return nothing;
  const current = h !== null && h.filters.find === sync.find && h.filters.duration === sync.duration;
  const d = sync.duration;
  const f = sync.find;
  const total = trace.warps.count;
  return html`<div class="filter-bar" role="group" aria-label="Highlighted warps">
    ${current
      ? html`<span class="filter-count" role="status"><strong>${count(h.count)}</strong> of ${count(total)} warps highlighted (${((100 * h.count) / Math.max(1, total)).toFixed(h.count * 1000 < total ? 2 : 1)}%) · warp-time ${formatNs(h.warpTimeNs)}</span>`
      : html`<span class="filter-count muted" role="status">Counting warps…</span>`}
    ${f === null ? nothing : html`<span class="filter-term" title="The find box: warps of the matching draws${f.stageMask === -1 ? '' : ' and stages'}">find “${f.text}”: ${count(f.draws.length)} draws <button aria-label="Clear the find filter" @click=${() => sync.clearFind()}>×</button></span>`}
    ${d === null
      ? nothing
      : html`<span class="filter-term" title="A duration range of one stage, from a Statistics histogram">${stageInfo(d.stage).label} warps ${formatNs(d.minNs)} – ${formatNs(d.maxNs)}${d.draw === null ? '' : ` in draw ${d.draw}`}
          <button aria-label="Clear the duration filter" @click=${() => sync.setDuration(null)}>×</button></span>`}
    ${h !== null && h.filters.rows !== null ? html`<span class="filter-term">screen brush</span>` : nothing}
    ${current && h.count > 0
      ? html`<button class="filter-list-toggle" data-filter-list-toggle aria-expanded=${sync.listOpen ? 'true' : 'false'} @click=${() => sync.toggleList()}>
          ${sync.listOpen ? 'Hide the list' : `List the longest ${Math.min(h.longest.length, h.count)}`}
        </button>`
      : nothing}
    ${current && sync.listOpen ? longestList(h, trace, (row) => sync.pick(row)) : nothing}
  </div>`;
}

function longestList(h: WarpHighlight, trace: Trace, pick: (row: number) => void) {
  const w = trace.warps;
  return html`<div class="filter-list" role="dialog" aria-label="The longest highlighted warps">
    <table>
      <thead><tr><th class="num">Duration</th><th>Stage</th><th>Draw</th><th class="num">SM</th><th class="num">Start</th></tr></thead>
      <tbody>
        ${Array.from(h.longest, (row) => {
          const d = w.draw[row]!;
          const label = trace.draws[d]?.label ?? '';
          return html`<tr data-row=${row}>
            <td class="num"><button class="link" @click=${() => pick(row)} title="Select warp ${row} and show it">${formatNs(w.durationNs[row]!)}</button></td>
            <td>${stageInfo(w.stage[row]!).label}</td>
            <td class="draw" title="draw ${d} ${label}">#${d} ${label}</td>
            <td class="num">${smOfWarp(w.smGroups, row)}</td>
            <td class="num">${formatNs(w.startNs[row]!, 6)}</td>
          </tr>`;
        })}
      </tbody>
    </table>
    ${h.count > h.longest.length ? html`<p class="muted">The ${count(h.longest.length)} longest of ${count(h.count)}.</p>` : nothing}
  </div>`;
}

export const filterBarStyles = css`
  .filter-bar {
    position: relative;
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 4px 10px;
    padding: 3px 10px;
    font-size: 12px;
    background: #1d2230;
    border-bottom: 1px solid #2a2e37;
  }
  .filter-term {
    padding: 0 4px 0 8px;
    border-radius: 8px;
    background: #2a3246;
    max-width: 420px;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .filter-bar button {
    padding: 0 8px;
    line-height: 16px;
  }
  .filter-list {
    position: absolute;
    top: 100%;
    right: 10px;
    z-index: 9;
    max-height: 50vh;
    max-width: min(640px, 90vw);
    overflow: auto;
    background: #1f232b;
    border: 1px solid #3a3f4b;
    border-radius: 6px;
    padding: 6px 10px;
    box-shadow: 0 6px 24px rgba(0, 0, 0, 0.5);
  }
  .filter-list table {
    border-collapse: collapse;
    table-layout: fixed;
    width: 100%;
  }
  .filter-list th,
  .filter-list td {
    padding: 1px 6px;
    text-align: left;
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .filter-list .num {
    text-align: right;
  }
  .filter-list td.draw {
    max-width: 240px;
  }
  .filter-list button.link {
    background: none;
    border: none;
    color: #7fb2ff;
    padding: 0;
    text-decoration: underline;
  }
`;
