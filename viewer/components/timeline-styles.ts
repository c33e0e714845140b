/** Styles of <wt-timeline>: the drawing surface, its two canvases, the scrollbar and the tooltip. */
import { css, unsafeCSS } from 'lit';

export const SCROLLBAR_PX = 12;

export const timelineStyles = css`
  :host {
    display: flex;
    position: relative;
    min-height: 200px;
    background: #15171c;
    outline: none;
  }
  .surface {
    position: relative;
    flex: 1;
    min-width: 0;
    overflow: hidden;
    cursor: default;
    touch-action: none;
  }
  .surface:focus-visible {
    box-shadow: inset 0 0 0 2px #7fb2ff;
  }
  canvas {
    position: absolute;
    left: 0;
    top: 0;
    display: block;
  }
  canvas.text {
    pointer-events: none;
  }
  .vscroll {
    width: ${unsafeCSS(SCROLLBAR_PX)}px;
    overflow-y: scroll;
    overflow-x: hidden;
    background: #1f232b;
    scrollbar-width: thin;
  }
  .tooltip {
    position: absolute;
    pointer-events: none;
    background: rgba(16, 18, 22, 0.95);
    color: #d8dbe2;
    border: 1px solid #3a3f4b;
    border-radius: 4px;
    padding: 4px 6px;
    font: 11px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    /* Lines stay lines, and a long label (an asset path without spaces) wraps within the tooltip. */
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    max-width: min(460px, calc(100% - 16px));
    box-sizing: border-box;
    z-index: 2;
  }
`;
