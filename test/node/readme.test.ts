// The README promises two set-up commands; CI must run exactly the test one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

test('every folder in the README layout table exists, and capture/ holds only the GPU side', () => {
  const readme = readFileSync(repoPath('README.md'), 'utf8');
  const layout = readme.slice(readme.indexOf('## Layout'));
  const folders = [...layout.matchAll(/^\| `([^`]+)\/`/gm)].map((m) => m[1]!);
  assert.ok(folders.includes('cli') && folders.includes('instrument'), `layout lists cli/ and instrument/: ${folders.join(', ')}`);
  for (const f of folders) assert.ok(existsSync(repoPath(f)), `${f}/ exists`);
  const capture = readdirSync(repoPath('capture')).filter((n) => !n.endsWith('.md')).sort();
  assert.deepEqual(capture, ['capture-run', 'host', 'layer', 'layer-server', 'shaders', 'tools', 'workloads']);
});
