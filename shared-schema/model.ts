/**
 * The trace model: what every part of warptrace reads and writes.
 *
 * Warps are stored as columns (one typed array per field), never as one
 * object per warp. Rows are in canonical order: grouped by SM (ascending SM
 * id, unknown SM last), and by start time within a group, so each SM lane is
 * a contiguous, time-sorted range.
 */
import type { BlockProfile } from './block-model.js';
import type { MarkColumns } from './mark-model.js';
import type { RayEventProfile } from './ray-event-model.js';
import type { StageName } from './stages.js';

export type * from './block-model.js';
export { BLOCK_CLOCKS, BLOCK_COUNTINGS } from './block-model.js';
export type * from './mark-model.js';

/** Current major format version of the trace model and of .wtrace files. */
export const FORMAT_VERSION = 1;

/** Times are quantized to 1/TICKS_PER_NS ns (62.5 ps), which keeps them exact in float64. */
export const TICKS_PER_NS = 16;

/** SM id of warps recorded on devices without SM builtins. */
export const UNKNOWN_SM = 0xffff;
/** Warp slot of warps recorded on devices without warp-slot builtins. */
export const UNKNOWN_SLOT = 0xff;

/** An unsigned integer column, as narrow as its values allow. */
export type UintColumn = Uint8Array | Uint16Array | Uint32Array;

export interface ClockInfo {
  /** Shaders read the per-SM subgroup clock (SM cycles). */
  readonly smClock: boolean;
  /** Shaders read the device-wide realtime clock. */
  readonly deviceClock: boolean;
  /** ns per device-clock tick (1 on NVIDIA: it counts ns). */
  readonly deviceClockNsPerTick: number | null;
  /** Smallest step the device clock was seen to take, in ns (32 on the H100). */
  readonly deviceClockGranularityNs: number | null;
  /** Mean SM clock rate found by calibration, Hz. */
  readonly smClockRateHz: number | null;
  /** Vulkan timestampPeriod: ns per timestamp-query tick. */
  readonly timestampPeriodNs: number | null;
}

export interface DeviceInfo {
  readonly name: string;
  readonly vendor: string;
  readonly vendorId: number | null;
  readonly deviceId: number | null;
  /** 'vulkan', 'opengl', 'cuda', 'synthetic', ... */
  readonly api: string;
  readonly apiVersion: string;
  readonly driverVersion: string;
  /** SMs on the device (shaderSMCount), when the device reports it. */
  readonly smCount: number | null;
  /** Warp slots per SM (shaderWarpsPerSM), when the device reports it. */
  readonly warpsPerSm: number | null;
  /** Lanes per subgroup (warp). */
  readonly subgroupSize: number;
  /** Stages in which subgroup operations work; others record once per invocation. */
  readonly subgroupStages: readonly StageName[];
  /** Whether SM id and warp slot were recorded (VK_NV_shader_sm_builtins or similar). */
  readonly smBuiltins: boolean;
  readonly clocks: ClockInfo;
}

export type CalibrationMethod =
  /** Per-SM linear map from SM cycles to device ns, fitted on every record of that SM. */
  | 'per-sm-fit'
  /** Device clock read directly at warp start and end. */
  | 'device-clock'
  /** SM clock only: each SM rebased to its own first warp; SMs are not aligned. */
  | 'sm-clock-rebased'
  /** Times were given in ns by the producer (JSON import, synthetic traces). */
  | 'given';

/**
 * One line of an SM's clock map. An SM gets several when its clock may have
 * changed rate (after idle gaps) or drifted (long runs): entries of one SM are
 * in time order and cover fromNs..toNs.
 */
export interface SmCalibration {
  /** SM id, or UNKNOWN_SM for the single group of a device without SM builtins. */
  readonly sm: number;
  /** Records in this segment that carried a device-clock sample. */
  readonly samples: number;
  /** Of those, device-clock reads that came back late and were left out of the fit. */
  readonly lateSamples: number;
  /** 'linear': slope and offset fitted; 'offset-only': too few samples, slope borrowed. */
  readonly fit: 'linear' | 'offset-only' | 'rebased';
  /** Slope of the map, ns per SM cycle. */
  readonly nsPerCycle: number;
  /** ns (capture time) at cycle 0 of this SM's cycle columns. */
  readonly offsetNs: number;
  /** RMS of (device ns − fitted ns) over the samples, late reads excluded, ns. */
  readonly residualRmsNs: number;
  /** Largest |device ns − fitted ns|, ns (late reads excluded). */
  readonly residualMaxNs: number;
  /** Capture time covered by this line, ns. */
  readonly fromNs: number;
  readonly toNs: number;
}

export interface Calibration {
  readonly method: CalibrationMethod;
  /** True when warps on different SMs share one time base and can be compared. */
  readonly alignedAcrossSms: boolean;
  /** One sentence for humans: why aligned or not, what was assumed. */
  readonly note: string;
  readonly perSm: readonly SmCalibration[];
  /** How far the per-SM fit can be trusted (per-sm-fit only; absent or null: not measured, as in files written before it was). */
  readonly quality?: CalibrationQuality | null;
  /** Warps against their draws' GPU timestamps (absent or null: not checked, as in files written before it was). */
  readonly drawBounds?: DrawBoundsCheck | null;
}

/**
 * The per-SM fit measured where it can fail: residuals of every device-clock
 * sample against the line that placed its warps, late reads included, and
 * lines fitted on disjoint samples checked against each other.
 */
export interface CalibrationQuality {
  /** Device-clock samples (one per record). */
  readonly samples: number;
  /** Of those, left out as late reads (all of a segment's when it took another segment's line). */
  readonly lateSamples: number;
  /** RMS of (device ns − line) over the samples kept: the robust figure, ns. */
  readonly keptRmsNs: number;
  /** RMS and 99th percentile of |device ns − line| over all samples, late ones included, ns. */
  readonly allRmsNs: number;
  readonly allP99Ns: number;
  readonly crossCheck: CrossCheck;
}

/**
 * Cross-validation of the fit: each segment's line fitted on its earlier half
 * of samples against one fitted on its later half, and consecutive segments
 * of one SM where they meet (the SM's clock is one counter). On a true fit
 * they agree within the device clock's step.
 */
export interface CrossCheck {
  /** Largest disagreement that passes, ns. */
  readonly limitNs: number;
  readonly checks: number;
  /** Checks whose lines disagree by more than limitNs. */
  readonly failed: number;
  /** Largest disagreement found, ns (0 without checks), and the SM where it was (null: none). */
  readonly worstNs: number;
  readonly worstSm: number | null;
}

/** Warps against their draw's GPU timestamps (see DRAW_BOUNDS_TOLERANCE_NS in draw-bounds.ts). */
export interface DrawBoundsCheck {
  /** A warp lying further than this outside its draw's bounds counts as outside, ns. */
  readonly toleranceNs: number;
  /** Warps whose draw has timestamps (the others cannot be checked). */
  readonly checked: number;
  /** Warps further than toleranceNs outside their draw's bounds. */
  readonly outside: number;
  /** Largest distance any checked warp lies outside its draw's bounds, ns (0 when none is), and its draw (null: none). */
  readonly worstExcessNs: number;
  readonly worstDraw: number | null;
}

export type ParameterValue = string | number | boolean;

export interface CaptureInfo {
  readonly tool: string;
  readonly toolVersion: string;
  /** ISO 8601 time of the capture. */
  readonly capturedAt: string;
  /** Workload or application name. */
  readonly workload: string;
  /** Workload knobs and capture settings, for reproducing the capture. */
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  /** Records the GPU trace buffer could hold. */
  readonly bufferCapacity: number;
  /** Records the shaders tried to write (the atomic counter). */
  readonly recordsWritten: number;
  /** Records kept in this trace. dropped = recordsWritten − recordsKept. */
  readonly recordsKept: number;
  /** Device-clock ns (decimal string, exact) at capture time 0, when known. */
  readonly originDeviceNs: string | null;
  readonly calibration: Calibration;
  /** Instrumented vs plain frame time measured in the same run, when measured. */
  readonly overhead: Overhead | null;
  /** What the capture layer reported about itself (null: not captured by the layer, or a file written before it was stored). */
  readonly layer: LayerInfo | null;
  /** Which share of each stage's warps the capture recorded (null: every warp; see sampling.ts). */
  readonly sampling: WarpSampling | null;
}

/** Capture info as producers give it to buildTrace: files without a capture layer or sampling leave those out. */
export type CaptureInput = Omit<CaptureInfo, 'layer' | 'sampling'> & { readonly layer?: LayerInfo | null; readonly sampling?: WarpSampling | null };

/** Warp sampling (issue 25): a sampled stage holds fewer warps; analyses scale or withhold what needs every warp. */
export interface WarpSampling {
  /** One warp in every[stage] of that stage recorded; powers of two 1..32768; stages absent: 1 (all). */
  readonly every: Readonly<Partial<Record<StageName, number>>>;
  /** 'flag': the user's --sample; 'budget': chosen by --budget. */
  readonly chosenBy: 'flag' | 'budget';
  /** The budget asked for (traced/plain frame time, e.g. 1.10) when chosenBy is 'budget', else null. */
  readonly budget: number | null;
}

/** The capture layer's own record: which version captured, what, and what it could not trace. */
export interface LayerInfo {
  readonly version: string;
  /** Descriptor set the instrumented shaders used for the trace buffer. */
  readonly set: number;
  /** The captured frame (1-based), when a frame was captured. */
  readonly frame: number | null;
  /** The captured queue submits ("N..M", 0-based, inclusive), when submits were captured instead of a frame. */
  readonly submits: string | null;
  /** Work the layer ran untraced (a pipeline, a queue, a command buffer...), and why: its warps are missing from the trace. */
  readonly skipped: readonly SkippedWork[];
  /**
   * What the layer changed or could not learn while tracing every draw (e.g. the instance version it created below a
   * Vulkan 1.0 app): worth knowing, but no warp is missing for it. Absent in older files: [].
   */
  readonly notes: readonly SkippedWork[];
}

export interface SkippedWork {
  readonly what: string;
  readonly why: string;
}

export interface Overhead {
  /** Median GPU frame time without instrumentation, ns. */
  readonly plainFrameNs: number;
  /** Median GPU frame time with instrumentation, ns. */
  readonly tracedFrameNs: number;
  /** Frames timed of each kind. */
  readonly frames: number;
}

export type DrawKind = 'draw' | 'dispatch' | 'trace-rays';

/** The counts a draw or dispatch command carried, by Vulkan parameter name. */
export const DRAW_PARAM_NAMES = [
  'vertexCount',
  'instanceCount',
  'indexCount',
  'drawCount',
  'groupCountX',
  'groupCountY',
  'groupCountZ',
  'firstVertex',
  'firstInstance',
  'firstIndex',
  'vertexOffset',
] as const;
export type DrawParamName = (typeof DRAW_PARAM_NAMES)[number];
/** Only the parameters the call had (indirect calls carry only drawCount); uint32 values, vertexOffset an int32. */
export type DrawParams = Readonly<Partial<Record<DrawParamName, number>>>;

export interface DrawInfo {
  /** Position in Trace.draws; warps refer to draws by this index. */
  readonly index: number;
  readonly label: string;
  readonly kind: DrawKind;
  /** GPU timestamp-query bounds, ns since the capture origin, when queried. */
  readonly gpuBeginNs: number | null;
  readonly gpuEndNs: number | null;
  /** The command recorded ("vkCmdDrawIndexed"); null when unknown (every file written without a capture layer). */
  readonly call: string | null;
  /** The bound pipeline's debug name or "0x…" handle, when known. */
  readonly pipeline: string | null;
  /** Index into Trace.regions of the innermost region the draw lies in; null when in none or unknown. */
  readonly region: number | null;
  readonly params: DrawParams | null;
  /**
   * The pixel grid the draw's warp positions lie on (WarpColumns.position):
   * a graphics draw's render area, a trace-rays launch size, a dispatch's
   * grid in invocations; null when unknown.
   */
  readonly target: RenderTarget | null;
  /**
   * Why the draw ran untraced (its pipeline was skipped: "pipeline 0x…: its
   * layout uses …"), null when traced. An untraced draw has no warps; its
   * call, counts, region and timestamps are still the capture's.
   */
  readonly untraced: string | null;
  /**
   * Why a traced draw has no block profile although the capture asked for
   * one: the capture layer traced it without ("shaders VS 0x… + FS 0x…:
   * shader objects are traced without a block profile …"); null otherwise.
   * Its warps are in the trace, only its block counts are missing. Never
   * set together with `untraced`.
   */
  readonly unprofiled: string | null;
  /**
   * The pipeline barriers and event waits the capture layer saw the app record
   * between the frame's previous draw and this one, each as one line
   * ("vkCmdPipelineBarrier(COLOR_ATTACHMENT_OUTPUT → FRAGMENT_SHADER, 1 image)";
   * a last "+N more" counts those left out); null when none was recorded or
   * the trace predates the field.
   */
  readonly barriersBefore: readonly string[] | null;
}

/** Width and height of a draw's render target (or launch / dispatch grid), in pixels (invocations), each at least 1. */
export interface RenderTarget {
  readonly width: number;
  readonly height: number;
}

/**
 * A draw as producers give it to buildTrace: the call details and the
 * target may be left out (they read as null), so producers that know none
 * need not name them.
 */
export type DrawInput = Omit<DrawInfo, 'call' | 'pipeline' | 'region' | 'params' | 'target' | 'untraced' | 'unprofiled' | 'barriersBefore'> &
  Partial<Pick<DrawInfo, 'call' | 'pipeline' | 'region' | 'params' | 'target' | 'untraced' | 'unprofiled' | 'barriersBefore'>>;

/** Where a region came from: VK_EXT_debug_utils begin/end labels, or a render pass (or dynamic rendering) scope. */
export type RegionSource = 'debug-label' | 'render-pass';

/** A labelled span of the command stream; regions nest (a pass hierarchy). */
export interface RegionInfo {
  /** Position in Trace.regions, in the order the regions opened. */
  readonly index: number;
  readonly label: string;
  /** The enclosing region, always an earlier one (so there are no cycles); null at the top level. */
  readonly parent: number | null;
  readonly source: RegionSource;
}

/** A region as producers give it to buildTrace (its index is its position). */
export type RegionInput = Omit<RegionInfo, 'index'> & { readonly index?: number };

export interface SmGroups {
  /** SM id of each group, ascending; UNKNOWN_SM last when present. */
  readonly sm: Uint16Array;
  /** Row offsets: group g holds rows offsets[g] .. offsets[g+1]-1. Length groups+1. */
  readonly offsets: Uint32Array;
}

export interface WarpColumns {
  readonly count: number;
  /** Start, ns since the capture origin, a multiple of 1/TICKS_PER_NS. */
  readonly startNs: Float64Array;
  /** Duration, ns (end = start + duration). float32 keeps 7 significant digits. */
  readonly durationNs: Float32Array;
  /** Which rows belong to which SM (rows are grouped by SM). */
  readonly smGroups: SmGroups;
  /** Hardware warp slot on its SM, or UNKNOWN_SLOT. */
  readonly warpSlot: Uint8Array;
  /** StageCode. */
  readonly stage: Uint8Array;
  /** Index into Trace.draws. */
  readonly draw: UintColumn;
  /** Free-form id chosen by the shader (primitive id, workgroup id, ...). */
  readonly customId: UintColumn;
  /** Active lanes 0..31 (bit i = lane i). */
  readonly activeMask: UintColumn;
  /** Active lanes 32..63, only for subgroups wider than 32. */
  readonly activeMaskHi: Uint32Array | null;
  /** Raw SM-cycle start, relative to the SM's first warp; null when not recorded. */
  readonly smCycleStart: Float64Array | null;
  /** Raw SM-cycle duration; null when not recorded. */
  readonly smCycleDuration: Uint32Array | null;
  /**
   * Screen position word of each row (position.ts: footprint corner and
   * size on its draw's target), NO_POSITION for rows without one; null
   * when no warp of the trace has one.
   */
  readonly position: Uint32Array | null;
}

export interface Trace {
  readonly formatVersion: number;
  readonly device: DeviceInfo;
  readonly capture: CaptureInfo;
  readonly draws: readonly DrawInfo[];
  /** Labelled regions the draws lie in (empty when the capture recorded none). */
  readonly regions: readonly RegionInfo[];
  readonly warps: WarpColumns;
  /** Per basic block counts (`instrument --blocks`); absent (or null) when the capture had none, as in every older file. */
  readonly blocks?: BlockProfile | null;
  /** Marks inside warps (`wtMark`, `instrument --marks`; README "Marks"); absent (or null) when the capture had none, as in every older file. */
  readonly marks?: MarkColumns | null;
  /** Per launch pixel ray events of trace-rays calls (`instrument --ray-events`; README "Ray events"); absent (or null) when the capture had none. */
  readonly rayEvents?: RayEventProfile | null;
}
