/**
 * What `warptrace capture -- APP` tells the user: the summary of a written
 * capture, and why there is none when the app ended first.
 */
import type { TraceHeader } from '../../shared-schema/index.js';
import { oneLine } from '../../cli/command.js';
import { formatBytes } from '../../cli/files.js';
import type { HelloInfo } from '../layer-server/requests.js';
import type { ServerStats } from '../layer-server/server.js';
import { crashed, describeExit, type AppExit } from './app-process.js';
import { describeSelection, type CaptureSelection } from './app-environment.js';
import { describeRefused, type RefusedDevice } from './app-devices.js';
import { MAX_CAPACITY, capacityMemory } from './app-capacity.js';

/** What the layer's hellos and events told so far. */
export interface LayerProgress {
  readonly hellos: HelloInfo[];
  /** The frame whose capture started (0 when the layer did not say which); null: none started. */
  started: number | null;
  /** Frames (presents) the layer saw, when it said. */
  frames: number | null;
  readonly skipped: { readonly what: string; readonly why: string }[];
  /** What the layer changed or could not learn with every draw traced: told, never counted as missing warps. */
  readonly notes: { readonly what: string; readonly why: string }[];
  /** Devices the layer said it cannot trace (hello with "traceable": false, or a skipped "device NAME" without a hello). */
  readonly refused: readonly RefusedDevice[];
}

/** Skipped items listed one by one; the rest are counted. */
const SKIPPED_LISTED = 8;

/** Why nothing was captured when the app ended (or the timeout ended it) first. */
export function notCapturedMessage(progress: LayerProgress, selection: CaptureSelection, exit: AppExit | null): string {
  const how = exit === null ? '' : ` (${describeExit(exit)})`;
  // Only refused devices: their reason is why, not the layer's absence or the frame not reached.
  if (progress.refused.length > 0 && !progress.hellos.some((h) => h.device['traceable'] !== false)) {
    const refused = `the layer cannot trace ${describeRefused(progress.refused)}`;
    return exit === null ? refused : `nothing captured: ${refused}; the app exited${how}`;
  }
  if (progress.hellos.length === 0) {
    // The layer reports in when the app creates its device: a crash before that says nothing about whether it is a Vulkan app.
    if (exit !== null && crashed(exit)) return `the app ${describeExit(exit)} before the layer reported in (it does when the app creates its Vulkan device)`;
    // A failing exit is more often a Vulkan app whose own device creation failed (an extension the driver lacks) than
    // a program that is not one: say both, and where to look.
    if (exit !== null && exit.signal === null && exit.code !== 0)
      return `the app exited${how} before the layer reported in (it does when the app creates its Vulkan device): its own vkCreateDevice may have failed (see its output above), or it is not a Vulkan program`;
    // Some Vulkan apps exit 0 when they give up before their device (Vulkan-Samples, a device extension missing).
    return exit === null
      ? 'the layer never loaded: is the app a Vulkan program?'
      : `the app exited${how} before the layer reported in (it does when the app creates its Vulkan device): it is not a Vulkan program, or it stopped before creating its device (see its output above)`;
  }
  const target = describeSelection(selection);
  if (progress.started !== null) return `the app ${exit === null ? 'was ended' : `exited${how}`} during the capture of ${target}, before it was written`;
  const seen = progress.frames === null ? '' : ` after ${progress.frames} frame${progress.frames === 1 ? '' : 's'}`;
  const what = exit === null ? 'the app ran' : `the app exited${how}`;
  if (selection.submits !== null) return `${what}${seen}, before ${target}`;
  if (selection.trigger !== null && selection.frame === null) return `${what}${seen}; ${selection.trigger} never appeared`;
  return `${what}${seen}, before ${target}`;
}

export interface SummaryInput {
  readonly output: string;
  readonly size: number;
  readonly header: TraceHeader;
  readonly warpCount: number;
  readonly progress: LayerProgress;
  readonly stats: ServerStats;
  readonly selection: CaptureSelection;
  readonly raw: string | null;
  /** The buffer the run asked the layer for (records): one that holds less was cut to what the device holds. */
  readonly asked: number;
  /** What a second capture did (or why there was none), told after the records line; null: nothing to tell. */
  readonly retry?: string | null;
}

/** Why records were dropped and what would keep them, after "N dropped". */
function droppedAdvice(c: TraceHeader['capture'], asked: number): string {
  const holds = c.bufferCapacity.toLocaleString('en-US');
  const needs = c.recordsWritten.toLocaleString('en-US');
  const less = 'trace less with --draws, --stages or --sample';
  if (c.bufferCapacity < asked) return ` (the buffer holds ${holds}, the most this device can; the frame needs ${needs}: ${less})`;
  if (c.recordsWritten > MAX_CAPACITY) return ` (the buffer holds ${holds}; the frame needs ${needs}, more than the layer's most, ${MAX_CAPACITY.toLocaleString('en-US')}: ${less})`;
  return ` (the buffer holds ${holds}; the frame needs --capacity ${needs} or more, ${capacityMemory(c.recordsWritten)})`;
}

export function captureSummary(s: SummaryInput): string {
  const c = s.header.capture;
  const dropped = c.recordsWritten - c.recordsKept;
  const app = oneLine(s.progress.hellos[0]?.app ?? (c.workload || 'the app'));
  const lines = [
    `wrote ${s.output} (${formatBytes(s.size)}): ${app}, ${describeSelection(s.selection)}, on ${oneLine(s.header.device.name)}`,
    `  ${s.header.draws.length.toLocaleString('en-US')} draws, ${s.warpCount.toLocaleString('en-US')} warps, ` +
      `${c.recordsKept.toLocaleString('en-US')} records kept, ${dropped.toLocaleString('en-US')} dropped` +
      (dropped > 0 ? droppedAdvice(c, s.asked) : ''),
    ...(s.retry !== undefined && s.retry !== null ? [`  ${s.retry}`] : []),
    `  calibration ${c.calibration.method}, SMs aligned: ${c.calibration.alignedAcrossSms ? 'yes' : 'NO'}`,
    `  shaders: ${s.stats.instrumented} instrumented, ${s.stats.cacheHits} from the cache, ${s.stats.refused} refused`,
  ];
  const sample = s.selection.sample ?? null;
  if (sample !== null) lines.push(`  warps sampled: ${Object.entries(sample).map(([stage, n]) => `${stage} 1 in ${n}`).join(', ')} (counts and summed times are estimates; the recorded warps' times are real)`);
  if (s.progress.skipped.length > 0) {
    lines.push(`  not traced (${s.progress.skipped.length}; their warps are missing):`);
    for (const item of s.progress.skipped.slice(0, SKIPPED_LISTED)) lines.push(`    ${oneLine(item.what)}: ${oneLine(item.why)}`);
    if (s.progress.skipped.length > SKIPPED_LISTED) lines.push(`    ... and ${s.progress.skipped.length - SKIPPED_LISTED} more`);
  }
  for (const note of s.progress.notes.slice(0, SKIPPED_LISTED)) lines.push(`  note: ${oneLine(note.what)}: ${oneLine(note.why)}`);
  if (s.progress.notes.length > SKIPPED_LISTED) lines.push(`  ... and ${s.progress.notes.length - SKIPPED_LISTED} more notes`);
  if (s.raw !== null) lines.push(`  raw dump kept: ${s.raw}`);
  return lines.join('\n');
}
