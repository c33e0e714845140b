// Issue 14: the viewer page names its icon, so browsers do not ask the server for /favicon.ico (a 404).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { repoPath } from './paths.js';

test('index.html links an icon (an inline SVG, nothing to serve)', () => {
  const html = readFileSync(repoPath('index.html'), 'utf8');
  const link = /<link\s+rel="icon"[^>]*href="([^"]+)"/.exec(html);
  assert.ok(link !== null, 'a <link rel="icon">');
  assert.match(link[1]!, /^data:image\/svg\+xml,/);
});
