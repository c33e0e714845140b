/**
 * <wt-thresholds .thresholds=${summary.thresholds}>: the detector thresholds
 * as a form (analysis/thresholds.ts: every name, unit, default and reason).
 * Apply checks the values as the CLI's --threshold does and dispatches
 * `wt-thresholds-change` {overrides} (bubbles, composed: the analysis panels
 * keep them and analyze again); Reset goes back to the defaults. A value
 * that differs from its default is marked, with the default beside it.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { DEFAULT_THRESHOLDS, THRESHOLD_DOCS, ThresholdError, resolveThresholds, type Thresholds } from '../../analysis/thresholds.js';
import { formatNumber } from '../../analysis/format.js';
import { panelStyles } from '../components/shared-styles.js';
import type { ThresholdOverrides } from '../loading/threshold-store.js';

export class WtThresholds extends LitElement {
  static override properties = {
    thresholds: { attribute: false },
    draft: { state: true },
    problem: { state: true },
  };

  static override styles = [
    panelStyles,
    css`
      form {
        display: grid;
        grid-template-columns: minmax(0, 1fr) 7em auto;
        gap: 2px 6px;
        align-items: center;
      }
      label {
        overflow-wrap: anywhere;
      }
      label.changed::before {
        content: '• ';
        color: var(--wt-accent, #7fb2ff);
      }
      input {
        width: 100%;
        box-sizing: border-box;
        font: inherit;
        color: inherit;
        background: var(--wt-bg-2, #2a2e37);
        border: 1px solid var(--wt-border, #3a3f4b);
        border-radius: 3px;
        padding: 1px 4px;
        text-align: right;
      }
      .unit {
        color: var(--wt-muted, #8b909c);
        white-space: nowrap;
      }
      .actions {
        grid-column: 1 / -1;
        display: flex;
        gap: 6px;
        margin-top: 4px;
        flex-wrap: wrap;
      }
    `,
  ];

  /** The thresholds the shown findings were made with. */
  declare thresholds: Thresholds;
  /** The text in each field. */
  declare draft: Readonly<Record<string, string>>;
  declare problem: string | null;

  constructor() {
    super();
    this.thresholds = DEFAULT_THRESHOLDS;
    this.draft = {};
    this.problem = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('thresholds')) {
      this.draft = Object.fromEntries(THRESHOLD_DOCS.map((d) => [d.name, String(this.thresholds[d.name])]));
      this.problem = null;
    }
  }

  override render() {
    return html`<form @submit=${this.apply} aria-label="Detector thresholds">
      ${THRESHOLD_DOCS.map((d) => {
        const changed = this.thresholds[d.name] !== d.defaultValue;
        return html`<label class=${changed ? 'changed' : ''} for="t-${d.name}" title=${d.description}>${d.name}</label>
          <input
            id="t-${d.name}"
            name=${d.name}
            type="number"
            min="0"
            step="any"
            .value=${this.draft[d.name] ?? ''}
            @input=${(e: Event) => (this.draft = { ...this.draft, [d.name]: (e.target as HTMLInputElement).value })}
          />
          <span class="unit" title="default ${formatNumber(d.defaultValue, 3)}">${d.unit}${changed ? ` (default ${formatNumber(d.defaultValue, 3)})` : ''}</span>`;
      })}
      <div class="actions">
        <button type="submit" data-action="apply">Apply</button>
        <button type="button" data-action="reset" @click=${this.reset}>Reset to defaults</button>
        ${this.problem !== null ? html`<span class="bad" role="alert">${this.problem}</span>` : nothing}
      </div>
    </form>`;
  }

  /** The draft as overrides (only values that differ from the defaults), or a problem naming the field. */
  private overrides(): ThresholdOverrides | string {
    const values: Record<string, number> = {};
    for (const d of THRESHOLD_DOCS) {
      const text = (this.draft[d.name] ?? '').trim();
      const value = text === '' ? NaN : Number(text);
      if (!Number.isFinite(value)) return `${d.name}: "${text}" is not a number`;
      if (value !== d.defaultValue) values[d.name] = value;
    }
    try {
      resolveThresholds(values);
    } catch (e) {
      if (e instanceof ThresholdError) return e.message;
      throw e;
    }
    return values;
  }

  private apply = (e: Event): void => {
    e.preventDefault();
    const overrides = this.overrides();
    if (typeof overrides === 'string') {
      this.problem = overrides;
      return;
    }
    this.problem = null;
    this.dispatchEvent(new CustomEvent('wt-thresholds-change', { detail: { overrides }, bubbles: true, composed: true }));
  };

  private reset = (): void => {
    this.draft = Object.fromEntries(THRESHOLD_DOCS.map((d) => [d.name, String(d.defaultValue)]));
    this.problem = null;
    this.dispatchEvent(new CustomEvent('wt-thresholds-change', { detail: { overrides: {} }, bubbles: true, composed: true }));
  };
}

if (!customElements.get('wt-thresholds')) customElements.define('wt-thresholds', WtThresholds);

declare global {
  interface HTMLElementTagNameMap {
    'wt-thresholds': WtThresholds;
  }
  interface HTMLElementEventMap {
    'wt-thresholds-change': CustomEvent<{ overrides: ThresholdOverrides }>;
  }
}
