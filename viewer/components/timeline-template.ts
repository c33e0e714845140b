/** The DOM of <wt-timeline>: the focusable surface with its two canvases and tooltip, and the lanes' scrollbar. */
import { html, nothing, type TemplateResult } from 'lit';
import type { Tooltip } from './timeline-hover.js';
import type { TimelineKeys } from './timeline-keys.js';
import type { TimelinePointer } from './timeline-pointer.js';

/** The tooltip sits this far below and right of the pointer. */
const TOOLTIP_OFFSET_PX = 14;

export interface TemplateParts {
  /** The pointer handler, made after the first render (read when an event comes). */
  readonly pointer: () => TimelinePointer | null;
  readonly keys: TimelineKeys;
  readonly tooltip: Tooltip | null;
  readonly onScrollbar: (e: Event) => void;
}

export function timelineTemplate({ pointer, keys, tooltip: tip, onScrollbar }: TemplateParts): TemplateResult {
  return html`
    <div
      class="surface"
      tabindex="0"
      role="application"
      aria-roledescription="warp timeline"
      aria-label="Warp timeline. W and S zoom, A and D pan, up and down move between SM lanes, Enter expands a lane, comma and period step through its warps, brackets step through draws, F fits the selection, 0 shows everything, C places the time cursor, Escape clears."
      @pointerdown=${(e: PointerEvent) => pointer()?.onPointerDown(e)}
      @pointermove=${(e: PointerEvent) => pointer()?.onPointerMove(e)}
      @pointerup=${(e: PointerEvent) => pointer()?.onPointerUp(e)}
      @pointercancel=${(e: PointerEvent) => pointer()?.onPointerUp(e)}
      @pointerleave=${() => pointer()?.onPointerLeave()}
      @dblclick=${(e: MouseEvent) => pointer()?.onDoubleClick(e)}
      @keydown=${keys.onKeyDown}
      @keyup=${keys.onKeyUp}
      @blur=${keys.onBlur}
    >
      <canvas class="gl"></canvas>
      <canvas class="text"></canvas>
      ${tip === null
        ? nothing
        : html`<div class="tooltip" style="left:${tip.x + TOOLTIP_OFFSET_PX}px;top:${tip.y + TOOLTIP_OFFSET_PX}px">${tip.lines.join('\n')}</div>`}
    </div>
    <div class="vscroll" @scroll=${onScrollbar} aria-hidden="true"><div class="spacer"></div></div>
  `;
}
