/**
 * Styles shared by the viewer's panels and the analysis panels: compact tables
 * on the viewer's dark theme.
 * Colors come from CSS custom properties (--wt-fg, --wt-muted, --wt-bg-2,
 * --wt-border, --wt-accent, --wt-good, --wt-bad) so the app shell can theme them.
 */
import { css } from 'lit';

export const panelStyles = css`
  :host {
    display: block;
    color: var(--wt-fg, #d8dbe2);
    font: 12px/1.4 system-ui, sans-serif;
  }
  h3 {
    margin: 8px 0 4px;
    font-size: 11px;
    font-weight: 600;
    color: var(--wt-muted, #8b909c);
  }
  table {
    border-collapse: collapse;
    width: 100%;
  }
  th,
  td {
    text-align: left;
    padding: 1px 8px 1px 0;
    white-space: nowrap;
    font-variant-numeric: tabular-nums;
  }
  th {
    color: var(--wt-muted, #8b909c);
    font-weight: normal;
  }
  .num {
    text-align: right;
  }
  .muted {
    color: var(--wt-muted, #8b909c);
  }
  .swatch {
    display: inline-block;
    width: 9px;
    height: 9px;
    border-radius: 2px;
    margin-right: 5px;
    vertical-align: -1px;
  }
  .warning {
    color: #ffcc66;
    margin: 4px 0;
  }
  .good {
    color: var(--wt-good, #7fd18b);
  }
  .bad {
    color: var(--wt-bad, #ff7b72);
  }
  button {
    font: inherit;
    color: inherit;
    background: var(--wt-bg-2, #2a2e37);
    border: 1px solid var(--wt-border, #3a3f4b);
    border-radius: 4px;
    padding: 2px 8px;
    cursor: pointer;
  }
  button:hover {
    background: #343945;
  }
  button[aria-pressed='true'] {
    border-color: var(--wt-accent, #7fb2ff);
  }
  button:focus-visible,
  [tabindex]:focus-visible {
    outline: 2px solid var(--wt-accent, #7fb2ff);
    outline-offset: 1px;
  }
  tr.clickable {
    cursor: pointer;
  }
  tr.clickable:hover,
  tr[aria-selected='true'] {
    background: var(--wt-bg-2, #2a2e37);
  }
`;
