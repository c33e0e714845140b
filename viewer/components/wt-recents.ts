/** <wt-recents>: recently opened traces (from IndexedDB), to reopen or delete. */
import { LitElement, css, html } from 'lit';
import { readRecent, type RecentTrace } from '../loading/recents-store.js';
import { panelStyles } from './shared-styles.js';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export class WtRecents extends LitElement {
  static override properties = { recents: { attribute: false } };
  declare recents: readonly RecentTrace[];
  static override styles = [
    panelStyles,
    css`
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
      }
      li {
        display: flex;
        gap: 8px;
        align-items: center;
        padding: 3px 0;
        border-bottom: 1px solid #2a2e37;
      }
      .open {
        flex: 1;
        text-align: left;
        background: none;
        border: none;
        padding: 2px 0;
      }
      .name {
        font-weight: 600;
      }
    `,
  ];

  constructor() {
    super();
    this.recents = [];
  }

  override render() {
    // Whatever it is handed, malformed entries are left out rather than breaking the whole list.
    const recents = Array.isArray(this.recents) ? this.recents.map(readRecent).filter((r) => r !== null) : [];
    if (recents.length === 0) return html`<p class="muted">No recent traces yet.</p>`;
    return html`<ul>
      ${recents.map(
        (r) => html`<li>
          <button class="open" @click=${() => this.fire('wt-recent-open', r.id)} title="Reopen ${r.name}">
            <span class="name">${r.name}</span><br />
            <span class="muted">${formatBytes(r.size)} · ${r.warps.toLocaleString('en-US')} warps · ${r.device} · ${new Date(r.openedAt).toLocaleString()}${r.source === 'url' ? ' · from URL' : ''}</span>
          </button>
          <button class="delete" @click=${() => this.fire('wt-recent-delete', r.id)} aria-label="Delete ${r.name} from recent traces">Delete</button>
        </li>`,
      )}
    </ul>`;
  }

  private fire(type: string, id: string): void {
    this.dispatchEvent(new CustomEvent(type, { detail: { id }, bubbles: true, composed: true }));
  }
}

customElements.define('wt-recents', WtRecents);
declare global {
  interface HTMLElementTagNameMap {
    'wt-recents': WtRecents;
  }
}
