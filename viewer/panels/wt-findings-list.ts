/**
 * <wt-findings-list .findings=${summary.findings} .groups=${summary.findingGroups}>:
 * what the detectors found, as groups of one kind and cause (costliest
 * first, filterable by kind). The first OPEN_GROUPS groups of several members
 * are expanded, the others collapsed (a button expands a group to its
 * members); groups below the threshold (`hidden`) stay behind "N more below
 * X of the frame". Activating a group or a member (click, Enter or Space)
 * dispatches `wt-zoom-to` {startNs, endNs, sm?}; activating a member also
 * `wt-finding-select` {finding}; both bubble and are composed. Without
 * `.groups` the findings are grouped here (groupFindings, default threshold).
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { groupFindings, groupMembers } from '../../analysis/finding-groups.js';
import { formatNs, formatShare, smLabel } from '../../analysis/format.js';
import type { Finding, FindingGroup, FindingKind } from '../../analysis/summary.js';
import { DEFAULT_THRESHOLDS } from '../../analysis/thresholds.js';
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
/** Groups of several members shown expanded until the user collapses them. */
const OPEN_GROUPS = 2;

export class WtFindingsList extends LitElement {
  static override properties = {
    findings: { attribute: false },
    selectedId: { attribute: false },
    groups: { attribute: false },
    minShare: { attribute: false },
    hiddenKinds: { state: true },
    toggled: { state: true },
    showSmall: { state: true },
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
      li.group > .row {
        display: flex;
        gap: 4px;
        align-items: flex-start;
      }
      li.group > .row > .body {
        flex: 1;
      }
      ul.members {
        margin-left: 12px;
      }
      button.expand {
        min-width: 1.8em;
      }
      .more {
        margin-top: 4px;
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
  /** The summary's findingGroups; null: grouped here from `findings`. */
  declare groups: readonly FindingGroup[] | null;
  /** The share below which groups are hidden, for the "N more below" line (the summary's thresholds.findingGroupMinShare). */
  declare minShare: number;
  /** Kinds the user switched off. */
  declare hiddenKinds: ReadonlySet<FindingKind>;
  /** Groups whose expansion the user flipped from the default. */
  declare toggled: ReadonlySet<string>;
  /** Whether the groups below minShare are shown. */
  declare showSmall: boolean;

  constructor() {
    super();
    this.findings = [];
    this.selectedId = null;
    this.groups = null;
    this.minShare = DEFAULT_THRESHOLDS.findingGroupMinShare;
    this.hiddenKinds = new Set();
    this.toggled = new Set();
    this.showSmall = false;
  }

  private allGroups(): readonly FindingGroup[] {
    return this.groups ?? groupFindings(this.findings, { minShare: this.minShare });
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('findings') && this.selectedId !== null && !this.findings.some((f) => f.id === this.selectedId) && !this.allGroups().some((g) => g.id === this.selectedId)) {
      this.selectedId = null;
    }
    if (changed.has('groups') || changed.has('findings')) this.toggled = new Set();
  }

  override render() {
    if (this.findings.length === 0) return html`<p class="muted">No findings at the current thresholds.</p>`;
    const groups = this.allGroups();
    const counts = new Map<FindingKind, number>();
    for (const f of this.findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
    const byKind = groups.filter((g) => !this.hiddenKinds.has(g.kind));
    const big = byKind.filter((g) => !g.hidden);
    const small = byKind.filter((g) => g.hidden);
    const shown = this.showSmall ? [...big, ...small] : big;
    const multi = groups.filter((g) => g.count > 1).slice(0, OPEN_GROUPS).map((g) => g.id);
    return html`
      <div class="filters" role="group" aria-label="Finding kinds">
        ${KINDS.filter((k) => counts.has(k)).map(
          (k) => html`<button aria-pressed=${this.hiddenKinds.has(k) ? 'false' : 'true'} data-kind=${k} @click=${() => this.toggle(k)}>
            ${KIND_LABELS[k]} ${counts.get(k)}
          </button>`,
        )}
      </div>
      <ul role="listbox" aria-label="Findings">
        ${shown.map((g) => this.renderGroup(g, multi.includes(g.id) !== this.toggled.has(g.id)))}
      </ul>
      ${small.length > 0
        ? html`<button class="more" aria-expanded=${this.showSmall ? 'true' : 'false'} @click=${() => (this.showSmall = !this.showSmall)}>
            ${this.showSmall ? `Hide the ${small.length} below ${formatShare(this.minShare)} of the frame` : `${small.length} more below ${formatShare(this.minShare)} of the frame`}
          </button>`
        : nothing}
    `;
  }

  private renderGroup(g: FindingGroup, open: boolean) {
    if (g.count === 1) {
      const only = groupMembers(g, this.findings)[0];
      if (only !== undefined) return this.renderFinding(only, g.hidden);
    }
    return html`<li
      role="option"
      class="group"
      tabindex="0"
      data-group=${g.id}
      data-kind=${g.kind}
      data-small=${g.hidden ? 'true' : 'false'}
      aria-selected=${g.id === this.selectedId ? 'true' : 'false'}
      aria-expanded=${open ? 'true' : 'false'}
      @click=${(e: Event) => this.activateGroup(e, g)}
      @keydown=${(e: KeyboardEvent) => this.onGroupKey(e, g)}
    >
      <div class="row">
        <button class="expand" aria-label=${open ? 'Collapse' : `Expand ${g.count}`} @click=${(e: Event) => this.flip(e, g)}>${open ? '−' : '+'}</button>
        <span class="body">
          <span class="title">${g.title}</span>
          <span class="meta">
            ${KIND_LABELS[g.kind]} · ${g.count} · ${g.totalNs > 0 ? html`${formatNs(g.totalNs)} (${formatShare(g.shareOfFrame)} of frame) · ` : nothing}${formatNs(g.startNs)} – ${formatNs(g.endNs)}
            ${g.reliable ? nothing : html`<span class="warning"> · unreliable: SM clocks not aligned</span>`}
          </span>
        </span>
      </div>
      ${open ? html`<ul class="members" role="group">${groupMembers(g, this.findings).map((f) => this.renderFinding(f, g.hidden))}</ul>` : nothing}
    </li>`;
  }

  private renderFinding(f: Finding, small: boolean) {
    return html`<li
      role="option"
      tabindex="0"
      data-id=${f.id}
      data-kind=${f.kind}
      data-small=${small ? 'true' : 'false'}
      aria-selected=${f.id === this.selectedId ? 'true' : 'false'}
      title=${f.detail}
      @click=${(e: Event) => this.activate(e, f)}
      @keydown=${(e: KeyboardEvent) => this.onKey(e, f)}
    >
      <span class="title">${f.title}</span>
      <span class="meta">
        ${KIND_LABELS[f.kind]}${f.costNs > 0 ? html` · ${formatNs(f.costNs)} (${formatShare(f.shareOfFrame)} of frame)` : nothing}
        · at ${formatNs(f.startNs)}${f.sm !== null ? html` · ${smLabel(f.sm)}` : nothing}
        ${f.reliable ? nothing : html`<span class="warning"> · unreliable: SM clocks not aligned</span>`}
      </span>
    </li>`;
  }

  private flip(event: Event, g: FindingGroup): void {
    event.stopPropagation();
    const next = new Set(this.toggled);
    if (next.has(g.id)) next.delete(g.id);
    else next.add(g.id);
    this.toggled = next;
  }

  private onGroupKey(event: KeyboardEvent, g: FindingGroup): void {
    if (event.target !== event.currentTarget || (event.key !== 'Enter' && event.key !== ' ')) return;
    event.preventDefault();
    this.activateGroup(event, g);
  }

  private activateGroup(event: Event, g: FindingGroup): void {
    event.stopPropagation();
    this.selectedId = g.id;
    this.dispatchEvent(zoomToEvent(g.sm !== null ? { startNs: g.startNs, endNs: g.endNs, sm: g.sm } : { startNs: g.startNs, endNs: g.endNs }));
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
    this.activate(event, finding);
  }

  private activate(event: Event, finding: Finding): void {
    event.stopPropagation();
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
