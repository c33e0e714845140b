/**
 * Deep links (Perfetto's permalinks, offline): the view of a trace written into the
 * page URL's hash, `#fp=…&t=START,END&sm=0,48&draw=12&warp=3456&find=shadow&color=lanes&name=…`,
 * and read back, checked field by field against the trace it is applied to.
 *
 * The trace's URL, when it has one, travels in the query (`?trace=URL`, what the app
 * already opens); a trace opened from a file has none, so the link only carries its
 * view, and `fp` (a cheap fingerprint of the trace) says which trace that view is of.
 * Nothing in a link is trusted: a field that does not parse or does not fit the trace
 * is dropped with a problem to show, never an error.
 */
import type { Trace } from '../../shared-schema/index.js';
import type { TimeWindow } from '../model/time-scale.js';
import { COLOR_BY_STAGE, colorByKey, parseColorBy, type ColorBy } from '../model/color-by.js';

/** The parts of the view a link restores. */
export interface ViewLinkState {
  /** traceFingerprint() of the trace the view is of (null: not said). */
  readonly fingerprint: string | null;
  /** The trace's name, for messages (a file's name when it has no URL). */
  readonly name: string | null;
  readonly view: TimeWindow | null;
  readonly expandedSms: readonly number[];
  /** -1: none. */
  readonly selectedDraw: number;
  /** Warp row, -1: none. */
  readonly selectedWarp: number;
  /** The draw list's find text ('' for none). */
  readonly find: string;
  /** What warp bars are colored by (`color=lanes`, `color=branch:ID`; stage, the default, is left out). */
  readonly colorBy: ColorBy;
}

export interface ParsedViewLink {
  /** Null when the hash holds no view-link field at all. */
  readonly state: ViewLinkState | null;
  /** Fields that did not parse, as short phrases ("t (not two times)"). */
  readonly problems: readonly string[];
}

const KEYS = ['fp', 'name', 't', 'sm', 'draw', 'warp', 'find', 'color'] as const;
/** Longest find text kept (a link is typed or pasted by people; the box holds a short query). */
const MAX_FIND = 200;
const MAX_NAME = 200;
/** At most this many expanded lanes in a link (a device has at most a few hundred SMs). */
const MAX_LANES = 1024;

/**
 * A cheap fingerprint of a trace: device, capture time, workload, counts and a few
 * warps' start times and durations, hashed (FNV-1a, 2 × 32 bits). Two different captures
 * collide only if all of these agree; it reads 32 warps, whatever the trace's size.
 */
export function traceFingerprint(trace: Trace): string {
  const w = trace.warps;
  let text = `${trace.device.name}|${trace.capture.capturedAt}|${trace.capture.workload}|${w.count}|${trace.draws.length}|${trace.regions.length}`;
  const samples = Math.min(32, w.count);
  for (let k = 0; k < samples; k++) {
    const row = Math.floor((k * (w.count - 1)) / Math.max(1, samples - 1));
    text += `|${w.startNs[row]},${w.durationNs[row]}`;
  }
  return fnv1a(text, 0x811c9dc5).toString(36) + fnv1a(text, 0x01000193).toString(36);
}

function fnv1a(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** ns with at most two decimals, no exponent for ordinary times. */
function nsText(ns: number): string {
  return String(Math.round(ns * 100) / 100);
}

/** The hash (without '#') for `state`; fields at their defaults are left out. */
export function encodeViewLink(state: ViewLinkState): string {
  const parts: string[] = [];
  const put = (key: string, value: string) => parts.push(`${key}=${encodeURIComponent(value).replace(/%2C/g, ',')}`);
  if (state.fingerprint !== null) put('fp', state.fingerprint);
  if (state.view !== null) put('t', `${nsText(state.view.startNs)},${nsText(state.view.endNs)}`);
  if (state.expandedSms.length > 0) put('sm', [...state.expandedSms].sort((a, b) => a - b).join(','));
  if (state.selectedDraw >= 0) put('draw', String(state.selectedDraw));
  if (state.selectedWarp >= 0) put('warp', String(state.selectedWarp));
  if (state.find !== '') put('find', state.find.slice(0, MAX_FIND));
  // The token is letters, digits and ':' only: written as it is, so the link reads color=branch:16777216.
  if (state.colorBy.kind !== 'stage') parts.push(`color=${colorByKey(state.colorBy)}`);
  if (state.name !== null) put('name', state.name.slice(0, MAX_NAME));
  return parts.join('&');
}

const wholeNumber = (s: string): number | null => (/^\d{1,10}$/.test(s) ? Number(s) : null);

/** Reads a hash ('#…' or '…'); unknown keys are someone else's and left alone. */
export function parseViewLink(hash: string): ParsedViewLink {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const fields = new Map<string, string>();
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq);
    if (!(KEYS as readonly string[]).includes(key)) continue;
    try {
      fields.set(key, decodeURIComponent(part.slice(eq + 1)));
    } catch {
      fields.set(key, '\u0000'); // malformed %-escape: fails its check below
    }
  }
  if (fields.size === 0) return { state: null, problems: [] };
  const problems: string[] = [];
  const fp = fields.get('fp');
  const fingerprint = fp !== undefined && /^[0-9a-z]{1,32}$/.test(fp) ? fp : null;
  if (fp !== undefined && fingerprint === null) problems.push('fp (not a fingerprint)');
  const nameField = fields.get('name');
  const name = nameField !== undefined && nameField !== '\u0000' ? nameField.slice(0, MAX_NAME) : null;
  let view: TimeWindow | null = null;
  const t = fields.get('t');
  if (t !== undefined) {
    const m = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(t);
    const startNs = m ? Number(m[1]) : NaN;
    const endNs = m ? Number(m[2]) : NaN;
    if (Number.isFinite(startNs) && Number.isFinite(endNs) && endNs > startNs) view = { startNs, endNs };
    else problems.push('t (not a start,end time window)');
  }
  let expandedSms: number[] = [];
  const sm = fields.get('sm');
  if (sm !== undefined && sm !== '') {
    const ids = sm.split(',').map(wholeNumber);
    if (ids.length <= MAX_LANES && ids.every((v) => v !== null && v < 65535)) expandedSms = [...new Set(ids as number[])];
    else problems.push('sm (not a list of SM ids)');
  }
  const index = (key: string): number => {
    const v = fields.get(key);
    if (v === undefined) return -1;
    const n = wholeNumber(v);
    if (n === null) problems.push(`${key} (not an index)`);
    return n ?? -1;
  };
  const selectedDraw = index('draw');
  const selectedWarp = index('warp');
  const findField = fields.get('find');
  let find = '';
  if (findField !== undefined) {
    if (findField.length <= MAX_FIND && !/[\u0000-\u001f]/.test(findField)) find = findField;
    else problems.push('find (too long or not text)');
  }
  const colorField = fields.get('color');
  const colorBy = colorField === undefined ? COLOR_BY_STAGE : parseColorBy(colorField);
  if (colorBy === null) problems.push('color (not stage, lanes, draw, pass, duration, sm or branch:MARK)');
  return { state: { fingerprint, name, view, expandedSms, selectedDraw, selectedWarp, find, colorBy: colorBy ?? COLOR_BY_STAGE }, problems };
}

/** What of a link fits the trace it is applied to. */
export interface CheckedViewLink {
  readonly state: ViewLinkState;
  /** Fields dropped because the trace has no such thing. */
  readonly problems: readonly string[];
}

/**
 * Drops the fields that do not fit `trace`: a window outside the capture, SMs without a
 * lane, a draw or warp past the end, a branch on a mark the trace does not have. `laneSms`: the SMs that have a lane; `bounds`: the
 * capture's time span.
 */
export function checkViewLink(state: ViewLinkState, trace: Trace, laneSms: ReadonlySet<number>, bounds: TimeWindow): CheckedViewLink {
  const problems: string[] = [];
  let view = state.view;
  if (view !== null && (view.endNs <= bounds.startNs || view.startNs >= bounds.endNs)) {
    problems.push('the time window (outside the capture)');
    view = null;
  }
  const expandedSms = state.expandedSms.filter((sm) => laneSms.has(sm));
  if (expandedSms.length < state.expandedSms.length) problems.push(`SM lanes ${state.expandedSms.filter((sm) => !laneSms.has(sm)).join(', ')} (no such lane)`);
  let selectedDraw = state.selectedDraw;
  if (selectedDraw >= trace.draws.length) {
    problems.push(`draw ${selectedDraw} (the trace has ${trace.draws.length})`);
    selectedDraw = -1;
  }
  let selectedWarp = state.selectedWarp;
  if (selectedWarp >= trace.warps.count) {
    problems.push(`warp ${selectedWarp} (the trace has ${trace.warps.count.toLocaleString('en-US')})`);
    selectedWarp = -1;
  }
  let colorBy = state.colorBy;
  if (colorBy.kind === 'branch' && !(trace.marks?.id.includes(colorBy.mark) ?? false)) {
    problems.push(`color (the trace has no mark ${colorBy.mark})`);
    colorBy = COLOR_BY_STAGE;
  } else if (colorBy.kind === 'pass' && trace.regions.length === 0) {
    problems.push('color (the trace has no passes)');
    colorBy = COLOR_BY_STAGE;
  }
  return { state: { ...state, view, expandedSms, selectedDraw, selectedWarp, colorBy }, problems };
}

/**
 * The page URL for a view: `?trace=` set to `traceUrl` (removed when null), every other
 * query parameter kept, the hash replaced by the view's fields.
 */
export function viewLinkUrl(page: string, traceUrl: string | null, state: ViewLinkState): string {
  const url = new URL(page);
  // Written by hand, not by URLSearchParams: a trace URL stays readable (its '/' and ':' unescaped).
  const readable = (v: string) => encodeURIComponent(v).replace(/%2F/g, '/').replace(/%3A/g, ':');
  const params = [...url.searchParams].filter(([key]) => key !== 'trace').map(([key, value]) => `${encodeURIComponent(key)}=${readable(value)}`);
  if (traceUrl !== null) params.unshift(`trace=${readable(traceUrl)}`);
  url.search = params.length > 0 ? `?${params.join('&')}` : '';
  url.hash = encodeViewLink(state);
  return url.href;
}
