#!/usr/bin/env node
// Entry point for `npx warptrace`; the TypeScript is compiled to dist/ by `npm ci` (prepare).
import { main } from '../dist/cli/main.js';

// `warptrace stats x | head` closes the pipe early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  write: (text) => process.stdout.write(text),
};
process.exitCode = await main(process.argv.slice(2), io);
