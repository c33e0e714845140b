// The README promises two set-up commands; CI must run exactly the test one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { repoPath } from './paths.js';

test('.ci/run runs the README test command verbatim', () => {
  const readme = readFileSync(repoPath('README.md'), 'utf8');
  const ci = readFileSync(repoPath('.ci/run'), 'utf8');
  const commands = [...readme.matchAll(/^ {4}(\S.*)$/gm)].map((m) => m[1]!.trim());
  const testCommand = commands.find((c) => c.includes('npm test'));
  assert.ok(testCommand, 'README has an indented test command');
  assert.ok(commands.some((c) => c.includes('npm start')), 'README has an indented main-job command');
  assert.ok(ci.split('\n').some((line) => line.trim() === testCommand), `.ci/run runs: ${testCommand}`);
});
