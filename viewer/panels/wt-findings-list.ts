/**
 * <wt-findings-list .findings=${summary.findings}>: what the detectors found,
 * costliest first, filterable by kind. Activating a finding (click, Enter or
 * Space) dispatches `wt-zoom-to` {startNs, endNs, sm?} and `wt-finding-select`
 * {finding}; both bubble and are composed. Shows, never computes.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { formatNs, formatShare, smLabel } from '../../analysis/format.js';
import type { Finding, FindingKind } from '../../analysis/summary.js';
import { panelStyles } from '../components/shared-styles.js';
import { zoomToEvent } from './zoom-event.js';

const KIND_LABELS: Record<FindingKind, string> = {
  sync: 'Sync',
  idle: 'Idle',
  leftover: 'Leftover',
  stall: 'Stall',
  'occupancy-cap': 'Occupancy cap',
};
const KINDS = Object.keys(KIND_LABELS) as FindingKind[];

export class WtFindingsList extends LitElement {
  static override properties = {
    findings: { attribute: false },
    selectedId: { attribute: false },
    hiddenKinds: { state: true },
  };

  static override styles = [
    panelStyles,
    css`
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
      }
      li {
        padding: 4px 6px;
        border-left: 3px solid transparent;
        cursor: pointer;
      }
      li:hover,
      li[aria-selected='true'] {
        background: var(--wt-bg-2, #2a2e37);
      }
      li[data-kind='sync'] {
        border-left-color: #7fb2ff;
      }
      li[data-kind='idle'] {
        border-left-color: #e3b341;
      }
      li[data-kind='leftover'] {
        border-left-color: #ff4eaa;
      }
      li[data-kind='stall'] {
        border-left-color: #ff7b72;
      }
      li[data-kind='occupancy-cap'] {
        border-left-color: #8b909c;
      }
      .title {
        display: block;
      }
      .meta {
        color: var(--wt-muted, #8b909c);
      }
      .filters {
        display: flex;
        gap: 4px;
        flex-wrap: wrap;
        margin-bottom: 4px;
      }
    `,
  ];

  declare findings: readonly Finding[];
  declare selectedId: string | null;
  /** Kinds the user switched off. */
  declare hiddenKinds: ReadonlySet<FindingKind>;

  constructor() {
    super();
    this.findings = [];
    this.selectedId = null;
    this.hiddenKinds = new Set();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('findings') && this.selectedId !== null && !this.findings.some((f) => f.id === this.selectedId)) this.selectedId = null;
  }

  override render() {
    const counts = new Map<FindingKind, number>();
    for (const f of this.findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
    const shown = this.findings.filter((f) => !this.hiddenKinds.has(f.kind));
    if (this.findings.length === 0) return html`<p class="muted">No findings at the current thresholds.</p>`;
    return html`
      <div class="filters" role="group" aria-label="Finding kinds">
        ${KINDS.filter((k) => counts.has(k)).map(
          (k) => html`<button aria-pressed=${this.hiddenKinds.has(k) ? 'false' : 'true'} data-kind=${k} @click=${() => this.toggle(k)}>
            ${KIND_LABELS[k]} ${counts.get(k)}
          </button>`,
        )}
      </div>
      <ul role="listbox" aria-label="Findings">
        ${shown.map(
          (f) => html`<li
            role="option"
            tabindex="0"
            data-id=${f.id}
            data-kind=${f.kind}
            aria-selected=${f.id === this.selectedId ? 'true' : 'false'}
            title=${f.detail}
            @click=${() => this.activate(f)}
            @keydown=${(e: KeyboardEvent) => this.onKey(e, f)}
          >
            <span class="title">${f.title}</span>
            <span class="meta">
              ${KIND_LABELS[f.kind]}${f.costNs > 0 ? html` · ${formatNs(f.costNs)} (${formatShare(f.shareOfFrame)} of frame)` : nothing}
              · at ${formatNs(f.startNs)}${f.sm !== null ? html` · ${smLabel(f.sm)}` : nothing}
              ${f.reliable ? nothing : html`<span class="warning"> · unreliable: SM clocks not aligned</span>`}
            </span>
          </li>`,
        )}
      </ul>
    `;
  }

  private toggle(kind: FindingKind): void {
    const next = new Set(this.hiddenKinds);
    if (next.has(kind)) next.delete(kind);
    else next.add(kind);
    this.hiddenKinds = next;
  }

  private onKey(event: KeyboardEvent, finding: Finding): void {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    this.activate(finding);
  }

  private activate(finding: Finding): void {
    this.selectedId = finding.id;
    this.dispatchEvent(zoomToEvent(finding.sm !== null ? { startNs: finding.startNs, endNs: finding.endNs, sm: finding.sm } : { startNs: finding.startNs, endNs: finding.endNs }));
    this.dispatchEvent(new CustomEvent('wt-finding-select', { detail: { finding }, bubbles: true, composed: true }));
  }
}

if (!customElements.get('wt-findings-list')) customElements.define('wt-findings-list', WtFindingsList);

declare global {
  interface HTMLElementTagNameMap {
    'wt-findings-list': WtFindingsList;
  }
}
