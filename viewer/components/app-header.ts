// The parts of <warptrace-app>'s chrome that only show state: the samples menu, the
// trace title, stage chips, the SM line, the keys help and the empty page. Each takes
// what it shows and callbacks for what the user does.
import { html, nothing, type ReactiveControllerHost } from 'lit';
import { DismissController } from './dismiss-controller.js';
import { STAGES, Stage, formatNs, stageCssColor } from '../../shared-schema/index.js';
import type { SampleIndex } from '../loading/samples.js';
import type { RecentTrace } from '../loading/recents-store.js';
import { smSummaryText } from '../model/sm-summary.js';
import { calibrationBadges } from './calibration-badges.js';
import { sampledChipSuffix, sampledLaneNote, samplingBadge } from './sampling-badge.js';
import { formatBytes } from './wt-recents.js';
import type { OpenedTrace } from './app-types.js';

export function samplesMenu(s: SampleIndex | null, onPick: (file: string) => void) {
  if (s === null || s.samples.length === 0) return nothing;
  return html`<select
    class="samples"
    aria-label="Open a sample capture"
    @change=${(e: Event) => {
      const sel = e.target as HTMLSelectElement;
      if (sel.value !== '') onPick(sel.value);
      sel.value = '';
    }}
  >
    <option value="">Samples…</option>
    ${s.samples.map((e) => html`<option value=${e.file} title=${e.description}>${e.title}${e.device ? ` (${e.device})` : ''}</option>`)}
  </select>`;
}

export function traceTitle(o: OpenedTrace) {
  const c = o.trace.capture;
  const dropped = c.recordsWritten - c.recordsKept;
  return html`<span class="title" title=${c.calibration.note}>
    <strong>${o.name}</strong>
    <span class="muted">${o.trace.device.name} · ${o.trace.warps.count.toLocaleString('en-US')} warps · ${o.trace.draws.length} draws${o.bytes > 0 ? ` · ${formatBytes(o.bytes)}` : ''}</span>
    <span class=${dropped > 0 ? 'dropped warn' : 'dropped'}>${dropped > 0 ? `${dropped.toLocaleString('en-US')} records dropped` : 'nothing dropped'}</span>
    ${calibrationBadges(o.calibration, o.trace.warps.count)}
  </span>${samplingBadge(c.sampling)}`;
}

export function stageChips(o: OpenedTrace, hiddenStages: number, onToggle: (code: number) => void) {
  let present = 0;
  for (const lane of o.index.lanes) present |= lane.stageMask;
  return html`<span class="chips" role="group" aria-label="Stages shown">
    ${STAGES.filter((s) => present & (1 << s.code)).map((s) => {
      const hidden = (hiddenStages & (1 << s.code)) !== 0;
      return html`<button
        class="chip ${hidden ? 'off' : ''}"
        aria-pressed=${hidden ? 'false' : 'true'}
        title="${hidden ? 'Show' : 'Hide'} ${s.title} warps${sampledLaneNote(o.trace.capture.sampling, s.name)}"
        @click=${() => onToggle(s.code)}
      >
        <span class="swatch" style="background:${stageCssColor(s.code)}"></span>${s.label}${sampledChipSuffix(o.trace.capture.sampling, s.name)}
      </button>`;
    })}
  </span>`;
}

/** One line that makes the SM placement obvious, e.g. graphics on 4 of 132 SMs. */
export function smSummary(o: OpenedTrace, hiddenStages: number, onToggle: (code: number) => void, trailing: unknown = nothing) {
  const t = smSummaryText(o.index.lanes, o.trace.device.smCount);
  const csHidden = (hiddenStages & (1 << Stage.CS)) !== 0;
  const span = o.index.endNs - o.index.startNs;
  return html`<div class="sm-summary">
    ${t.graphics !== null ? html`<span><strong>${t.graphics}</strong> (${t.graphicsSms})</span>` : nothing}
    ${t.compute !== null ? html`<span>${t.compute}</span>` : nothing}
    <span class="muted">${t.ran} · capture spans ${formatNs(span)}</span>
    ${t.hasGraphics && t.hasCompute
      ? html`<button @click=${() => onToggle(Stage.CS)}>${csHidden ? 'Show compute' : 'Only graphics SMs'}</button>`
      : nothing}
    ${trailing}
  </div>`;
}

/**
 * The SM line's place while the first trace loads: the trace view below it (whose timeline
 * starts its renderer meanwhile) keeps the height it will have, so the first frame is
 * drawn at its final size.
 */
export function smSummaryPlaceholder(name: string) {
  return html`<div class="sm-summary"><span class="muted">Opening ${name}…</span></div>`;
}

export interface EmptyPageProps {
  readonly sampleProblem: string | null;
  readonly recents: readonly RecentTrace[];
  readonly onPickFile: () => void;
  readonly onSynthetic: () => void;
}

export function emptyPage(p: EmptyPageProps) {
  return html`<section class="empty">
    <h2>Open a warp trace</h2>
    <p class="muted">
      ${p.sampleProblem !== null ? html`No sample capture is available (${p.sampleProblem}). ` : nothing}Open a
      <code>.wtrace</code>, <code>.wtraw</code> or warptrace JSON file, drop one here, or pass <code>?trace=URL</code>.
    </p>
    <p>
      <button @click=${p.onPickFile}>Open a trace file…</button>
      <button @click=${p.onSynthetic} title="Generated, H100-shaped; not a real capture">Generate a synthetic trace (1 M warps)</button>
    </p>
    <h3>Recent traces</h3>
    <wt-recents .recents=${p.recents}></wt-recents>
  </section>`;
}

/** The header's "All N SMs" checkbox. */
export function allSmsToggle(o: OpenedTrace, on: boolean, onChange: (on: boolean) => void) {
  return html`<label class="toggle" title="Show a lane for every SM of the device, not only SMs that ran warps">
    <input type="checkbox" .checked=${on} @change=${(e: Event) => onChange((e.target as HTMLInputElement).checked)} />
    all ${o.trace.device.smCount ?? ''} SMs
  </label>`;
}

/** The "?" keys help: a popover of the header. */
export function helpMenu() {
  return html`<details class="help">
    <summary aria-label="Keyboard and mouse help">?</summary>
    <div class="help-body">${helpText()}</div>
  </details>`;
}

/** Closes the "?" help on Esc and on a press outside it (it stayed open before). */
export function helpDismiss(host: ReactiveControllerHost & { readonly renderRoot: HTMLElement | DocumentFragment }): DismissController {
  const help = () => host.renderRoot.querySelector('details.help') as HTMLDetailsElement | null;
  return new DismissController(
    host,
    () => help()?.open === true,
    (t) => t === help(),
    () => {
      const d = help();
      if (d !== null) d.open = false;
    },
  );
}

export function helpText() {
  return html`<table>
    <tr><th>W / S</th><td>zoom in / out (hold)</td></tr>
    <tr><th>A / D, ← / →</th><td>pan</td></tr>
    <tr><th>wheel</th><td>zoom at the pointer; Shift+wheel pans; wheel over SM labels scrolls</td></tr>
    <tr><th>drag</th><td>pan; Shift+drag selects a time range</td></tr>
    <tr><th>Shift+← / →, M</th><td>grow / shrink the time range from the time cursor; M: the range of the selected warp or draw</td></tr>
    <tr><th>click</th><td>a warp: details; an SM label: expand to warp slots; the time axis: time cursor</td></tr>
    <tr><th>↑ / ↓, Enter</th><td>move between SM lanes, expand one</td></tr>
    <tr><th>, / .</th><td>previous / next warp on the focused lane</td></tr>
    <tr><th>[ / ]</th><td>previous / next draw, or search match (zooms to it, dims the others, scrolls to its lanes); in the draws table, its previous / next row</td></tr>
    <tr><th>Find box</th><td>label or glob (* ?), #12, pass:name, stage:FS; its warps are highlighted, the rest dimmed; Enter zooms to the match, Esc clears the filter</td></tr>
    <tr><th>Histogram bins</th><td>in Statistics: click or drag (or ← / →, Shift+→) to highlight a stage's warps of those durations; the line above the timeline counts and lists them</td></tr>
    <tr><th>F, 0</th><td>fit the selection, show everything</td></tr>
    <tr><th>C, Esc</th><td>time cursor at the centre, clear selections (warp, range, cursor, draw)</td></tr>
    <tr><th>Color by</th><td>warps by stage, live lanes (SIMT efficiency), draw, pass, duration percentile in the stage, SM, or a branch at a mark: red all lanes reached it, yellow some, grey none (Tab to it, arrows to change)</td></tr>
  </table>`;
}

/** An error (role alert) or notice (role status) line with a dismiss button. */
export function banner(kind: 'error' | 'notice', text: string | null, onDismiss: () => void) {
  if (text === null) return nothing;
  return html`<div class="banner ${kind}" role=${kind === 'error' ? 'alert' : 'status'}>${text}<button @click=${onDismiss} aria-label="Dismiss">×</button></div>`;
}
