#!/usr/bin/env node
// Entry point for `npx warptrace`; the TypeScript is compiled to dist/ by `npm ci` (prepare).
import { main } from '../dist/capture/cli/main.js';

const io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};
process.exitCode = await main(process.argv.slice(2), io);
