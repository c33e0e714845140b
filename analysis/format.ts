/** Human-readable numbers and names for reports, findings and panels. */
import { UNKNOWN_SM } from '../shared-schema/model.js';
import { formatNs } from '../shared-schema/units.js';

export { formatNs };

/** "12.5%" from a share in [0, 1]. */
export function formatShare(share: number | null | undefined, decimals = 1): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '–';
  return `${(share * 100).toFixed(decimals)}%`;
}

/** "+15.0%" / "−3.2%" from a relative change (0.15, -0.032). */
export function formatChange(relative: number | null | undefined): string {
  if (relative === null || relative === undefined || !Number.isFinite(relative)) return '–';
  const text = `${Math.abs(relative * 100).toFixed(1)}%`;
  return relative > 0 ? `+${text}` : relative < 0 ? `−${text}` : '±0.0%';
}

/**
 * Counts and ratios, the one number format of reports and panels: thousands
 * grouped ("1,629", "1,073,317"), fixed decimals for fractions ("9.1",
 * "1,234.5"); integers stay integers.
 */
export function formatNumber(value: number | null | undefined, decimals = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  // By hand, not toLocaleString: a panel formats thousands of numbers, and Intl costs ~20 µs a call.
  const text = Number.isInteger(value) ? String(Math.abs(value)) : Math.abs(value).toFixed(decimals);
  if (/e/i.test(text)) return value.toLocaleString('en-US');
  const dot = text.indexOf('.');
  const whole = dot < 0 ? text : text.slice(0, dot);
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',') + (dot < 0 ? '' : text.slice(dot));
  return value < 0 && /[1-9]/.test(text) ? `-${grouped}` : grouped;
}

/** "SM 12", or "no SM id" for warps from devices without SM builtins. */
export function smLabel(sm: number): string {
  return sm === UNKNOWN_SM ? 'no SM id' : `SM ${sm}`;
}

/** "SM 3", "SMs 0, 1, 48, 49", "132 SMs", or "the device (no SM ids)". */
export function smsLabel(sms: readonly number[]): string {
  const known = sms.filter((s) => s !== UNKNOWN_SM);
  const unknown = known.length < sms.length;
  if (known.length === 0) return unknown ? 'the device (no SM ids)' : 'no SMs';
  const list = known.length <= 8 ? `SM${known.length === 1 ? '' : 's'} ${known.join(', ')}` : `${known.length} SMs`;
  return unknown ? `${list} and warps without SM id` : list;
}

/**
 * A draw's gap before it in words (never a negative time): "gap before it 7.35 µs",
 * "overlapped the draws before it by 448 ns", "no gap before it"; null: "the first to start".
 */
export function gapBeforeText(gapNs: number | null | undefined): string {
  if (gapNs === null || gapNs === undefined || !Number.isFinite(gapNs)) return 'the first to start';
  if (gapNs > 0) return `gap before it ${formatNs(gapNs)}`;
  if (gapNs < 0) return `overlapped the draws before it by ${formatNs(-gapNs)}`;
  return 'no gap before it';
}

/** A gap-before cell of a table: the gap, or "overlap 448 ns" when the draw overlapped the ones before it. */
export function gapBeforeCell(gapNs: number | null | undefined): string {
  return gapNs !== null && gapNs !== undefined && gapNs < 0 ? `overlap ${formatNs(-gapNs)}` : formatNs(gapNs);
}
