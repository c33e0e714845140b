/** Layout and chrome of <warptrace-app>. */
import { css } from 'lit';

export const appStyles = css`
  :host {
    display: flex;
    flex-direction: column;
    height: 100%;
    min-height: 0;
    background: #15171c;
    color: #d8dbe2;
    font: 13px/1.4 system-ui, sans-serif;
    position: relative;
  }
  header {
    position: relative;
    display: flex;
    align-items: center;
    gap: 8px;
    padding: 6px 10px;
    background: #1f232b;
    border-bottom: 1px solid #2a2e37;
    flex-wrap: wrap;
  }
  .brand {
    font-weight: 700;
    letter-spacing: 0.02em;
    margin-right: 6px;
  }
  /* The title takes the row's room left over (clipped when there is less): with its basis, not its text's width,
     counted when the row wraps, a long name or device does not push the controls onto a second row. */
  .title {
    flex: 1 1 240px;
    display: inline-flex;
    gap: 8px;
    align-items: baseline;
    min-width: 0;
    overflow: hidden;
    white-space: nowrap;
  }
  .muted {
    color: #8b909c;
  }
  .dropped {
    font-size: 11px;
    padding: 0 6px;
    border-radius: 8px;
    background: #26302a;
    color: #9fd3a8;
  }
  .dropped.warn {
    background: #3a2a1c;
    color: #ffb36b;
  }
  /* Beside the title, not in it: the title clips its end on a narrow header, the badge stays. */
  .sampled {
    flex: none;
    font-size: 11px;
    padding: 0 6px;
    border-radius: 8px;
    background: #2c2540;
    color: #c9b6ff;
  }
  button,
  select {
    font: inherit;
    color: inherit;
    background: #2a2e37;
    border: 1px solid #3a3f4b;
    border-radius: 4px;
    padding: 3px 10px;
    cursor: pointer;
  }
  /* A select is as wide as its longest option: the samples' titles would take the header's row. It shows "Samples…". */
  .samples {
    max-width: 180px;
  }
  button:hover {
    background: #343945;
  }
  button:focus-visible,
  select:focus-visible,
  summary:focus-visible {
    outline: 2px solid #7fb2ff;
    outline-offset: 1px;
  }
  .chips {
    display: inline-flex;
    gap: 4px;
  }
  .chip {
    padding: 1px 7px;
    font-size: 12px;
  }
  .chip.off {
    opacity: 0.4;
    text-decoration: line-through;
  }
  .swatch {
    display: inline-block;
    width: 9px;
    height: 9px;
    border-radius: 2px;
    margin-right: 5px;
  }
  .toggle {
    display: inline-flex;
    gap: 4px;
    align-items: center;
    white-space: nowrap;
  }
  /* The popover hangs from the header's right edge, wherever the button wraps to. */
  .help {
    position: static;
  }
  .help summary {
    list-style: none;
    cursor: pointer;
    width: 22px;
    height: 22px;
    border-radius: 50%;
    background: #2a2e37;
    border: 1px solid #3a3f4b;
    text-align: center;
    line-height: 22px;
  }
  .help-body {
    position: absolute;
    right: 10px;
    top: calc(100% + 4px);
    max-width: calc(100% - 20px);
    max-height: 75vh;
    overflow: auto;
    box-sizing: border-box;
    z-index: 10;
    background: #1f232b;
    border: 1px solid #3a3f4b;
    border-radius: 6px;
    padding: 8px 10px;
    white-space: nowrap;
    box-shadow: 0 6px 24px rgba(0, 0, 0, 0.5);
  }
  .help-body th {
    text-align: left;
    padding-right: 12px;
    color: #8b909c;
    font-weight: normal;
  }
  .recents-popover {
    position: absolute;
    top: 40px;
    left: 10px;
    z-index: 10;
    width: min(560px, 90vw);
    max-height: 60vh;
    overflow: auto;
    background: #1f232b;
    border: 1px solid #3a3f4b;
    border-radius: 6px;
    padding: 8px 12px;
    box-shadow: 0 6px 24px rgba(0, 0, 0, 0.5);
  }
  .progress,
  .banner,
  .sm-summary {
    display: flex;
    align-items: center;
    gap: 10px;
    padding: 4px 10px;
    border-bottom: 1px solid #2a2e37;
  }
  /* Over the top of the view, not above it: the timeline keeps its size while a trace loads. */
  main > .progress {
    position: absolute;
    top: 0;
    left: 0;
    right: 0;
    z-index: 8;
    background: #1f232b;
    box-shadow: 0 4px 12px rgba(0, 0, 0, 0.4);
  }
  .progress progress {
    flex: 1;
    max-width: 400px;
  }
  .banner.error {
    background: #3d1f24;
    color: #ffc2c9;
  }
  .banner.notice {
    background: #3a321c;
    color: #ffe2a8;
  }
  .banner button {
    margin-left: auto;
    padding: 0 8px;
  }
  /* One height with or without its button, and for the placeholder shown while the first
     trace loads: the timeline below keeps its size when the trace arrives. */
  .sm-summary {
    font-size: 12px;
    line-height: 18px;
    min-height: 27px;
    box-sizing: border-box;
    background: #191c22;
  }
  .sm-summary button {
    padding: 0 8px;
    line-height: 16px;
  }
  /* A long Color by legend goes to a line of its own rather than squeezing the SM line's words. */
  .sm-summary {
    flex-wrap: wrap;
    row-gap: 2px;
  }
  .sm-summary > :not(.legend) {
    white-space: nowrap;
  }
  main {
    flex: 1;
    min-height: 0;
    display: grid;
  }
  .draws {
    border-right: 1px solid #2a2e37;
    min-height: 0;
  }
  .center {
    display: flex;
    flex-direction: column;
    min-width: 0;
    min-height: 0;
  }
  /* The timeline and, when something is slotted there, a panel beside it (its own width). */
  .timeline-row {
    flex: 1;
    min-height: 0;
    display: flex;
  }
  wt-timeline {
    flex: 1;
    min-width: 0;
    min-height: 0;
  }
  .timeline-row:not(.with-beside) > .beside-timeline {
    display: none;
  }
  .beside-timeline {
    display: flex;
    min-height: 0;
    border-left: 1px solid #2a2e37;
  }
  .details {
    display: grid;
    grid-template-columns: repeat(3, minmax(0, 1fr));
    gap: 16px;
    padding: 8px 12px;
    border-top: 1px solid #2a2e37;
    background: #191c22;
    /* Shorter in a short window (173 px at 720 px), so the timeline keeps its height. */
    height: clamp(120px, 24vh, 230px);
    overflow: auto;
    position: relative;
  }
  aside.panels {
    overflow: auto;
    min-height: 0;
    border-left: 1px solid #2a2e37;
  }
  main:not(.with-panels) aside.panels {
    border: none;
  }
  .empty {
    grid-column: 1 / 3;
    padding: 40px;
    max-width: 720px;
  }
  .empty h3 {
    margin-top: 28px;
    color: #8b909c;
    font-size: 12px;
    text-transform: uppercase;
  }
  code {
    background: #2a2e37;
    padding: 0 4px;
    border-radius: 3px;
  }
  .drop-overlay {
    position: absolute;
    inset: 0;
    z-index: 20;
    display: flex;
    align-items: center;
    justify-content: center;
    font-size: 20px;
    background: rgba(20, 40, 80, 0.55);
    border: 3px dashed #7fb2ff;
    pointer-events: none;
  }
`;
