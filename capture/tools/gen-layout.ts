/** Writes the generated GLSL and C layout headers (`npm run gen:layout`). */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { C_LAYOUT_PATH, GLSL_LAYOUT_PATH, renderCLayout, renderGlslLayout } from '../../shared-schema/layout-headers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
writeFileSync(join(root, GLSL_LAYOUT_PATH), renderGlslLayout());
writeFileSync(join(root, C_LAYOUT_PATH), renderCLayout());
console.log(`wrote ${GLSL_LAYOUT_PATH} and ${C_LAYOUT_PATH}`);
