/**
 * Detector thresholds the user changed in the findings panel, kept in
 * localStorage (`warptrace.thresholds`: name → value, only those that differ
 * from the defaults) so every trace opened later is analyzed with them.
 * What is read back is untrusted: unknown names and values that
 * `resolveThresholds` refuses are dropped, one by one.
 */
import { DEFAULT_THRESHOLDS, THRESHOLD_DOCS, ThresholdError, resolveThresholds, type Thresholds } from '../../analysis/thresholds.js';

export const THRESHOLD_STORAGE_KEY = 'warptrace.thresholds';

export type ThresholdOverrides = Readonly<Partial<Record<keyof Thresholds, number>>>;

/** The overrides in `raw` that are known, valid and not the default. */
export function cleanOverrides(raw: unknown): ThresholdOverrides {
  const out: Partial<Record<keyof Thresholds, number>> = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  for (const doc of THRESHOLD_DOCS) {
    const value = (raw as Record<string, unknown>)[doc.name];
    if (typeof value !== 'number' || value === DEFAULT_THRESHOLDS[doc.name]) continue;
    try {
      resolveThresholds({ [doc.name]: value });
      out[doc.name] = value;
    } catch (e) {
      if (!(e instanceof ThresholdError)) throw e;
    }
  }
  return out;
}

export function loadThresholdOverrides(storage: Pick<Storage, 'getItem'> | null = globalStorage()): ThresholdOverrides {
  try {
    return cleanOverrides(JSON.parse(storage?.getItem(THRESHOLD_STORAGE_KEY) ?? 'null'));
  } catch {
    return {};
  }
}

/** Keeps `overrides` (removes the entry when there are none); false when storage refused. */
export function saveThresholdOverrides(overrides: ThresholdOverrides, storage: Pick<Storage, 'setItem' | 'removeItem'> | null = globalStorage()): boolean {
  try {
    if (storage === null) return false;
    if (Object.keys(overrides).length === 0) storage.removeItem(THRESHOLD_STORAGE_KEY);
    else storage.setItem(THRESHOLD_STORAGE_KEY, JSON.stringify(overrides));
    return true;
  } catch {
    return false;
  }
}

function globalStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
