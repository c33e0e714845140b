/**
 * The SM line's text (pure): where graphics and compute warps ran, e.g.
 * "Graphics ran on 4 of 132 SMs (0-1, 48-49)". Warps without an SM id
 * (UNKNOWN_SM, 0xffff: devices without SM builtins, e.g. lavapipe) share one
 * lane; its id is never printed as a number: "SM ids unknown".
 */
import { formatSmRanges, knownSmCount } from '../../shared-schema/units.js';
import { Stage } from '../../shared-schema/stages.js';

const STAGE_BIT_GRAPHICS = (1 << Stage.VS) | (1 << Stage.TCS) | (1 << Stage.TES) | (1 << Stage.GS) | (1 << Stage.FS) | (1 << Stage.TASK) | (1 << Stage.MESH);
const STAGE_BIT_COMPUTE = 1 << Stage.CS;

export interface SmLane {
  readonly sm: number;
  /** Bit s set when stage s ran on the lane. */
  readonly stageMask: number;
}

export interface SmSummaryText {
  /** "Graphics ran on 4 of 132 SMs" ("Graphics ran on SMs" when no id is known), or null without graphics warps. */
  readonly graphics: string | null;
  /** "0-1, 48-49", "SM ids unknown". */
  readonly graphicsSms: string | null;
  /** "compute on 132 SMs", "compute on SMs (SM ids unknown)", or null. */
  readonly compute: string | null;
  /** "5 SMs ran warps", "SM ids unknown". */
  readonly ran: string;
  readonly hasGraphics: boolean;
  readonly hasCompute: boolean;
}

function placement(prefix: string, sms: readonly number[], smCount: number | null): string {
  const known = knownSmCount(sms);
  return known === 0 ? `${prefix} SMs` : `${prefix} ${known}${smCount === null ? '' : ` of ${smCount}`} SMs`;
}

export function smSummaryText(lanes: readonly SmLane[], smCount: number | null): SmSummaryText {
  const graphics: number[] = [];
  const compute: number[] = [];
  for (const lane of lanes) {
    if (lane.stageMask & STAGE_BIT_GRAPHICS) graphics.push(lane.sm);
    if (lane.stageMask & STAGE_BIT_COMPUTE) compute.push(lane.sm);
  }
  const all = lanes.map((l) => l.sm);
  const known = knownSmCount(all);
  const unknown = known < all.length;
  const ran = known === 0 ? (unknown ? 'SM ids unknown' : 'no SM ran warps') : `${known} SMs ran warps${unknown ? ' (and warps without SM id)' : ''}`;
  return {
    graphics: graphics.length > 0 ? placement('Graphics ran on', graphics, smCount) : null,
    graphicsSms: graphics.length > 0 ? formatSmRanges(graphics) : null,
    compute: compute.length === 0 ? null : knownSmCount(compute) === 0 ? 'compute on SMs (SM ids unknown)' : placement('compute on', compute, smCount),
    ran,
    hasGraphics: graphics.length > 0,
    hasCompute: compute.length > 0,
  };
}
