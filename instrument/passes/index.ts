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
import { recordsPass } from './records.js';
import { reordersPass } from './reorders.js';

export const PASSES: readonly InstrumentPass[] = [recordsPass, positionsPass, endingsPass, intersectionReportsPass, reordersPass, marksPass, blocksPass];
