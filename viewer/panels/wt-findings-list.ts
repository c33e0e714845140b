/**
 * <wt-findings-list .findings=${summary.findings} .groups=${summary.findingGroups}>:
 * what the detectors found, as groups of one kind and cause (costliest
 * first, filterable by kind), so the findings never bury the panels below
 * them: the first SHOWN_GROUPS groups are listed and the rest behind "N more
 * groups"; the first OPEN_GROUPS group of several members is expanded to its
 * first SHOWN_MEMBERS members ("Show all N" lists the rest), the others are
 * collapsed (a button expands a group); groups below the threshold (`hidden`)
 * stay behind "N more below X of the frame". The selected group or finding
 * shows its detail and what to do about it (analysis/remedies.ts). Activating a group or a member (click, Enter or Space)
 * dispatches `wt-zoom-to` {startNs, endNs, sm?}; activating a member also
 * `wt-finding-select` {finding}; both bubble and are composed. Without
 * `.groups` the findings are grouped here (groupFindings, default threshold).
 */
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { groupFindings, groupMembers } from '../../analysis/finding-groups.js';
import { formatNs, formatShare, smLabel } from '../../analysis/format.js';
import type { Finding, FindingGroup, FindingKind } from '../../analysis/summary.js';
import { DEFAULT_THRESHOLDS } from '../../analysis/thresholds.js';
import { panelStyles } from '../components/shared-styles.js';
import { findingsStyles, moreMembersStyles } from './findings-styles.js';
import { zoomToEvent } from './zoom-event.js';
import { withheldNote, type SampledEvery } from './sampling-note.js';

const KIND_LABELS: Record<FindingKind, string> = {
  sync: 'Sync',
  idle: 'Idle',
  leftover: 'Leftover',
  stall: 'Stall',
  'occupancy-cap': 'Occupancy cap',
};
const KINDS = Object.keys(KIND_LABELS) as FindingKind[];
/** Groups of several members shown expanded until the user collapses them. */
export const OPEN_GROUPS = 1;
/** Groups listed before "N more groups". */
export const SHOWN_GROUPS = 3;
/** Members listed in an expanded group before "Show all N". */
export const SHOWN_MEMBERS = 2;

export class WtFindingsList extends LitElement {
  static override properties = {
    findings: { attribute: false },
    selectedId: { attribute: false },
    groups: { attribute: false },
    minShare: { attribute: false },
    sampled: { attribute: false },
    hiddenKinds: { state: true },
    toggled: { state: true },
    showSmall: { state: true },
    showAllGroups: { state: true },
    allMembers: { state: true },
  };

  static override styles = [panelStyles, findingsStyles, moreMembersStyles];

  declare findings: readonly Finding[];
  declare selectedId: string | null;
  /** The summary's findingGroups; null: grouped here from `findings`. */
  declare groups: readonly FindingGroup[] | null;
  /** The share below which groups are hidden, for the "N more below" line (the summary's thresholds.findingGroupMinShare). */
  declare minShare: number;
  /** A sampled trace's rates (summary.sampling.every): its gap and occupancy detectors are withheld, which the list says. */
  declare sampled: SampledEvery;
  /** Kinds the user switched off. */
  declare hiddenKinds: ReadonlySet<FindingKind>;
  /** Groups whose expansion the user flipped from the default. */
  declare toggled: ReadonlySet<string>;
  /** Whether the groups below minShare are shown. */
  declare showSmall: boolean;
  /** Whether every group above minShare is listed (else the first SHOWN_GROUPS). */
  declare showAllGroups: boolean;
  /** Groups whose every member is listed (else the first SHOWN_MEMBERS). */
  declare allMembers: ReadonlySet<string>;

  constructor() {
    super();
    this.findings = [];
    this.selectedId = null;
    this.groups = null;
    this.minShare = DEFAULT_THRESHOLDS.findingGroupMinShare;
    this.sampled = undefined;
    this.hiddenKinds = new Set();
    this.toggled = new Set();
    this.showSmall = false;
    this.showAllGroups = false;
    this.allMembers = new Set();
  }

  private allGroups(): readonly FindingGroup[] {
    return this.groups ?? groupFindings(this.findings, { minShare: this.minShare });
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('findings') && this.selectedId !== null && !this.findings.some((f) => f.id === this.selectedId) && !this.allGroups().some((g) => g.id === this.selectedId)) {
      this.selectedId = null;
    }
    if (changed.has('groups') || changed.has('findings')) {
      this.toggled = new Set();
      this.allMembers = new Set();
    }
  }

  override render() {
    const note = withheldNote(this.sampled, 'findings', 'syncs, idle windows, leftovers, stalls and occupancy caps of sampled stages need every warp, so none is looked for');
    if (this.findings.length === 0) return html`${note}<p class="muted">No findings at the current thresholds${this.sampled != null ? ' among those looked for' : ''}.</p>`;
    const groups = this.allGroups();
    const counts = new Map<FindingKind, number>();
    for (const f of this.findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
    const byKind = groups.filter((g) => !this.hiddenKinds.has(g.kind));
    const big = byKind.filter((g) => !g.hidden);
    const small = byKind.filter((g) => g.hidden);
    const listed = this.showAllGroups ? big : big.slice(0, SHOWN_GROUPS);
    const shown = this.showSmall ? [...listed, ...small] : listed;
    const moreGroups = big.length - listed.length;
    const moreFindings = big.slice(listed.length).reduce((n, g) => n + g.count, 0);
    const multi = groups.filter((g) => g.count > 1).slice(0, OPEN_GROUPS).map((g) => g.id);
    return html`
      ${note}
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
      ${moreGroups > 0 || this.showAllGroups
        ? html`<button class="more more-groups" aria-expanded=${this.showAllGroups ? 'true' : 'false'} @click=${() => (this.showAllGroups = !this.showAllGroups)}>
            ${this.showAllGroups ? `Show the first ${SHOWN_GROUPS} groups only` : `${moreGroups} more group${moreGroups === 1 ? '' : 's'} (${moreFindings} finding${moreFindings === 1 ? '' : 's'})`}
          </button>`
        : nothing}
      ${small.length > 0
        ? html`<button class="more more-small" aria-expanded=${this.showSmall ? 'true' : 'false'} @click=${() => (this.showSmall = !this.showSmall)}>
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
          ${g.id === this.selectedId ? remedyLine(g.remedy) : nothing}
        </span>
      </div>
      ${open ? this.renderMembers(g) : nothing}
    </li>`;
  }

  /** The members of an open group: the first SHOWN_MEMBERS, or all of them once asked. */
  private renderMembers(g: FindingGroup) {
    const members = groupMembers(g, this.findings);
    const all = this.allMembers.has(g.id);
    const listed = all ? members : members.slice(0, SHOWN_MEMBERS);
    const rest = members.length - listed.length;
    return html`<ul class="members" role="group">
      ${listed.map((f) => this.renderFinding(f, g.hidden))}
      ${rest > 0 || (all && members.length > SHOWN_MEMBERS)
        ? html`<li class="more-members-row"><button class="more more-members" @click=${(e: Event) => this.flipMembers(e, g)}>${all ? `Show the first ${SHOWN_MEMBERS} only` : `Show all ${members.length} (${rest} more)`}</button></li>`
        : nothing}
    </ul>`;
  }

  private flipMembers(event: Event, g: FindingGroup): void {
    event.stopPropagation();
    const next = new Set(this.allMembers);
    if (!next.delete(g.id)) next.add(g.id);
    this.allMembers = next;
  }

  private renderFinding(f: Finding, small: boolean) {
    return html`<li
      role="option"
      tabindex="0"
      data-id=${f.id}
      data-kind=${f.kind}
      data-small=${small ? 'true' : 'false'}
      aria-selected=${f.id === this.selectedId ? 'true' : 'false'}
      title=${f.remedy === null ? f.detail : `${f.detail}\n\nWhat to do: ${f.remedy}`}
      @click=${(e: Event) => this.activate(e, f)}
      @keydown=${(e: KeyboardEvent) => this.onKey(e, f)}
    >
      <span class="title">${f.title}</span>
      <span class="meta">
        ${KIND_LABELS[f.kind]}${f.costNs > 0 ? html` · ${formatNs(f.costNs)} (${formatShare(f.shareOfFrame)} of frame)` : nothing}
        · at ${formatNs(f.startNs)}${f.sm !== null ? html` · ${smLabel(f.sm)}` : nothing}
        ${f.reliable ? nothing : html`<span class="warning"> · unreliable: SM clocks not aligned</span>`}
      </span>
      ${f.id === this.selectedId ? html`<span class="detail">${f.detail}</span>${remedyLine(f.remedy)}` : nothing}
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

/** "What to do: …" under the selected item (nothing for a summary stored before remedies). */
function remedyLine(remedy: string | null) {
  return remedy === null ? nothing : html`<span class="remedy"><strong>What to do:</strong> ${remedy}</span>`;
}

if (!customElements.get('wt-findings-list')) customElements.define('wt-findings-list', WtFindingsList);

declare global {
  interface HTMLElementTagNameMap {
    'wt-findings-list': WtFindingsList;
  }
}
