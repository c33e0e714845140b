/**
 * The instrumenter's passes, in the order each phase runs them (pass.ts).
 * A new pass is a file beside these and an entry here.
 */
import { blocksPass } from './blocks.js';
import { endingsPass } from './endings.js';
import { intersectionReportsPass } from './intersection-reports.js';
import { marksPass } from './marks.js';
import type { InstrumentPass } from './pass.js';
import { positionsPass } from './positions.js';
import { rayEventsPass } from './ray-events.js';
import { recordsPass } from './records.js';
import { reordersPass } from './reorders.js';

// Ray events before endings (their calls stay where the any-hit endings were) and before reorders and marks (whose calls then sit closest to a trace).
export const PASSES: readonly InstrumentPass[] = [recordsPass, positionsPass, rayEventsPass, endingsPass, intersectionReportsPass, reordersPass, marksPass, blocksPass];
