/**
 * The draws tab of <wt-stats-panel>: every draw in a table whose columns
 * sort on click (aria-sort on the header), virtualized (only the rows in
 * view exist), so 2 000 draws cost what 30 do. "All columns" adds the rest
 * (hidden share, gap before, SMs idle, warp-time per stage). The tools line
 * above it says how many of the draws the filters left and holds them; keys
 * on the table go to `onKey` (`[` / `]` step through the rows). A sampled
 * trace (issue 25) gets a line saying which columns it withholds, and "≈"
 * before the estimated figures of draws with a sampled stage.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { formatNs, formatNumber, formatShare, gapBeforeCell } from '../../analysis/format.js';
import type { DrawSummary } from '../../analysis/summary.js';
import { parseStageName, stageCssColor, stageInfo } from '../../shared-schema/stages.js';
import { drawCellValue, type DrawColumn, type DrawSort } from '../model/draw-table.js';
import { approxMark, drawSampled, withheldNote, type SampledEvery } from './sampling-note.js';

export const TABLE_ROW_PX = 20;
export const TABLE_HEIGHT_PX = 360;

export const drawTableStyles = css`
  .draw-table {
    max-height: ${TABLE_HEIGHT_PX}px;
    overflow: auto;
    position: relative;
  }
  .draw-table thead th {
    position: sticky;
    top: 0;
    background: var(--wt-bg-2, #1b1e24);
    cursor: pointer;
    user-select: none;
  }
  .draw-table tbody tr.r {
    height: ${TABLE_ROW_PX}px;
  }
  .draw-table td.label {
    max-width: 11em;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .draw-table td.pass {
    max-width: 7em;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .draw-tools {
    display: flex;
    flex-wrap: wrap;
    gap: 4px 8px;
    align-items: center;
    margin-bottom: 4px;
  }
  .draw-tools select {
    font: inherit;
    color: inherit;
    background: var(--wt-bg-2, #2a2e37);
    border: 1px solid var(--wt-border, #3a3f4b);
    border-radius: 3px;
    max-width: 14em;
  }
`;

export interface DrawTableView {
  readonly rows: readonly DrawSummary[];
  /** Draws before the filters. */
  readonly total: number;
  /** The filter controls (find, range, pass), shown in the tools line. */
  readonly filters: TemplateResult | typeof nothing;
  readonly columns: readonly DrawColumn[];
  readonly sort: DrawSort;
  readonly allColumns: boolean;
  readonly scrollTop: number;
  readonly selectedDraw: number;
  readonly passOf: (draw: number) => string | null;
  /** The trace's sampling rates (summary.sampling.every); undefined for a full trace. */
  readonly sampled: SampledEvery;
  onSort(column: DrawColumn): void;
  onToggleColumns(): void;
  onScroll(scrollTop: number): void;
  onSelect(d: DrawSummary): void;
  onKey(e: KeyboardEvent): void;
}

export function renderDrawTable(v: DrawTableView): TemplateResult {
  const n = v.rows.length;
  const first = Math.max(0, Math.floor(v.scrollTop / TABLE_ROW_PX) - 5);
  const last = Math.min(n, Math.ceil((v.scrollTop + TABLE_HEIGHT_PX) / TABLE_ROW_PX) + 5);
  const visible = v.rows.slice(first, last);
  const span = v.columns.length;
  return html`<div class="draw-tools">
      <span class="muted" data-count>${n === v.total ? `${formatNumber(n)} draws` : `${formatNumber(n)} of ${formatNumber(v.total)} draws`} · click a header to sort</span>
      ${v.filters}
      <button data-action="columns" aria-pressed=${v.allColumns ? 'true' : 'false'} @click=${() => v.onToggleColumns()}>${v.allColumns ? 'Fewer columns' : 'All columns'}</button>
    </div>
    ${withheldNote(v.sampled, 'draws', 'hidden share, gap before and SMs idle need every warp (–); ≈ marks the estimates of draws with sampled warps')}
    <div class="draw-table" @scroll=${(e: Event) => v.onScroll((e.target as HTMLElement).scrollTop)} @keydown=${(e: KeyboardEvent) => v.onKey(e)}>
      <table data-table="draws">
        <thead>
          <tr>
            ${v.columns.map(
              (c) => html`<th
                class=${c.numeric ? 'num' : ''}
                data-column=${c.id}
                tabindex="0"
                aria-sort=${v.sort.column === c.id ? (v.sort.descending ? 'descending' : 'ascending') : 'none'}
                @click=${() => v.onSort(c)}
                @keydown=${(e: KeyboardEvent) => (e.key === 'Enter' ? v.onSort(c) : undefined)}
              >
                ${c.title}${v.sort.column === c.id ? (v.sort.descending ? ' ▾' : ' ▴') : nothing}
              </th>`,
            )}
          </tr>
        </thead>
        <tbody>
          ${first > 0 ? html`<tr style="height:${first * TABLE_ROW_PX}px"><td colspan=${span}></td></tr>` : nothing}
          ${visible.map(
            (d) => html`<tr
              class="r clickable"
              tabindex="0"
              data-draw=${d.index}
              aria-selected=${d.index === v.selectedDraw ? 'true' : 'false'}
              @click=${() => v.onSelect(d)}
              @keydown=${(e: KeyboardEvent) => (e.key === 'Enter' ? v.onSelect(d) : undefined)}
            >
              ${v.columns.map((c) => cell(d, c, v.passOf, drawSampled(v.sampled, d), v.sampled != null))}
            </tr>`,
          )}
          ${last < n ? html`<tr style="height:${(n - last) * TABLE_ROW_PX}px"><td colspan=${span}></td></tr>` : nothing}
        </tbody>
      </table>
    </div>`;
}

/** Figures of a draw's sampled warps: estimates (≈) in a sampled trace; its span is that of its recorded warps. */
const ESTIMATED: ReadonlySet<string> = new Set(['span', 'warps', 'warpTime']);
const WITHHELD_TITLE = 'withheld: a sampled trace lacks the unrecorded warps this needs';

function cell(d: DrawSummary, c: DrawColumn, passOf: (draw: number) => string | null, sampled: boolean, traceSampled: boolean): TemplateResult {
  const value = drawCellValue(d, c.id, passOf);
  if (c.id === 'label') {
    return html`<td class="label" title=${d.label}>
      ${d.stages.map((st) => html`<span class="swatch" title=${stageInfo(st.stageCode).label} style="background:${stageCssColor(parseStageName(st.stage) ?? 0)}"></span>`)} ${d.label}
    </td>`;
  }
  if (c.id === 'pass') return html`<td class="pass" title=${value ?? ''}>${value ?? '–'}</td>`;
  const mark = approxMark(sampled && (ESTIMATED.has(c.id) || c.id.startsWith('stage:')));
  if (c.id === 'index' || c.id === 'warps') return html`<td class="num">${mark}${typeof value === 'number' ? formatNumber(value) : '–'}</td>`;
  // A sampled trace withholds the overlap columns of every draw.
  if (c.id === 'hidden') return html`<td class="num" title=${traceSampled ? WITHHELD_TITLE : ''}>${formatShare(d.hiddenShare, 0)}</td>`;
  if (c.id === 'gapBefore') return html`<td class="num" title=${traceSampled ? WITHHELD_TITLE : 'Negative: the draw started before the draws before it had drained'}>${gapBeforeCell(d.gapBeforeNs)}</td>`;
  return html`<td class="num" title=${c.id === 'idle' && traceSampled ? WITHHELD_TITLE : ''}>${mark}${typeof value === 'number' ? formatNs(value) : '–'}</td>`;
}
