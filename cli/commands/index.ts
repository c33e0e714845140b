/** Every `warptrace` sub-command, in the order `--help` lists them. */
import type { Command } from '../command.js';
import { blocksCommand } from './blocks.js';
import { captureCommand } from './capture.js';
import { convertCommand } from './convert.js';
import { diffCommand } from './diff.js';
import { exportCommand } from './export.js';
import { infoCommand } from './info.js';
import { instrumentCommand } from './instrument.js';
import { passesCommand } from './passes.js';
import { phasesCommand } from './phases.js';
import { queryCommand } from './query.js';
import { raysCommand } from './rays.js';
import { statsCommand } from './stats.js';

export const COMMANDS: readonly Command[] = [infoCommand, statsCommand, passesCommand, blocksCommand, phasesCommand, raysCommand, queryCommand, exportCommand, diffCommand, convertCommand, captureCommand, instrumentCommand];
