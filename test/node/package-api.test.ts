// The documented API is importable by package name (self-reference through "exports").
import { test } from 'node:test';
import assert from 'node:assert/strict';

test("import 'warptrace' gives read, write and build functions", async () => {
  const api = await import('warptrace');
  const trace = api.buildTrace({
    device: {
      name: 'test GPU', vendor: '', vendorId: null, deviceId: null, api: 'test', apiVersion: '', driverVersion: '',
      smCount: 2, warpsPerSm: 4, subgroupSize: 32, subgroupStages: ['CS'], smBuiltins: true,
      clocks: { smClock: false, deviceClock: true, deviceClockNsPerTick: 1, deviceClockGranularityNs: null, smClockRateHz: null, timestampPeriodNs: 1 },
    },
    capture: {
      tool: 'test', toolVersion: '1', capturedAt: '', workload: 'w', parameters: {}, bufferCapacity: 2,
      recordsWritten: 3, recordsKept: 2, originDeviceNs: null, overhead: null,
      calibration: { method: 'given', alignedAcrossSms: true, note: '', perSm: [] },
    },
    draws: [{ index: 0, label: 'd', kind: 'dispatch', gpuBeginNs: 0, gpuEndNs: 100 }],
    warps: { startNs: [50, 10], endNs: [60, 40], sm: [1, 0], warpSlot: [0, 3], stage: [5, 5], draw: [0, 0], customId: [1, 2], activeMask: [1, 3] },
  });
  // Canonical order: SM 0's warp first.
  assert.deepEqual(Array.from(trace.warps.startNs), [10, 50]);
  const back = api.decodeTrace(api.encodeWtrace(trace));
  assert.deepEqual(Array.from(back.warps.customId), [2, 1]);
  assert.equal(back.capture.recordsWritten - back.capture.recordsKept, 1);
});
