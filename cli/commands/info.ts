import { decodeTrace, describeSampling, detectTraceKind, formatNs, formatSmRanges, knownSmCount, sampleEveryOf, STAGES, type RayEventProfile, type StageName, type Trace } from '../../shared-schema/index.js';
import { countSe } from '../../analysis/sampled.js';
import { estimateText } from '../../analysis/export/sampling-report.js';
import { storedCapture, storedRegion } from '../../shared-schema/draw-details.js';
import { UsageError, parseCommandArgs, type Command } from '../command.js';
import { DECODE_OPTIONS, formatBytes, readInputFile } from '../files.js';
import { blockProfileLine } from '../../analysis/blocks.js';
import { skippedProfiles } from '../../analysis/block-skips.js';
import { markSummaryLine } from '../../analysis/marks.js';
import { formatTable } from '../table.js';
import { calibrationLines } from '../../analysis/calibration-quality.js';
import { smLabel, summarizeTrace, type TraceSummary } from '../trace-summary.js';
import type { DrawReorder } from '../../analysis/reorder.js';

export const infoCommand: Command = {
  name: 'info',
  summary: 'describe a trace: device, warps per stage / draw / SM, span, drops, calibration',
  help: `usage: warptrace info FILE [--json]

Prints what a trace holds: the device, warp counts per stage, per draw and per
SM, the time span, records written vs kept (dropped records are never hidden),
and how well the clocks were calibrated: residual RMS over the samples the fit
kept and over all samples (p99), the late share, the cross-check of lines
fitted on disjoint samples, the SM clock rate weighted by warps, and warps
outside their draw's GPU timestamps (files written before these were measured
say "unknown"; their draw check is made on reading). Captures made by the
Vulkan layer also list their labelled regions (the top-level ones), each
draw's call and region, and the work the layer could not trace, with the
draws that ran untraced and why, and the draws after pipeline barriers
the layer saw, with those barriers. A trace with a block profile (instrument
--blocks) says how many draws and blocks it covers (see warptrace blocks),
and lists the draws the layer traced without one, with why;
one with marks (wtMark, instrument --marks) how many, on how many warps, and
the orphans (see warptrace phases); one with ray events (instrument --ray-events)
how many trace-rays calls and launches they cover, their trace calls, and the
events the GPU could not count. Ray generation with shader execution reordering
gets a table of its warps before and after the reorder point and whether the device
re-formed them. FILE may be
.wtrace, .wtraw or JSON.

Options:
  --json   print the summary as JSON instead of text
  -h, --help

Exit status: 0 ok, 1 unreadable or invalid file, 2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const path = positionals[0]!;
    const bytes = readInputFile(path);
    const trace = decodeTrace(bytes, DECODE_OPTIONS);
    const summary = summarizeTrace(trace);
    if (values.json) {
      // Stored forms: the layer's record and the regions only when there are some, so older files print as they did.
      const regions = trace.regions.length > 0 ? { regions: trace.regions.map(storedRegion) } : {};
      io.out(JSON.stringify({ file: path, bytes: bytes.length, format: detectTraceKind(bytes), device: trace.device, capture: storedCapture(trace.capture), ...regions, summary }, null, 2));
    } else {
      io.out(formatInfo(path, bytes.length, detectTraceKind(bytes) ?? '?', trace, summary));
    }
    return 0;
  },
};

/** A sampled stage's recorded warps and the estimate of all its warps ("8,029 of ≈ 64,232 ± 2,100, 1 in 8"). */
function stageWarps(trace: Trace, stage: string, recorded: number): number | string {
  const every = sampleEveryOf(trace.capture.sampling, stage as StageName);
  if (every === 1) return recorded;
  return `${recorded.toLocaleString('en-US')} of ${estimateText(recorded * every, countSe(recorded, every))}, 1 in ${every}`;
}

function formatInfo(path: string, size: number, kind: string, trace: Trace, s: TraceSummary): string {
  const d = trace.device;
  const c = trace.capture;
  const clocks = d.clocks;
  const out: string[] = [];
  const row = (label: string, text: string) => out.push(`${label.padEnd(12)}${text}`);
  row('file', `${path} (${formatBytes(size)}, .${kind}${s.warps > 0 ? `, ${(size / s.warps).toFixed(1)} B/warp` : ''})`);
  const api = [d.api && `${d.api} ${d.apiVersion}`.trim(), d.driverVersion && `driver ${d.driverVersion}`].filter(Boolean).join(', ');
  row('device', `${d.name}${api ? ` (${api})` : ''}`);
  row('', `${d.smCount ?? '?'} SMs × ${d.warpsPerSm ?? '?'} warp slots, subgroup ${d.subgroupSize}, SM builtins ${d.smBuiltins ? 'yes' : 'no'}`);
  row('', `subgroup ops in: ${d.subgroupStages.length > 0 ? d.subgroupStages.join(' ') : 'none'} (other stages record once per invocation)`);
  const clockParts = [
    clocks.smClock ? 'SM clock' : null,
    clocks.deviceClock ? `device clock${clocks.deviceClockGranularityNs !== null ? ` (step ${clocks.deviceClockGranularityNs} ns)` : ''}` : null,
    // The fitted rate is in the calibration lines (warp-weighted, with its range); files before it stored a median.
    clocks.smClockRateHz !== null && s.calibration.smClockHz === null ? `SM clock ≈ ${(clocks.smClockRateHz / 1e9).toFixed(3)} GHz` : null,
  ].filter((p): p is string => p !== null);
  row('clocks', clockParts.length > 0 ? clockParts.join(', ') : 'times given by the producer');
  row('capture', `${c.workload || '(unnamed)'} by ${c.tool} ${c.toolVersion}${c.capturedAt ? ` at ${c.capturedAt}` : ''}`);
  const params = Object.entries(c.parameters);
  if (params.length > 0) row('', params.map(([k, v]) => `${k}=${String(v)}`).join(' '));
  row('records', `${s.recordsWritten.toLocaleString('en-US')} written, ${s.recordsKept.toLocaleString('en-US')} kept, ${s.dropped.toLocaleString('en-US')} dropped${s.dropped > 0 ? ' (buffer full: increase its capacity)' : ''} — buffer ${c.bufferCapacity.toLocaleString('en-US')}`);
  const cal = s.calibration;
  calibrationLines(cal, s.warps).forEach((line, k) => row(k === 0 ? 'calibration' : '', line));
  // The decoder's sentence says why a capture is not aligned, or what was assumed without a fit.
  if (cal.note && (!cal.alignedAcrossSms || cal.method !== 'per-sm-fit')) row('', cal.note);
  if (s.spanNs !== null) row('span', `${formatNs(s.spanNs.start)} – ${formatNs(s.spanNs.end)} (${formatNs(s.spanNs.end - s.spanNs.start)}), ${s.warps.toLocaleString('en-US')} warps, ${trace.draws.length} draws`);
  if (c.overhead !== null) {
    const o = c.overhead;
    row('overhead', `traced ${formatNs(o.tracedFrameNs)} vs plain ${formatNs(o.plainFrameNs)} per frame: ${(o.tracedFrameNs / o.plainFrameNs).toFixed(3)}× (${o.frames} frames each)`);
  }
  // Only for sampled traces (issue 25): the text of any other file is unchanged.
  if (c.sampling !== null) row('sampled', `${describeSampling(c.sampling)}: warp counts below are recorded warps, ≈ the stage's estimate`);
  layerLines(trace).forEach(([label, text]) => row(label, text));
  // Only for traces with a block profile: the text of any other file is unchanged.
  if (trace.blocks != null) row('blocks', blockProfileLine(trace.blocks));
  // The same for marks (wtMark, instrument --marks).
  if (trace.marks != null) row('marks', markSummaryLine(trace.marks));
  // And for ray events (instrument --ray-events).
  if (trace.rayEvents != null) row('ray events', rayEventLine(trace.rayEvents));
  out.push('', 'Warps per stage');
  out.push(
    formatTable(
      ['stage', 'warps', 'SMs', 'on SMs', 'warp-time', 'mean'],
      s.stages.map((st) => [st.stage, stageWarps(trace, st.stage, st.warps), knownSmCount(st.sms), formatSmRanges(st.sms), formatNs(st.totalWarpNs), formatNs(st.totalWarpNs / st.warps)]),
    ),
  );
  // A sampled capture's tables below count what was recorded (the header's sampled line says so).
  const recorded = c.sampling !== null ? ' (recorded warps)' : '';
  out.push('', `Warps per draw${recorded}`);
  // Call and region columns only for captures that recorded them: the table of any other file is unchanged.
  const withCalls = s.draws.some((dr) => dr.call !== undefined || dr.region !== undefined);
  out.push(
    formatTable(
      ['#', 'label', 'kind', ...(withCalls ? ['call', 'region'] : []), 'warps', 'stages', 'warps span', 'GPU timestamps'],
      s.draws.map((dr) => [
        dr.index,
        dr.label,
        dr.kind,
        ...(withCalls ? [dr.call ?? '-', dr.region ?? '-'] : []),
        dr.untraced !== undefined ? `${dr.warps} (untraced)` : dr.warps,
        dr.stages.join(' '),
        dr.firstStartNs === null ? '-' : `${formatNs(dr.firstStartNs)} – ${formatNs(dr.lastEndNs!)}`,
        dr.gpuBeginNs === null ? '-' : `${formatNs(dr.gpuBeginNs)} – ${formatNs(dr.gpuEndNs!)}`,
      ]),
    ),
  );
  if (s.reorders !== undefined) out.push('', ...reorderLines(s.reorders));
  const stageNames = STAGES.filter((st) => s.stages.some((x) => x.stage === st.name)).map((st) => st.name);
  out.push('', `Warps per SM (${s.sms.length} SMs ran warps${d.smCount !== null ? ` of ${d.smCount}` : ''})${recorded}`);
  out.push(formatTable(['SM', 'warps', ...stageNames], s.sms.map((sm) => [smLabel(sm.sm), sm.warps, ...stageNames.map((n) => sm.byStage[n] ?? 0)])));
  return out.join('\n');
}

/** One line on a ray-event profile: what it covers, and what went uncounted (never hidden). */
function rayEventLine(p: RayEventProfile): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const launches = p.rows.reduce((sum, r) => sum + r.launches, 0);
  const traceCalls = p.rows.reduce((sum, r) => sum + r.totals.traceCalls, 0);
  const parts = [`${n(p.rows.length)} trace-rays call${p.rows.length === 1 ? '' : 's'} profiled (${n(launches)} launch${launches === 1 ? '' : 'es'}), ${n(traceCalls)} trace calls`];
  if (p.unprofiledLaunches > 0) parts.push(`${n(p.unprofiledLaunches)} call${p.unprofiledLaunches === 1 ? '' : 's'} without a row (table full)`);
  if (p.dropped > 0) parts.push(`${n(p.dropped)} events dropped (a launch too large for a row, or a row past the table)`);
  if (p.uncountedTraversals > 0) parts.push(`${n(p.uncountedTraversals)} traversals without useless any-hit counts`);
  return parts.join(', ');
}

/** What each draw's reorder point did to its ray-generation warps (analysis/reorder.ts). */
function reorderLines(reorders: readonly DrawReorder[]): string[] {
  const px = (v: number | null) => (v === null ? '-' : `${v} px`);
  const lanes = (n: number, warps: number) => (warps === 0 ? '-' : (n / warps).toFixed(1));
  const table = formatTable(
    ['draw', 'side', 'warps', 'lanes/warp', 'mean', 'footprint median', 'p90'],
    reorders.flatMap((r) =>
      (
        [
          ['before', r.before],
          ['after', r.after],
        ] as const
      ).map(([name, x]) => [r.draw, name, x.warps, lanes(x.lanes, x.warps), x.warps === 0 ? '-' : formatNs(x.warpNs / x.warps), px(x.footprintMedianPx), px(x.footprintP90Px)]),
    ),
  );
  const verdicts = reorders.map((r) => {
    if (r.kept === null) return `draw ${r.draw}: no screen positions, so whether warps were re-formed is unknown`;
    const share = `${r.kept.toLocaleString('en-US')} of ${r.after.warps.toLocaleString('en-US')} warps after the reorder (${((100 * r.kept) / r.after.warps).toFixed(1)}%) have the very lanes of a warp before it`;
    return `draw ${r.draw}: ${share}: ${r.verdict === 'kept' ? 'the device did not re-form the warps' : 'the device re-formed the warps'}`;
  });
  return ['Shader execution reordering (ray generation before the reorder point: RAYGEN; after it: RAYGEN_REORDERED)', table, ...verdicts];
}

/** Top-level regions and skipped work listed in full up to this many, then counted. */
const LISTED = 12;

/** What the capture layer recorded: its regions (the top-level ones named) and what it could not trace. None for other captures. */
function layerLines(trace: Trace): [string, string][] {
  const lines: [string, string][] = [];
  const regions = trace.regions;
  if (regions.length > 0) {
    const top = regions.filter((r) => r.parent === null);
    const named = top.slice(0, LISTED).map((r) => r.label || `region ${r.index}`);
    const more = top.length > LISTED ? `, … ${top.length - LISTED} more` : '';
    lines.push(['regions', `${regions.length.toLocaleString('en-US')} labelled regions, ${top.length.toLocaleString('en-US')} at the top level: ${named.join(', ')}${more}`]);
  }
  const layer = trace.capture.layer;
  if (layer !== null) {
    const scope = layer.frame !== null ? `frame ${layer.frame}` : layer.submits !== null ? `submits ${layer.submits}` : 'scope not recorded';
    lines.push(['layer', `version ${layer.version || '?'}, ${scope}, descriptor set ${layer.set}`]);
    // Warps of skipped work are missing from the trace: say so rather than let the counts look complete.
    if (layer.skipped.length === 0) lines.push(['', 'Not traced: nothing (the layer skipped no work)']);
    for (const item of layer.skipped.slice(0, LISTED)) lines.push(['', `Not traced: ${item.what} (${item.why})`]);
    if (layer.skipped.length > LISTED) lines.push(['', `Not traced: … ${layer.skipped.length - LISTED} more`]);
    // Notes miss no warp (what the layer changed below the app, what it could not learn): told apart from skipped work.
    for (const item of layer.notes.slice(0, LISTED)) lines.push(['', `Note: ${item.what} (${item.why})`]);
    if (layer.notes.length > LISTED) lines.push(['', `Note: … ${layer.notes.length - LISTED} more`]);
  }
  const of = (n: number) => `${n.toLocaleString('en-US')} of ${trace.draws.length.toLocaleString('en-US')} draws`;
  // Draws that ran untraced are draws of the trace without warps: each named with why.
  const untraced = trace.draws.filter((d) => d.untraced !== null);
  listDraws(lines, 'untraced', `${of(untraced.length)} ran untraced (no warps; call, counts and timestamps kept)`, untraced, (d) => `#${d.index} ${d.label}: ${d.untraced}`);
  // Traced draws the layer gave no block profile (asked for with --blocks): their warps are here, their block counts not.
  const unprofiled = skippedProfiles(trace.draws);
  listDraws(lines, 'unprofiled', `${of(unprofiled.length)} traced without a block profile (warps kept, no block counts)`, unprofiled, (s) => `#${s.draw} ${s.label}: ${s.why}`);
  // The pipeline barriers the capture layer saw before draws: what a sync's remedy names.
  const barriered = trace.draws.filter((d) => d.barriersBefore != null && d.barriersBefore.length > 0);
  listDraws(lines, 'barriers', `${of(barriered.length)} follow pipeline barriers or event waits`, barriered, (d) => `#${d.index} ${d.label}: after ${d.barriersBefore!.join(', ')}`);
  return lines;
}

/** A `key` line saying `summary`, then the first LISTED items a line each and how many more: nothing when there are none. */
function listDraws<T>(lines: [string, string][], key: string, summary: string, items: readonly T[], line: (item: T) => string): void {
  if (items.length === 0) return;
  lines.push([key, summary]);
  for (const item of items.slice(0, LISTED)) lines.push(['', line(item)]);
  if (items.length > LISTED) lines.push(['', `… ${items.length - LISTED} more`]);
}
