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
  td {
    overflow-wrap: anywhere;
  }
  /* Headers wrap between words only ("duration" never as "duratio/n"): the cells beside them give way. */
  th {
    overflow-wrap: normal;
    word-break: normal;
  }
  td:not(.num),
  th:not(.num) {
    white-space: normal;
  }
`;
