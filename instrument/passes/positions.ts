/**
 * The positions pass: which traced entries record their warp's screen
 * position (`--position`), and what that needs declared. The code that
 * computes the word is position-code.ts, called from the record wrapper.
 */
import { Capability } from '../model/spec.js';
import type { PositionStage } from '../options.js';
import type { InstrumentPass, PassContext, TracedEntry } from './pass.js';

/** SPV_KHR_shader_ballot has no subgroup min/max: no position from those warps. */
function positionOf(context: PassContext, entry: TracedEntry): PositionStage | null {
  const wanted = (context.options.positionStages as readonly string[]).includes(entry.stage);
  return wanted && entry.subgroup !== 'khr-ballot' ? (entry.stage as PositionStage) : null;
}

export const positionsPass: InstrumentPass = {
  name: 'positions',
  declare(context) {
    const { editor, entries, options } = context;
    for (const entry of entries) context.recordParts.get(entry.index)!.position = positionOf(context, entry);
    if (entries.some((e) => positionOf(context, e) !== null && e.subgroup === 'core')) editor.addCapability(Capability.GroupNonUniformArithmetic);
    const ballotOnly = [...new Set(entries.filter((e) => e.subgroup === 'khr-ballot' && (options.positionStages as readonly string[]).includes(e.stage)).map((e) => e.stage))];
    if (ballotOnly.length > 0) context.notes.push(`no screen position in ${ballotOnly.join(', ')}: SPV_KHR_shader_ballot has no subgroup min/max (--legacy-subgroup upgrade or per-invocation record one)`);
  },
};
