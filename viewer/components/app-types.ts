// What <warptrace-app> knows about the open trace and how it was opened.
import type { Trace } from '../../shared-schema/index.js';
import type { CalibrationSummary } from '../../analysis/calibration-quality.js';
import type { LaneIndex } from '../model/lane-index.js';
import type { DrawLayout } from '../model/draw-layout.js';

export interface OpenedTrace {
  readonly trace: Trace;
  readonly index: LaneIndex;
  readonly drawLayout: DrawLayout;
  readonly name: string;
  readonly bytes: number;
  /** Longest warp, ns: bounds the look-back of cursor and range queries. */
  readonly maxDurationNs: number;
  /** What the header says about the clock calibration (made once: an older file's draw check reads every warp). */
  readonly calibration: CalibrationSummary;
}

/** How long opening the last trace took, ms. */
export interface OpenTimings {
  readonly totalMs: number;
  readonly readMs: number;
  readonly decodeMs: number;
  readonly indexMs: number;
  /** From the end of decoding to the first rendered frame (transfer, layout, first frame). */
  readonly firstFrameMs: number;
}

export interface OpenMeta {
  readonly name: string;
  readonly source: 'file' | 'url' | 'generated';
  readonly url: string | null;
  /** False: not added to Recent (the default sample opened on start). */
  readonly remember?: boolean;
  readonly file: Blob | null;
  /** The recent entry whose stored file this is, when reopened from Recent. */
  readonly reopened?: string;
}

/** `wt-trace-opened`'s detail: after the first frame of a newly opened trace. */
export interface TraceOpenedDetail {
  readonly name: string;
  readonly timings: OpenTimings;
  readonly source: OpenMeta['source'];
  /** The URL it came from (source 'url'), else null. */
  readonly url: string | null;
  /** False: opened on start (the default sample), not by the user. */
  readonly remember: boolean;
}
