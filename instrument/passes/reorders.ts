/**
 * The reorders pass: shader execution reordering (SPV_NV/EXT_shader_invocation_reorder,
 * ray generation only) re-forms the launch's warps at each reorder point, so the lanes
 * of one warp before the point are not its lanes after it. A record from the
 * invocation's start to its end would mix two warps: its mask, position and SM slot
 * those of the warp after the last reorder, its start clock from another warp.
 *
 * So each reorder point splits the invocation's record, as the GLSL library's
 * wtBeforeReorder / wtAfterReorder do (capture/shaders/warptrace_ray_tracing.glsl):
 * a call before it records the lanes that reach it together (RAYGEN, or
 * RAYGEN_REORDERED after an earlier reorder), and a call after it restarts the start
 * clock and marks the invocation reordered; the wrapper's record after the entry
 * point is then RAYGEN_REORDERED: the warp the lanes joined, from the reorder to
 * the end. The fused EXT calls (trace, reorder and execute) count as reorder points:
 * the lanes returning from them are a re-formed warp.
 */
import { Op } from '../model/spec.js';
import { bracketSites, recordPointVariables, soleEntryReaching } from './call-sites.js';
import type { InstrumentPass } from './pass.js';

/** The instructions after which a ray-generation invocation may be in another warp. */
export const REORDER_OPS: ReadonlySet<number> = new Set([
  Op.ReorderThreadWithHitObjectNV,
  Op.ReorderThreadWithHintNV,
  Op.ReorderThreadWithHitObjectEXT,
  Op.ReorderThreadWithHintEXT,
  Op.HitObjectReorderExecuteShaderEXT,
  Op.HitObjectTraceReorderExecuteEXT,
  Op.HitObjectTraceMotionReorderExecuteEXT,
]);

export const reordersPass: InstrumentPass = {
  name: 'reorders',
  transform(context) {
    const { editor } = context;
    const sites = soleEntryReaching(
      context,
      'RAYGEN',
      REORDER_OPS,
      'several ray-generation entry points reorder: their records span the whole invocation (the warp after the last reorder)',
    );
    if (sites === null) return;
    const before = editor.allocId();
    const after = editor.allocId();
    editor.addName(before, 'warptrace_record_at_reorder');
    editor.addName(after, 'warptrace_restart_after_reorder');
    const { flag: reordered, start } = recordPointVariables(context, 'warptrace_reordered');
    const points = bracketSites(context, sites, REORDER_OPS, before, after);
    context.recordParts.get(sites.entry.index)!.reorder = { before, after, reordered, start };
    context.notes.push(`${sites.entry.name}: ${points} reorder point${points === 1 ? '' : 's'}: records end at each and restart after it (RAYGEN_REORDERED)`);
  },
};
