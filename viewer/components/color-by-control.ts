// The "Color by" selector (in the header, reached with Tab like the other controls; arrow keys
// pick a mode) and the legend of the mode the timeline draws (in the SM line): a swatch per
// class with its meaning and warp count. In stage mode the stage chips are the legend.
import { css, html, nothing } from 'lit';
import { cssColor } from '../model/colors.js';
import { colorByKey, type ColorBy, type ColorByOption, type ColorClasses } from '../model/color-by.js';

export function colorBySelect(options: readonly ColorByOption[], current: ColorBy, onChange: (by: ColorBy) => void) {
  const key = colorByKey(current);
  return html`<label class="color-by" title="What the color of a warp bar stands for">
    Color by
    <select
      aria-label="Color warps by"
      @change=${(e: Event) => {
        const value = (e.target as HTMLSelectElement).value;
        const option = options.find((o) => o.key === value);
        if (option !== undefined) onChange(option.by);
      }}
    >
      ${options.map((o) => html`<option value=${o.key} ?selected=${o.key === key}>${o.label}</option>`)}
    </select>
  </label>`;
}

/** Legends this short show their warp counts inline (the branch mode's three classes); longer ones in tooltips. */
const INLINE_COUNTS = 4;

export function colorLegend(colors: ColorClasses | null) {
  if (colors === null || colors.by.kind === 'stage') return nothing;
  const inline = colors.legend.length <= INLINE_COUNTS;
  return html`<span class="legend" role="list" aria-label="Colors: ${colors.caption}">
    <span class="muted">${colors.caption}:</span>
    ${colors.note === undefined ? nothing : html`<span class="muted legend-note">${colors.note}</span>`}
    ${colors.legend.map((e) => {
      const warps = (e.warps ?? colors.counts[e.cls]!).toLocaleString('en-US');
      return html`<span class="legend-entry" role="listitem" data-class=${e.cls} title="${e.title}: ${warps} warps">
        <span class="swatch" style="background:${cssColor(e.rgb)}"></span>${e.label}${inline ? html` <span class="muted">${warps}</span>` : nothing}
      </span>`;
    })}
  </span>`;
}

export const colorByStyles = css`
  .color-by {
    display: inline-flex;
    gap: 4px;
    align-items: center;
    white-space: nowrap;
  }
  .color-by select {
    padding: 1px 4px;
    max-width: 150px;
  }
  .legend {
    display: inline-flex;
    flex-wrap: wrap;
    gap: 2px 8px;
    align-items: center;
    margin-left: auto;
  }
  /* Draw and pass names can be long asset paths: elided here, whole in the entry's tooltip. */
  .legend-entry {
    white-space: nowrap;
    max-width: 220px;
    overflow: hidden;
    text-overflow: ellipsis;
  }
`;
