// The Khronos validation layer beside the capture layer, for the end-to-end tests (layer-capture.test.ts): settings
// that log its messages to a file, and a way to load it above the capture layer.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const VALIDATION_LAYER = 'VK_LAYER_KHRONOS_validation';
const VALIDATION_MANIFEST = '/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json';

/** A validation settings folder (VK_LAYER_SETTINGS_PATH) that logs errors and warnings to `log`, nothing to stdout. */
export function validationSettings(dir: string, name: string): { env: Record<string, string>; log: string } {
  const folder = join(dir, `validation-${name}`);
  mkdirSync(folder, { recursive: true });
  const log = join(folder, 'messages.txt');
  const settings = ['debug_action = VK_DBG_LAYER_ACTION_LOG_MSG', `log_filename = ${log}`, 'report_flags = error,warn'];
  writeFileSync(join(folder, 'vk_layer_settings.txt'), settings.map((line) => `khronos_validation.${line}\n`).join(''));
  return { env: { VK_LAYER_SETTINGS_PATH: folder }, log };
}

/** Environment that loads the validation layer above every explicit layer, the capture layer included: as an implicit layer (layer-capture.test.ts says why). */
export function validationAsImplicitLayer(dir: string): Record<string, string> {
  assert.ok(existsSync(VALIDATION_MANIFEST), `no ${VALIDATION_MANIFEST}: install vulkan-validationlayers (scripts/install-system-deps.sh)`);
  const manifest = JSON.parse(readFileSync(VALIDATION_MANIFEST, 'utf8')) as { layer: Record<string, unknown> };
  manifest.layer['disable_environment'] = { WARPTRACE_TEST_NO_VALIDATION: '1' };
  const home = join(dir, 'xdg-data');
  mkdirSync(join(home, 'vulkan', 'implicit_layer.d'), { recursive: true });
  writeFileSync(join(home, 'vulkan', 'implicit_layer.d', 'VkLayer_khronos_validation.json'), JSON.stringify(manifest));
  return { XDG_DATA_HOME: home };
}

/** The messages of a validation log, one line each (the message's first line, object handles blanked). */
export function validationMessages(log: string): string[] {
  assert.ok(existsSync(log), `the validation layer wrote no log ${log}: did it load? (install vulkan-validationlayers: scripts/install-system-deps.sh)`);
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0 && !/^\s/.test(line))
    .map((line) => line.replace(/0x[0-9a-f]+/gi, '0x…'));
}

