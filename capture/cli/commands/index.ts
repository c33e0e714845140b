/** Every `warptrace` sub-command, in the order `--help` lists them. */
import type { Command } from '../command.js';
import { captureCommand } from './capture.js';
import { convertCommand } from './convert.js';
import { infoCommand } from './info.js';
import { instrumentCommand } from './instrument.js';

export const COMMANDS: readonly Command[] = [infoCommand, convertCommand, captureCommand, instrumentCommand];
