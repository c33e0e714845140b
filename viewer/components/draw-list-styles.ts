/** Styles of <wt-draw-list>: the search box, the virtualized rows, the pass tree. */
import { css } from 'lit';

export const ROW_PX = 22;
/** Indent per tree level, px. */
export const INDENT_PX = 12;

export const drawListStyles = css`
  :host {
    display: flex;
    flex-direction: column;
    min-height: 0;
  }
  .search {
    display: flex;
    flex-direction: column;
    gap: 2px;
    padding: 0 6px 4px;
  }
  .search input {
    background: #15171c;
    color: inherit;
    border: 1px solid #3a3f4b;
    border-radius: 3px;
    padding: 3px 5px;
    font: inherit;
  }
  .search .hint {
    color: #8b909c;
    font-size: 11px;
  }
  .search .bad {
    color: #ff8a80;
  }
  .list {
    flex: 1;
    overflow-y: auto;
    position: relative;
    outline: none;
  }
  .list:focus-visible {
    box-shadow: inset 0 0 0 2px #7fb2ff;
  }
  .row {
    position: absolute;
    left: 0;
    right: 0;
    height: ${ROW_PX}px;
    display: flex;
    gap: 6px;
    align-items: center;
    padding: 0 6px;
    box-sizing: border-box;
    cursor: pointer;
    white-space: nowrap;
    overflow: hidden;
  }
  .row:hover {
    background: #232730;
  }
  .row[aria-selected='true'] {
    background: #2c4a78;
  }
  .row.region {
    color: #c9b8ff;
  }
  .list:focus-visible .row.cursor {
    box-shadow: inset 0 0 0 1px #7fb2ff;
  }
  .twisty {
    width: 1em;
    text-align: center;
    color: #8b909c;
  }
  .idx {
    width: 3.5em;
    text-align: right;
    color: #8b909c;
    font-variant-numeric: tabular-nums;
  }
  .label {
    flex: 1;
    min-width: 4em;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .dur,
  .count {
    color: #8b909c;
    font-variant-numeric: tabular-nums;
  }
  .kind {
    width: 7px;
    height: 7px;
    border-radius: 50%;
    background: #66738d;
  }
  .kind.dispatch {
    background: #1490e1;
  }
  .kind.trace-rays {
    background: #ffd400;
  }
  h3 {
    padding: 6px 6px 0;
  }
`;
