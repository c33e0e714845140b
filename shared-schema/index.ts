/**
 * warptrace's public API: the trace model, its file formats and validation.
 * Platform-neutral (no Node or DOM imports): the CLI, the analyses and the
 * viewer all use it.
 */
export * from './model.js';
export * from './stages.js';
export * from './errors.js';
export * from './raw-layout.js';
export { buildTrace, type TraceInput, type WarpInput } from './build.js';
export { MAX_TIME_NS, MAX_CYCLE_START } from './limits.js';
export { warpEndNs, activeLaneCount, popcount32, smIdPerWarp, smOfWarp, smGroupIndex } from './columns.js';
export { synthesizeTrace, makeRandom, type SyntheticOptions } from './synthetic.js';
export { decodeTrace, detectTraceKind, type TraceFileKind } from './decode.js';
export { encodeWtrace, decodeWtrace, isWtrace } from './wtrace.js';
export { decodeWtraw, encodeWtraw, isWtraw, wtrawToWtrace, type RawCapture, type RawDecodeOptions, type TraceHeader, type WtraceConversion } from './wtraw.js';
export { blockProfileOf, describeByMark, parseBlockMark, type BlockMark } from './block-profile.js';
export { traceFromJson, traceToJson, JSON_FORMAT, JSON_VERSION } from './json.js';
export { calibrate, type RawClocks, type CalibratedTimes, type ClockMode } from './calibrate.js';
export { rawCaptureOf, H100_CLOCKS, type RawClockModel, type SmClockTruth } from './synthetic-raw.js';
export { formatNs, formatRanges, formatSmRanges, knownSmCount } from './units.js';
export { DRAW_BOUNDS_TOLERANCE_NS, drawBoundsOfTrace } from './draw-bounds.js';
export { MAX_SAMPLE_EVERY, describeRates, describeSampling, rateStageCode, readSampling, sampleEveryByCode, sampleEveryOf, sampledStages } from './sampling.js';
export * from './position.js';
export * from './mark-layout.js';
export { placeMarks, splitMarks, type RawMarks, type SplitRecords } from './mark-raw.js';
export * from './ray-event-layout.js';
export * from './ray-event-model.js';
export { checkRayEventProfile, gridOfRow } from './ray-event-check.js';
