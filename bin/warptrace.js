#!/usr/bin/env node
// Entry point for `npx warptrace`; the TypeScript is compiled to dist/ by `npm ci` (prepare).
import { main } from '../dist/cli/main.js';
import { processIo } from '../dist/cli/stdio.js';

process.exitCode = await main(process.argv.slice(2), processIo());
