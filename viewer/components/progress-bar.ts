// The loading bar under the header.
import { html } from 'lit';
import type { LoadProgress } from '../loading/trace-loader.js';
import { formatBytes } from './wt-recents.js';

export type Loading = { readonly name: string; readonly progress: LoadProgress };

export function renderProgress(l: Loading, onCancel: () => void) {
  const p = l.progress;
  const fraction = p.phase === 'read' && p.total !== null && p.total > 0 ? p.loaded / p.total : null;
  const text =
    p.phase === 'read'
      ? `Reading ${l.name}: ${formatBytes(p.loaded)}${p.total !== null ? ` of ${formatBytes(p.total)}` : ''}`
      : p.phase === 'decode'
        ? `Decoding ${l.name}…`
        : `Indexing ${l.name}…`;
  return html`<div class="progress" role="status" aria-live="polite">
    <span>${text}</span>
    ${fraction === null ? html`<progress aria-label="progress"></progress>` : html`<progress max="1" .value=${fraction}></progress>`}
    <button @click=${onCancel}>Cancel</button>
  </div>`;
}
