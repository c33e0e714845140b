/** Styles of <wt-shader-panel>: its tools, the block table and the source view. */
import { css } from 'lit';

export const shaderPanelStyles = css`
  .scope {
    margin: 2px 0 4px;
    font-weight: 600;
    overflow-wrap: anywhere;
  }
  .tools {
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
    align-items: center;
    margin-bottom: 4px;
  }
  select {
    font: inherit;
    color: inherit;
    background: var(--wt-bg-2, #2a2e37);
    border: 1px solid var(--wt-border, #3a3f4b);
    border-radius: 4px;
    max-width: 100%;
  }
  .table-wrap {
    max-height: 320px;
    overflow: auto;
  }
  thead th {
    position: sticky;
    top: 0;
    background: var(--wt-bg-1, #1b1e24);
    cursor: pointer;
    user-select: none;
  }
  td.location {
    max-width: 12em;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .tag {
    font-size: 10px;
    padding: 0 4px;
    margin-right: 4px;
    border-radius: 3px;
    background: var(--wt-bg-2, #2a2e37);
    color: var(--wt-muted, #8b909c);
  }
  .disasm {
    margin-left: 6px;
    color: var(--wt-muted, #8b909c);
    font-family: ui-monospace, monospace;
    font-size: 11px;
  }
  /* The bar in a track of its own left of the number, so it never covers it. */
  .bar-track {
    display: inline-block;
    width: 28px;
    height: 8px;
    margin-right: 4px;
    vertical-align: 0;
    background: var(--wt-bg-2, #2a2e37);
    border-radius: 2px;
    overflow: hidden;
  }
  .bar-track .bar {
    display: block;
    height: 100%;
    background: rgb(255, 130, 60);
  }
  td.share .value {
    display: inline-block;
    min-width: 2.8em;
  }
  .source-caption {
    margin: 8px 0 2px;
    overflow-wrap: anywhere;
  }
  .source {
    max-height: 360px;
    overflow: auto;
    position: relative;
    font: 11px/16px ui-monospace, monospace;
    background: var(--wt-bg-1, #1b1e24);
    border: 1px solid var(--wt-border, #3a3f4b);
    border-radius: 4px;
  }
  .src-line {
    display: flex;
    white-space: pre;
    min-height: 16px;
  }
  .src-line[aria-current='true'] {
    background: rgba(127, 178, 255, 0.22);
    outline: 1px solid var(--wt-accent, #7fb2ff);
    outline-offset: -1px;
  }
  .heat {
    flex: 0 0 28px;
    position: relative;
  }
  .heat-bar {
    position: absolute;
    right: 0;
    top: 2px;
    bottom: 2px;
    background: rgb(255, 120, 50);
    border-radius: 2px;
  }
  .heat-share {
    flex: 0 0 4.2em;
    text-align: right;
    color: #ffb07a;
    padding-right: 4px;
  }
  .line-no {
    flex: 0 0 3.5em;
    text-align: right;
    color: var(--wt-muted, #8b909c);
    padding-right: 8px;
    user-select: none;
  }
  .code {
    tab-size: 4;
  }
`;
