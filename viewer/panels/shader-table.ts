/**
 * The table of <wt-shader-panel>: one row per source line (or block) of the
 * draws' profiled modules, sortable by each column (aria-sort on the
 * header). Trace strings (files, functions, disassembly) go in through lit
 * text and attribute bindings only.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';
import type { BlockStat } from '../../analysis/blocks.js';
import { formatShare } from '../../analysis/format.js';
import type { BlockModule } from '../../shared-schema/index.js';
import { BLOCK_COLUMNS, blockLocation, formatBlockTime, formatCount, formatInteger, lanesText, moduleTag, statKey, type BlockColumn, type BlockSort } from '../model/block-view.js';

export interface ShaderTableView {
  /** The rows shown, sorted. */
  readonly rows: readonly BlockStat[];
  /** Rows of the table in all (more than rows when it is cut). */
  readonly total: number;
  readonly sort: BlockSort;
  /** statKey of the clicked row, highlighted. */
  readonly selectedKey: string | null;
  /** Tag each row with its module's stages (several modules shown together). */
  readonly tagModules: boolean;
  readonly modules: readonly BlockModule[];
  readonly subgroupSize: number;
  onSort(column: BlockColumn): void;
  onRow(stat: BlockStat): void;
  onShowAll(): void;
}

const activate = (run: () => void) => (e: KeyboardEvent) => {
  if (e.key !== 'Enter' && e.key !== ' ') return;
  e.preventDefault();
  run();
};

function header(v: ShaderTableView, c: BlockColumn): TemplateResult {
  const sorted = v.sort.column === c.id;
  return html`<th
    class=${c.numeric ? 'num' : ''}
    data-column=${c.id}
    tabindex="0"
    aria-sort=${sorted ? (v.sort.descending ? 'descending' : 'ascending') : 'none'}
    @click=${() => v.onSort(c)}
    @keydown=${activate(() => v.onSort(c))}
  >
    ${c.title}${sorted ? (v.sort.descending ? ' ▾' : ' ▴') : nothing}
  </th>`;
}

function row(v: ShaderTableView, s: BlockStat): TemplateResult {
  const where = blockLocation(s);
  const key = statKey(s);
  const module = v.modules[s.module]!;
  return html`<tr
    class="clickable"
    tabindex="0"
    data-key=${key}
    data-line=${s.line ?? nothing}
    aria-selected=${key === v.selectedKey ? 'true' : 'false'}
    @click=${() => v.onRow(s)}
    @keydown=${activate(() => v.onRow(s))}
  >
    <td class="location" title=${where.title}>
      ${v.tagModules ? html`<span class="tag">${moduleTag(module)}</span> ` : nothing}<span class="where">${where.primary}</span>${where.detail === null
        ? nothing
        : html` <span class="disasm">${where.detail}</span>`}
    </td>
    <td class="num share" title=${`${formatShare(s.tickShare, 2)} of the ${s.clock === 'sm' ? 'SM-cycle' : 'device-clock'} ticks of the draws shown`}>
      <span class="bar-track"><span class="bar" style=${styleMap({ width: `${Math.min(100, Math.max(0, s.tickShare * 100))}%` })}></span></span><span class="value">${formatShare(s.tickShare)}</span>
    </td>
    <td class="num" data-cell="time">${formatBlockTime(s)}</td>
    <td class="num" data-cell="executions" title=${formatInteger(s.executions)}>${formatCount(s.executions)}</td>
    <td class="num" data-cell="simt" title=${lanesText(s, v.subgroupSize)}>${formatShare(s.simtEfficiency, 0)}</td>
  </tr>`;
}

export function renderShaderTable(v: ShaderTableView): TemplateResult {
  return html`<div class="table-wrap">
      <table data-table="blocks">
        <thead>
          <tr>
            ${BLOCK_COLUMNS.map((c) => header(v, c))}
          </tr>
        </thead>
        <tbody>
          ${v.rows.map((s) => row(v, s))}
        </tbody>
      </table>
    </div>
    ${v.rows.length < v.total
      ? html`<button data-action="all-rows" @click=${() => v.onShowAll()}>Show all ${formatInteger(v.total)} rows</button>`
      : nothing}`;
}
