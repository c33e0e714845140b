/** The event panels send to move the timeline: bubbles and crosses shadow roots. */
export interface ZoomToDetail {
  readonly startNs: number;
  readonly endNs: number;
  /** SM to scroll into view, when the target is about one SM. */
  readonly sm?: number;
}

export const ZOOM_TO_EVENT = 'wt-zoom-to';

export function zoomToEvent(detail: ZoomToDetail): CustomEvent<ZoomToDetail> {
  return new CustomEvent<ZoomToDetail>(ZOOM_TO_EVENT, { detail, bubbles: true, composed: true });
}

declare global {
  interface HTMLElementEventMap {
    'wt-zoom-to': CustomEvent<ZoomToDetail>;
  }
}
