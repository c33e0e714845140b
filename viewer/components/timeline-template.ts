/**
 * The DOM of <wt-timeline>: the focusable surface with its two canvases and
 * tooltip (anchored at the pointer, data-x/data-y; placed by placeTooltipIn
 * once its size is known), and the lanes' scrollbar.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { placeTooltip } from '../model/tooltip-placement.js';
import type { Tooltip } from './timeline-hover.js';
import type { TimelineKeys } from './timeline-keys.js';
import type { TimelinePointer } from './timeline-pointer.js';

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
      aria-label="Warp timeline. W and S zoom, A and D pan, up and down move between SM lanes, Enter expands a lane, comma and period step through its warps, brackets step through draws, F fits the selection, 0 shows everything, C places the time cursor, Shift with left and right arrows grows or shrinks the time range from the cursor, M makes the selected warp or draw the time range, G shows or hides the baseline's ghost track, Escape clears."
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
        : html`<div class="tooltip" data-x=${tip.x} data-y=${tip.y}>${tip.lines.join('\n')}</div>`}
    </div>
    <div class="vscroll" @scroll=${onScrollbar} aria-hidden="true"><div class="spacer"></div></div>
  `;
}

/** Positions the rendered tooltip, if any, inside the surface: flipped at the right and bottom edges. */
export function placeTooltipIn(surface: HTMLElement): void {
  const tip = surface.querySelector('.tooltip') as HTMLElement | null;
  if (tip === null) return;
  // Measured at the left edge: its width (it wraps at max-width) must not depend on where it was last placed.
  tip.style.left = '0px';
  const box = placeTooltip(Number(tip.dataset.x), Number(tip.dataset.y), tip.offsetWidth, tip.offsetHeight, surface.clientWidth, surface.clientHeight);
  tip.style.left = `${box.left}px`;
  tip.style.top = `${box.top}px`;
}
