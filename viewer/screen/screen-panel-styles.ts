/** Styles of <wt-screen-panel>: a fixed-width column beside the timeline, the image fitted and crisp. */
import { css } from 'lit';

export const screenPanelStyles = css`
  :host {
    display: flex;
    flex-direction: column;
    gap: 6px;
    width: 340px;
    min-height: 0;
    padding: 6px 8px;
    box-sizing: border-box;
    border-left: 1px solid #2a2e37;
    background: #15171c;
  }
  :host([hidden]) {
    display: none;
  }
  .row {
    display: flex;
    align-items: center;
    gap: 6px;
    flex-wrap: wrap;
  }
  h3 {
    margin: 0;
    flex: 1;
  }
  select {
    max-width: 100%;
    background: #1f232b;
    color: inherit;
    border: 1px solid #2a2e37;
    font: inherit;
  }
  /* The draw selector takes its own line; the target checkbox wraps under it. */
  select.draw {
    flex: 1 1 100%;
    min-width: 0;
  }
  .view {
    position: relative;
    flex: 1;
    min-height: 80px;
    display: flex;
    align-items: center;
    justify-content: center;
    overflow: hidden;
  }
  canvas.image {
    image-rendering: pixelated;
    cursor: crosshair;
    touch-action: none;
    background: #606060;
  }
  .brush {
    position: absolute;
    border: 1px solid #fff;
    box-shadow: 0 0 0 1px #000;
    pointer-events: none;
  }
  .legend {
    display: grid;
    grid-template-columns: auto 1fr auto;
    align-items: center;
    gap: 2px 6px;
  }
  canvas.ramp {
    width: 100%;
    height: 10px;
    image-rendering: pixelated;
  }
  .legend .caption {
    grid-column: 1 / 4;
  }
  .none {
    display: inline-block;
    width: 9px;
    height: 9px;
    background: rgb(96, 96, 96);
    vertical-align: -1px;
  }
  input[type='range'] {
    flex: 1;
    min-width: 0;
  }
  .brush-info {
    min-height: 22px;
  }
  .time {
    font-variant-numeric: tabular-nums;
  }
  canvas.image[hidden] {
    display: none;
  }
  /* What a picture cannot say: mixed launch sizes, lower bounds, dropped events; footprints their lanes fill little of. */
  .note {
    color: #e0c070;
    font-size: 12px;
  }
  table.ray-totals {
    border-collapse: collapse;
    font-variant-numeric: tabular-nums;
  }
  table.ray-totals th {
    text-align: left;
    font-weight: normal;
    padding-right: 12px;
  }
  table.ray-totals td {
    text-align: right;
  }
`;
