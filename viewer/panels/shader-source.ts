/**
 * The source view of <wt-shader-panel>: a module's embedded source file,
 * each profiled line with a heat bar (its share of time against the file's
 * hottest line) and, on hover, its time, executions and SIMT efficiency;
 * the focused line highlighted (aria-current). Source text is untrusted:
 * it goes in through lit text bindings only.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';
import { formatShare } from '../../analysis/format.js';
import { formatBlockTime, formatCount, formatInteger } from '../model/block-view.js';
import type { HeatLine, SourceFocus, SourceHeat } from '../model/source-heat.js';

export interface SourceView {
  readonly focus: SourceFocus;
  /** The module's name (the view's caption). */
  readonly moduleName: string;
  /** The file's lines with heat, or null when the module does not embed its text. */
  readonly heat: SourceHeat | null;
  /** The files whose text the module embeds (a chooser when several). */
  readonly files: readonly string[];
  onFile(file: string): void;
}

function lineTitle(l: HeatLine): string | typeof nothing {
  const s = l.stat;
  if (s === null) return nothing;
  const simt = s.simtEfficiency === null ? 'per invocation' : `SIMT ${formatShare(s.simtEfficiency, 0)}`;
  return `line ${l.number}: ${formatBlockTime(s)} (${formatShare(s.tickShare)}), ${formatCount(s.executions)} executions, ${simt}`;
}

function line(l: HeatLine, focused: boolean): TemplateResult {
  // The bar's colour and length both follow the heat, so a faint line is still told from none.
  const bar = styleMap({ width: `${Math.max(8, l.heat * 100)}%`, opacity: `${0.35 + 0.65 * l.heat}` });
  return html`<div class="src-line ${l.stat === null ? '' : 'profiled'}" data-line=${l.number} aria-current=${focused ? 'true' : nothing} title=${lineTitle(l)}>
    <span class="heat">${l.stat === null ? nothing : html`<span class="heat-bar" style=${bar}></span>`}</span>
    <span class="heat-share">${l.stat === null ? '' : formatShare(l.stat.tickShare)}</span>
    <span class="line-no">${l.number}</span>
    <span class="code">${l.text}</span>
  </div>`;
}

export function renderSourceView(v: SourceView): TemplateResult {
  // A chooser among the embedded files only while one of them is shown.
  const chooser =
    v.files.length > 1 && v.heat !== null
      ? html`<select aria-label="Source file" @change=${(e: Event) => v.onFile((e.target as HTMLSelectElement).value)}>
          ${v.files.map((f) => html`<option .value=${f} ?selected=${f === v.focus.file}>${f}</option>`)}
        </select>`
      : html`<span class="file">${v.focus.file}</span>`;
  const caption = html`<div class="source-caption">${chooser} <span class="muted">in ${v.moduleName}</span></div>`;
  if (v.heat === null) {
    return html`${caption}<p class="muted source-missing">The module does not embed the text of ${v.focus.file} (compile with glslang -gVS to see it here).</p>`;
  }
  const h = v.heat;
  const first = h.lines[0]?.number ?? 1;
  const last = h.lines[h.lines.length - 1]?.number ?? 0;
  return html`${caption}
    ${h.lines.length < h.lineCount ? html`<p class="muted">Lines ${first}-${last} of ${formatInteger(h.lineCount)}.</p>` : nothing}
    <div class="source" role="region" aria-label=${`Source of ${h.file}`}>${h.lines.map((l) => line(l, l.number === v.focus.line))}</div>`;
}
