import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Tests run from dist/test/node; this resolves paths against the repository root. */
export function repoPath(...parts: string[]): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', ...parts);
}
