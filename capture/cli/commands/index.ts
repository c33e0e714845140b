/** Every `warptrace` sub-command, in the order `--help` lists them. */
import type { Command } from '../command.js';

export const COMMANDS: readonly Command[] = [];
