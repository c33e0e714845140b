/**
 * <wt-passes-panel .section=${summary.passes}>: the cost per pass
 * (analysis/passes.ts) as a tree table (pass, draws, span, busy time,
 * warp-time, share of the frame), nested passes under a twisty, in frame
 * order or costliest first, with the icicle view of passes → draws over time
 * (wt-pass-icicle.ts) above it. Activating a pass (click, Enter, Space)
 * dispatches `wt-pass-select` {region} (the app selects it: the timeline
 * zooms to it and the draws table and range summary filter by it); the
 * selected pass again clears it (region -1). → / ← open and close a pass.
 * Shows, never computes.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { formatNs, formatNumber, formatShare } from '../../analysis/format.js';
import type { PassCost, PassSection, PassStat } from '../../analysis/passes.js';
import type { DrawSummary } from '../../analysis/summary.js';
import type { StageName, Trace } from '../../shared-schema/index.js';
import { panelStyles } from '../components/shared-styles.js';
import './wt-pass-icicle.js';
import { approxMark, withheldNote } from './sampling-note.js';

type Order = 'frame' | 'cost';

export class WtPassesPanel extends LitElement {
  static override properties = {
    trace: { attribute: false },
    section: { attribute: false },
    draws: { attribute: false },
    selectedPass: { attribute: false },
    selectedDraw: { attribute: false },
    expanded: { state: true },
    order: { state: true },
  };

  static override styles = [
    panelStyles,
    css`
      .tools {
        display: flex;
        gap: 6px;
        align-items: center;
        flex-wrap: wrap;
        margin: 6px 0 4px;
      }
      .table {
        max-height: 260px;
        overflow: auto;
      }
      table {
        table-layout: fixed;
      }
      th {
        position: sticky;
        top: 0;
        background: var(--wt-bg-2, #1b1e24);
      }
      col.n {
        width: 3.6em;
      }
      col.t {
        width: 5em;
      }
      col.s {
        width: 5.8em;
      }
      td.pass {
        overflow: hidden;
        text-overflow: ellipsis;
      }
      tr.pass {
        cursor: pointer;
      }
      tr.pass:hover,
      tr.pass[aria-selected='true'] {
        background: var(--wt-bg-2, #2a2e37);
      }
      tr.pass[aria-selected='true'] td.pass {
        color: var(--wt-accent, #7fb2ff);
      }
      .twisty {
        display: inline-block;
        width: 1.1em;
        color: var(--wt-muted, #8b909c);
      }
      .bar {
        display: inline-block;
        height: 6px;
        background: var(--wt-accent, #7fb2ff);
        opacity: 0.6;
        margin-right: 4px;
        vertical-align: 1px;
      }
    `,
  ];

  declare trace: Trace | null;
  declare section: PassSection | null;
  declare draws: readonly DrawSummary[];
  /** The app's selected pass (-1: none). */
  declare selectedPass: number;
  declare selectedDraw: number;
  declare expanded: ReadonlySet<number>;
  declare order: Order;

  constructor() {
    super();
    this.trace = null;
    this.section = null;
    this.draws = [];
    this.selectedPass = -1;
    this.selectedDraw = -1;
    this.expanded = new Set();
    this.order = 'frame';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Another trace's passes start closed (new thresholds give a new section of the same trace: kept).
    if (changed.has('trace') && changed.get('trace') !== undefined) this.expanded = new Set();
  }

  /** The rows shown: the passes whose ancestors are all open, siblings in frame order or costliest first. */
  get rows(): PassStat[] {
    const s = this.section;
    if (s === null) return [];
    const children = new Map<number | null, PassStat[]>();
    for (const p of s.passes) {
      const list = children.get(p.parent) ?? [];
      list.push(p);
      children.set(p.parent, list);
    }
    const out: PassStat[] = [];
    const open = this.openRegions();
    const walk = (parent: number | null) => {
      const list = [...(children.get(parent) ?? [])];
      // A sampled trace withholds busy time: its passes' cost is their (estimated) warp-time.
      if (this.order === 'cost') list.sort((a, b) => (b.busyNs ?? b.warpTimeNs) - (a.busyNs ?? a.warpTimeNs) || a.region - b.region);
      for (const p of list) {
        out.push(p);
        if (open.has(p.region)) walk(p.region);
      }
    };
    walk(null);
    return out;
  }

  /** The opened passes, and the selected pass's ancestors (so it shows). */
  private openRegions(): Set<number> {
    const open = new Set(this.expanded);
    const s = this.section;
    for (let r = s?.passes[this.selectedPass]?.parent ?? null; r !== null && s !== null; r = s.passes[r]?.parent ?? null) open.add(r);
    return open;
  }

  override render() {
    const s = this.section;
    if (s === null) return html`<p class="muted">The trace has no passes (regions): capture with the capture layer to get them.</p>`;
    const rows = this.rows;
    const open = this.openRegions();
    const hasChildren = new Set(s.passes.flatMap((p) => (p.parent === null ? [] : [p.parent])));
    const selected = s.passes[this.selectedPass];
    // The share bars are drawn against the costliest row, so small shares stay readable.
    const widest = rows.reduce((m, p) => Math.max(m, p.shareOfFrame ?? 0), s.outside.shareOfFrame ?? 0);
    return html`
      <wt-pass-icicle .trace=${this.trace} .section=${s} .draws=${this.draws} .focusRegion=${selected?.region ?? null} .selectedDraw=${this.selectedDraw}></wt-pass-icicle>
      <div class="tools">
        <span class="muted">${formatNumber(s.passes.length)} passes${selected !== undefined ? ' · the draws table and range summary show the selected one' : ''}</span>
        <button data-action="order" aria-pressed=${this.order === 'cost' ? 'true' : 'false'} @click=${() => (this.order = this.order === 'cost' ? 'frame' : 'cost')}>
          ${this.order === 'cost' ? 'Costliest first' : 'Frame order'}
        </button>
        ${selected !== undefined ? html`<button data-action="clear-pass" @click=${() => this.select(-1)}>Clear pass</button>` : nothing}
      </div>
      ${withheldNote(this.trace?.capture.sampling?.every, 'passes', "busy time and share of the frame need every warp (–); warp-times are estimates (≈), and cost order follows them")}
      <div class="table">
        <table data-table="passes">
          <colgroup><col /><col class="n" /><col class="t" /><col class="t" /><col class="t" /><col class="s" /></colgroup>
          <thead>
            <tr>
              <th>Pass</th><th class="num">Draws</th><th class="num" title="First warp start to last warp end">Span</th>
              <th class="num" title="Time some warp of the pass ran on some SM (overlapping draws count once)">Busy</th><th class="num" title="Summed warp durations">Warp-time</th>
              <th class="num" title="Busy time as a share of the frame">Frame</th>
            </tr>
          </thead>
          <tbody @keydown=${this.onKey}>
            ${rows.map((p) => this.renderRow(p.label, p.depth, p, p.region, hasChildren.has(p.region), open.has(p.region), widest))}
            ${s.outside.draws > 0 ? this.renderRow('(in no pass)', 0, s.outside, null, false, false, widest) : nothing}
          </tbody>
        </table>
      </div>
    `;
  }

  private renderRow(label: string, depth: number, c: PassCost, region: number | null, parent: boolean, open: boolean, widest: number) {
    const share = c.shareOfFrame ?? 0;
    return html`<tr
      class=${region === null ? '' : 'pass'}
      data-region=${region ?? 'none'}
      tabindex=${region === null ? nothing : '0'}
      aria-selected=${region !== null && region === this.selectedPass ? 'true' : 'false'}
      aria-expanded=${parent ? (open ? 'true' : 'false') : nothing}
      @click=${region === null ? nothing : () => this.select(region === this.selectedPass ? -1 : region)}
    >
      <td class="pass" style="padding-left:${depth * 12}px" title=${`${label}: ${formatNumber(c.draws)} draws, ${formatNumber(c.warps)} warps${c.untracedDraws > 0 ? `, ${formatNumber(c.untracedDraws)} untraced` : ''}`}>
        <span class="twisty" @click=${(e: Event) => this.flip(e, region, parent)}>${parent ? (open ? '▾' : '▸') : ''}</span>${label}
      </td>
      <td class="num">${formatNumber(c.draws)}</td>
      <td class="num">${formatNs(c.spanNs)}</td>
      <td class="num">${formatNs(c.busyNs)}</td>
      <td class="num">${approxMark(Object.keys(c.stageWarpTimeNs).some((st) => this.trace?.capture.sampling?.every[st as StageName] !== undefined))}${formatNs(c.warpTimeNs)}</td>
      <td class="num"><span class="bar" style="width:${widest > 0 ? Math.round((share / widest) * 16) : 0}px"></span>${formatShare(c.shareOfFrame, share < 0.1 ? 1 : 0)}</td>
    </tr>`;
  }

  private flip(e: Event, region: number | null, parent: boolean): void {
    if (region === null || !parent) return;
    e.stopPropagation();
    this.setOpen(region, !this.expanded.has(region));
  }

  private setOpen(region: number, open: boolean): void {
    const next = new Set(this.expanded);
    if (open) next.add(region);
    else next.delete(region);
    this.expanded = next;
  }

  private onKey = (e: KeyboardEvent): void => {
    const row = (e.target as HTMLElement).closest('tr.pass') as HTMLElement | null;
    const region = row === null ? NaN : Number(row.dataset['region']);
    if (!Number.isInteger(region)) return;
    if (e.key === 'Enter' || e.key === ' ') this.select(region === this.selectedPass ? -1 : region);
    else if (e.key === 'ArrowRight') this.setOpen(region, true);
    else if (e.key === 'ArrowLeft') this.setOpen(region, false);
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') (e.key === 'ArrowDown' ? row!.nextElementSibling : row!.previousElementSibling)?.closest<HTMLElement>('tr.pass')?.focus();
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  private select(region: number): void {
    this.dispatchEvent(new CustomEvent('wt-pass-select', { detail: { region }, bubbles: true, composed: true }));
  }
}

if (!customElements.get('wt-passes-panel')) customElements.define('wt-passes-panel', WtPassesPanel);

declare global {
  interface HTMLElementTagNameMap {
    'wt-passes-panel': WtPassesPanel;
  }
}
