/**
 * `warptrace capture --offscreen`: the app presents into the layer's own images
 * (WARPTRACE_OFFSCREEN=1, capture/layer/src/offscreen_*.cpp). The layer provides
 * VK_EXT_headless_surface, but the loader lists an extension a layer adds in
 * vkEnumerateInstanceExtensionProperties(NULL) only for implicit layers; apps
 * that check that list before creating their instance (Vulkan-Samples'
 * --headless-surface) would not find it through VK_INSTANCE_LAYERS alone. So the
 * run also gets an implicit-layer manifest of the same layer, enabled only by
 * WARPTRACE_OFFSCREEN=1, in a folder appended to XDG_DATA_DIRS (the loader looks
 * in DIR/vulkan/implicit_layer.d). The loader inserts a layer named both
 * implicitly and in VK_INSTANCE_LAYERS once.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { InputError } from '../../cli/command.js';
import { LAYER_MANIFEST } from './layer-build.js';

/** The XDG base-directory default that an unset XDG_DATA_DIRS stands for: it must stay searched. */
const DEFAULT_DATA_DIRS = '/usr/local/share/:/usr/share/';

/**
 * Sets WARPTRACE_OFFSCREEN=1 in `env` and makes the layer (manifest in
 * `manifestDir`) implicit for this run: writes its implicit manifest under
 * `folder` and appends `folder` to XDG_DATA_DIRS.
 */
export function addOffscreenEnvironment(env: NodeJS.ProcessEnv, manifestDir: string, folder: string): void {
  const manifestPath = join(manifestDir, LAYER_MANIFEST);
  let manifest: { layer?: Record<string, unknown> };
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { layer?: Record<string, unknown> };
  } catch (error) {
    throw new InputError(`cannot read the layer manifest ${manifestPath}: ${(error as Error).message}`);
  }
  const layer = manifest.layer;
  const library = layer?.['library_path'];
  if (layer === undefined || typeof library !== 'string') throw new InputError(`${manifestPath}: layer.library_path: expected a string`);
  const implicitDir = join(folder, 'vulkan', 'implicit_layer.d');
  mkdirSync(implicitDir, { recursive: true });
  const implicit = {
    ...manifest,
    layer: {
      ...layer,
      // Relative paths are relative to the manifest: this one lies elsewhere.
      library_path: isAbsolute(library) ? library : resolve(manifestDir, library),
      enable_environment: { WARPTRACE_OFFSCREEN: '1' },
    },
  };
  writeFileSync(join(implicitDir, LAYER_MANIFEST), `${JSON.stringify(implicit, null, 2)}\n`);
  env['WARPTRACE_OFFSCREEN'] = '1';
  const existing = env['XDG_DATA_DIRS'];
  // Appended: the app's own data lookups (icons, fonts) find what they found before, first.
  env['XDG_DATA_DIRS'] = `${existing === undefined || existing === '' ? DEFAULT_DATA_DIRS : existing}${delimiter}${folder}`;
}
