// The GLSL and C headers are generated from shared-schema/raw-layout.ts; this
// fails when someone edits one side without regenerating (`npm run gen:layout`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { C_LAYOUT_PATH, GLSL_LAYOUT_PATH, renderCLayout, renderGlslLayout } from '../../shared-schema/layout-headers.js';
import { RECORD_WORDS, RecordWord } from '../../shared-schema/raw-layout.js';
import { repoPath } from './paths.js';

test('committed GLSL layout header matches shared-schema', () => {
  assert.equal(readFileSync(repoPath(GLSL_LAYOUT_PATH), 'utf8'), renderGlslLayout());
});

test('committed C layout header matches shared-schema', () => {
  assert.equal(readFileSync(repoPath(C_LAYOUT_PATH), 'utf8'), renderCLayout());
});

test('record words are distinct and fill the record (POSITION shares word 3 with ACTIVE_MASK_HI, by flag)', () => {
  const { POSITION, ...own } = RecordWord;
  const words = Object.values(own).sort((a, b) => a - b);
  assert.deepEqual(words, Array.from({ length: RECORD_WORDS }, (_, i) => i));
  assert.equal(POSITION, RecordWord.ACTIVE_MASK_HI);
});
