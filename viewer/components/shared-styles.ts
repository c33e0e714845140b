/** Styles shared by the viewer's panels (dark theme, compact tables). */
import { css } from 'lit';

export const panelStyles = css`
  :host {
    display: block;
    color: #d8dbe2;
    font: 12px/1.4 system-ui, sans-serif;
  }
  h3 {
    margin: 0 0 6px;
    font-size: 11px;
    font-weight: 600;
    color: #8b909c;
  }
  table {
    border-collapse: collapse;
    width: 100%;
  }
  th,
  td {
    text-align: left;
    padding: 1px 6px 1px 0;
    white-space: nowrap;
    font-variant-numeric: tabular-nums;
  }
  th {
    color: #8b909c;
    font-weight: normal;
  }
  td.num {
    text-align: right;
  }
  .swatch {
    display: inline-block;
    width: 9px;
    height: 9px;
    border-radius: 2px;
    margin-right: 5px;
    vertical-align: -1px;
  }
  .muted {
    color: #8b909c;
  }
  button {
    font: inherit;
    color: inherit;
    background: #2a2e37;
    border: 1px solid #3a3f4b;
    border-radius: 4px;
    padding: 2px 8px;
    cursor: pointer;
  }
  button:hover {
    background: #343945;
  }
  button:focus-visible {
    outline: 2px solid #7fb2ff;
    outline-offset: 1px;
  }
`;
