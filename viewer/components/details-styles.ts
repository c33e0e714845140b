// The bottom detail columns (warp, range, time cursor): each stays inside its grid column;
// long labels and headings wrap instead of running into the next column.
import { css } from 'lit';

export const detailStyles = css`
  :host {
    display: block;
    min-width: 0;
    overflow-x: hidden;
  }
  h3,
  p,
  th,
  td {
    overflow-wrap: anywhere;
  }
  td:not(.num),
  th:not(.num) {
    white-space: normal;
  }
`;
