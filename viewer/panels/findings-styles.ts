// Styles of <wt-findings-list>: groups and members with a kind-coloured edge, the selected
// item's detail and remedy, the kind filters and the "more" buttons.
import { css } from 'lit';

export const findingsStyles = css`
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
      }
      li {
        padding: 4px 6px;
        border-left: 3px solid transparent;
        cursor: pointer;
      }
      li:hover,
      li[aria-selected='true'] {
        background: var(--wt-bg-2, #2a2e37);
      }
      li[data-kind='sync'] {
        border-left-color: #7fb2ff;
      }
      li[data-kind='idle'] {
        border-left-color: #e3b341;
      }
      li[data-kind='leftover'] {
        border-left-color: #ff4eaa;
      }
      li[data-kind='stall'] {
        border-left-color: #ff7b72;
      }
      li[data-kind='occupancy-cap'] {
        border-left-color: #8b909c;
      }
      .title {
        display: block;
      }
      .meta {
        color: var(--wt-muted, #8b909c);
      }
      li.group > .row {
        display: flex;
        gap: 4px;
        align-items: flex-start;
      }
      li.group > .row > .body {
        flex: 1;
      }
      ul.members {
        margin-left: 12px;
      }
      button.expand {
        min-width: 1.8em;
      }
      .more {
        margin-top: 4px;
      }
      .filters {
        display: flex;
        gap: 4px;
        flex-wrap: wrap;
        margin-bottom: 4px;
      }
      .detail {
    display: block;
    margin-top: 3px;
    overflow-wrap: anywhere;
  }
  .remedy {
    display: block;
    margin-top: 3px;
    padding-left: 6px;
    border-left: 2px solid var(--wt-good, #7fd18b);
    overflow-wrap: anywhere;
  }
  .remedy strong {
    color: var(--wt-good, #7fd18b);
    font-weight: 600;
  }
  .filters .spacer {
    flex: 1;
  }
  .applying {
    margin: 2px 0 4px;
  }
  wt-thresholds {
    margin: 4px 0 8px;
  }
  .title,
  .meta {
    overflow-wrap: anywhere;
  }
`;

export const moreMembersStyles = css`
  li.more-members-row {
    cursor: default;
    padding: 2px 6px;
  }
  li.more-members-row:hover {
    background: none;
  }
`;
