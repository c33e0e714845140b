// Every error is one line: V8's JSON syntax errors quote the file (newlines
// and all), and names may hold control characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oneLine } from '../../cli/command.js';
import { repoPath } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'warptrace-errors-'));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('a JSON syntax error is one line, the quoted part of the file escaped', () => {
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{\n  "format": "warptrace-json",\n  "version": 1,\n  "warps": x\n}\n');
  for (const command of ['info', 'stats', 'convert']) {
    const r = run(command, bad, ...(command === 'convert' ? ['-o', join(dir, 'out.wtrace')] : []));
    assert.equal(r.code, 1, r.err);
    assert.equal(r.err.split('\n').length, 2, `one line: ${JSON.stringify(r.err)}`);
    assert.match(r.err, new RegExp(`^warptrace ${command}: json: not valid JSON \\(Unexpected token 'x', .*\\\\n.* is not valid JSON\\)\\n$`));
  }
});

test('oneLine escapes line breaks and control characters, and leaves the rest', () => {
  assert.equal(oneLine('a\nb\r\nc\td\u001b[31m\u2028 東京 #?'), 'a\\nb\\r\\nc\\td\\u001b[31m\\u2028 東京 #?');
  const r = run('info', join(dir, 'no\nsuch\u001b[2J.wtrace'));
  assert.equal(r.code, 1);
  assert.equal(r.err, `warptrace info: cannot read ${dir}/no\\nsuch\\u001b[2J.wtrace: no such file or directory\n`);
});
