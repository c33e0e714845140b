/**
 * Block profiles the capture layer did not make: traced draws it gave none
 * (DrawInfo.unprofiled: shader objects, pipelines made with descriptor
 * buffers, ray-tracing pipelines linking libraries) and a capture that asked
 * for profiles and got none (the layer's `blocks` notes, e.g. a device
 * without 64-bit atomics). The CLI and the viewer say why with these rather
 * than show empty counts. Pure.
 */
import type { DrawInfo, LayerInfo } from '../shared-schema/model.js';

/** A traced draw without a block profile, and why (DrawInfo.unprofiled). */
export interface SkippedProfile {
  readonly draw: number;
  readonly label: string;
  readonly why: string;
}

/** The draws among `draws` (null: all) traced without a block profile, in draw order. */
export function skippedProfiles(allDraws: readonly DrawInfo[], draws: ReadonlySet<number> | null = null): SkippedProfile[] {
  const out: SkippedProfile[] = [];
  for (const d of allDraws) {
    // == null: a draw cast from a shape older than the key lacks it.
    if (d.unprofiled == null || (draws !== null && !draws.has(d.index))) continue;
    out.push({ draw: d.index, label: d.label, why: d.unprofiled });
  }
  return out;
}

/** Why the capture layer made no block profile at all (its `blocks` notes, joined), or null when it said nothing. */
export function profileRefusal(layer: LayerInfo | null): string | null {
  const notes = (layer?.notes ?? []).filter((n) => n.what === 'blocks').map((n) => n.why);
  return notes.length === 0 ? null : notes.join('; ');
}

/** "#3, #7, #9 and 2 more": the first `shown` draws of a list. */
export function drawList(skipped: readonly SkippedProfile[], shown = 5): string {
  const named = skipped.slice(0, shown).map((s) => `#${s.draw}`);
  const more = skipped.length - named.length;
  if (more > 0) return `${named.join(', ')} and ${more} more`;
  return named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}` : (named[0] ?? '');
}
