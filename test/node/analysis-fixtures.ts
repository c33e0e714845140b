/** Known-answer traces for the analysis tests, built from plain warp lists through buildTrace. */
import { buildTrace, Stage, UNKNOWN_SLOT, type DrawInfo, type DrawInput, type Trace } from '../../shared-schema/index.js';

export interface WarpSpec {
  readonly sm: number;
  readonly slot?: number;
  readonly stage: keyof typeof Stage;
  readonly draw: number;
  readonly start: number;
  readonly end: number;
  readonly custom?: number;
  readonly mask?: number;
}

export interface TraceSpec {
  readonly warps: readonly WarpSpec[];
  /** Draw count (labels "draw N") or explicit draws. */
  readonly draws: number | readonly Partial<DrawInfo>[];
  readonly aligned?: boolean;
  readonly smCount?: number | null;
  readonly warpsPerSm?: number | null;
  readonly recordsWritten?: number;
  readonly subgroupSize?: number;
}

export function traceOf(spec: TraceSpec): Trace {
  const drawList: DrawInput[] =
    typeof spec.draws === 'number'
      ? Array.from({ length: spec.draws }, (_, i) => ({ index: i, label: `draw ${i}`, kind: 'draw', gpuBeginNs: null, gpuEndNs: null }))
      : spec.draws.map((d, i) => ({ index: i, label: d.label ?? `draw ${i}`, kind: d.kind ?? 'draw', gpuBeginNs: d.gpuBeginNs ?? null, gpuEndNs: d.gpuEndNs ?? null }));
  const w = spec.warps;
  const sub = spec.subgroupSize ?? 32;
  const full = sub >= 32 ? 0xffffffff : 2 ** sub - 1;
  return buildTrace({
    device: {
      name: 'Test GPU',
      vendor: 'test',
      vendorId: null,
      deviceId: null,
      api: 'synthetic',
      apiVersion: '',
      driverVersion: '',
      smCount: spec.smCount === undefined ? 132 : spec.smCount,
      warpsPerSm: spec.warpsPerSm === undefined ? 64 : spec.warpsPerSm,
      subgroupSize: sub,
      subgroupStages: ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'],
      smBuiltins: true,
      clocks: { smClock: false, deviceClock: false, deviceClockNsPerTick: null, deviceClockGranularityNs: null, smClockRateHz: null, timestampPeriodNs: null },
    },
    capture: {
      tool: 'test',
      toolVersion: '1',
      capturedAt: '2026-01-01T00:00:00.000Z',
      workload: 'known-answer',
      parameters: {},
      bufferCapacity: Math.max(w.length, spec.recordsWritten ?? 0),
      recordsWritten: spec.recordsWritten ?? w.length,
      recordsKept: w.length,
      originDeviceNs: null,
      calibration: {
        method: spec.aligned === false ? 'sm-clock-rebased' : 'given',
        alignedAcrossSms: spec.aligned !== false,
        note: spec.aligned === false ? 'each SM rebased to its first warp' : 'test times',
        perSm: [],
      },
      overhead: null,
    },
    draws: drawList,
    warps: {
      startNs: w.map((x) => x.start),
      endNs: w.map((x) => x.end),
      sm: w.map((x) => x.sm),
      warpSlot: w.map((x) => x.slot ?? UNKNOWN_SLOT),
      stage: w.map((x) => Stage[x.stage]),
      draw: w.map((x) => x.draw),
      customId: w.map((x, i) => x.custom ?? i),
      activeMask: w.map((x) => x.mask ?? full),
    },
  });
}

/** `count` back-to-back warps per slot on `slots` slots of one SM: dense normal traffic. */
export function denseTraffic(opts: {
  sm: number;
  slots: number;
  perSlot: number;
  stage: keyof typeof Stage;
  draw: number;
  start: number;
  durationNs: number;
  gapNs?: number;
}): WarpSpec[] {
  const out: WarpSpec[] = [];
  for (let s = 0; s < opts.slots; s++) {
    let t = opts.start + s * 3; // staggered like a real launch
    for (let k = 0; k < opts.perSlot; k++) {
      out.push({ sm: opts.sm, slot: s, stage: opts.stage, draw: opts.draw, start: t, end: t + opts.durationNs });
      t += opts.durationNs + (opts.gapNs ?? 10);
    }
  }
  return out;
}
