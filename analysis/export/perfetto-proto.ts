/**
 * Perfetto's native protobuf trace (perfetto/trace/trace.proto), streamed as
 * byte chunks from the columnar arrays: a Chrome JSON export costs ~170 B per
 * warp and blocks a browser for a minute at 5 M warps; this costs ~25.
 *
 * Layout (what ui.perfetto.dev shows):
 * - a process track per SM ("SM n", pid n + 1) and a thread track per warp
 *   slot ("SM n / slot k"), as in the JSON export; warps overlapping their
 *   slot's previous warp, or without a slot, go to extra lanes the same way;
 * - one slice per warp (TrackEvent SLICE_BEGIN + SLICE_END) named by its
 *   stage (interned: an iid per warp); its draw is the Draws track's slice at
 *   that time. Details as debug annotations would cost 5-8 B each per warp
 *   (over the 25 B goal), so draw, customId and active lanes stay in the
 *   .wtrace and the JSON export. `warpNames: 'stage-draw'` names warps "FS
 *   draw 12" at ~36 B/warp (names are interned per lane sequence, see below);
 * - a "Draws" process with non-overlapping lanes of draw spans (first warp to
 *   last warp), and with regions, a "Regions" process whose lanes hold nested
 *   region slices (parents contain their children);
 * - with marks, each marked warp's phases as slices nested in its slice
 *   (perfetto-phases.ts); with block profiles or ray events, the draw slices'
 *   debug annotations `block_profile` (the draw's hottest lines) and
 *   `ray_events` (perfetto-args.ts); a sampled trace's "Sampled: FS 1 in 8
 *   …" process, one slice over the frame with the sampling as its debug
 *   annotations (perfetto-sampling.ts). A trace without them makes the same
 *   bytes as before they existed.
 *
 * Why it is small: every warp-slot lane is its own packet sequence while its
 * SM is written, as a Perfetto SDK thread writer would be (ids restart per SM,
 * so they take one byte). Its first packet clears the incremental
 * state, sets the defaults (track_event_defaults.track_uuid: no uuid per
 * event) and a sequence-scoped incremental clock (id 64: timestamps are deltas
 * from the previous packet, 1-3 bytes). Names are interned per sequence on
 * first use (InternedData.event_names). A warp is then two packets of ~12 B.
 * Event packets leave out SEQ_NEEDS_INCREMENTAL_STATE (2 B each): the trace
 * processor only reads that flag to drop packets after data loss, which a file
 * written in one go has none of.
 *
 * Timestamps are integer ns: Perfetto's clocks count whole ns at best
 * (ClockSnapshot.Clock.unit_multiplier_ns is an integer ≥ 1), so the trace's
 * 1/16 ns are rounded, as in the JSON export. They are ≥ 0, as uint64 needs:
 * the model has no warp before the capture origin (buildTrace refuses one).
 */
import { UNKNOWN_SM, type Trace } from '../../shared-schema/model.js';
import { STAGES, STAGE_COUNT } from '../../shared-schema/stages.js';
import { MAX_LANES, WarpLanes, laneName } from './warp-lanes.js';
import { drawSpans, isAncestor, laneEvents, regionSpans, spanLanes, type Span } from './perfetto-spans.js';
import { ProtoBuffer, utf8Bytes } from './protobuf.js';
import {
  CLOCK_BOOTTIME,
  P_CLOCK_ID,
  P_INTERNED,
  P_SEQ,
  P_SEQ_FLAGS,
  P_TIMESTAMP,
  P_TRACK_DESCRIPTOR,
  P_TRACK_EVENT,
  SEQ_INCREMENTAL_STATE_CLEARED,
  SEQ_NEEDS_INCREMENTAL_STATE,
  TRACE_PACKET,
  TYPE_SLICE_BEGIN,
  TYPE_SLICE_END,
  startSequence,
  writeBegin,
  writeEnd,
  writeInternedBegin,
} from './perfetto-packets.js';
import { drawArgs, writeDebugAnnotations, type ArgRecord } from './perfetto-args.js';
import { WarpPhases } from './perfetto-phases.js';
import { samplingTrack } from './perfetto-sampling.js';
import { blockSection, raySection } from '../trace-sections.js';

export interface PerfettoProtoOptions {
  /** Approximate bytes per yielded chunk (default 1 MiB). */
  readonly chunkBytes?: number;
  /**
   * Warp slice names: 'stage' ("FS", default) or 'stage-draw' ("FS draw 12").
   * Names are interned per lane sequence, so 'stage-draw' re-interns a name
   * each time a lane meets a new draw: ~36 B/warp instead of ~24 on traces
   * whose draws spread over every SM (bench/RESULTS.md).
   */
  readonly warpNames?: 'stage' | 'stage-draw';
  /**
   * Each marked warp's phases as slices nested in its own (perfetto-phases.ts;
   * default true, for a trace with marks): ~23 B a phase, so 16 marks a warp
   * make ~390 B a warp.
   */
  readonly phases?: boolean;
}

export interface PerfettoProtoStats {
  /** Warp slices written. */
  readonly warps: number;
  /** Warp lanes (Perfetto thread tracks), over all SMs. */
  readonly lanes: number;
  /** Warps moved to an extra lane because they overlapped their slot's previous warp. */
  readonly slotOverlaps: number;
  /** Warps that had to share the last lane (over 4096 in flight on one SM): their slices may not nest. */
  readonly forcedOverlaps: number;
  /** Names interned, summed over sequences. */
  readonly internedNames: number;
  /** Phase slices nested in warps (0 without marks). */
  readonly phaseSlices: number;
  /** Bytes written. */
  readonly bytes: number;
}

const GLOBAL_SEQ = 1;
const DRAWS_PID = 70000;
const REGIONS_PID = 70002;
const SAMPLING_PID = 70003;
const SAMPLING_TID_BASE = 330_000_000;
const DRAWS_TID_BASE = 300_000_000;
const REGIONS_TID_BASE = 320_000_000;
/** Uuids of process and span tracks; warp-lane tracks count from 2 (they appear only in descriptors and defaults). */
const UUID_BASE = 1 << 24;

export function* perfettoProtoChunks(trace: Trace, options: PerfettoProtoOptions = {}): Generator<Uint8Array, PerfettoProtoStats, undefined> {
  const chunkBytes = options.chunkBytes ?? 1 << 20;
  const out = new ProtoBuffer(chunkBytes + 4096);
  let bytes = 0;
  const flush = (): Uint8Array => {
    const chunk = out.take();
    bytes += chunk.length;
    return chunk;
  };
  const packet = (build: (p: ProtoBuffer) => void) => out.message(TRACE_PACKET, build);
  let nextUuid = UUID_BASE;
  const processTrack = (pid: number, name: string): number => {
    const uuid = nextUuid++;
    packet((p) => {
      p.uint(P_SEQ, GLOBAL_SEQ);
      p.message(P_TRACK_DESCRIPTOR, (t) => {
        t.uint(1, uuid);
        t.message(3, (d) => (d.uint(1, pid), d.string(6, name)));
      });
    });
    return uuid;
  };
  const threadTrack = (uuid: number, pid: number, tid: number, name: string) =>
    packet((p) => {
      p.uint(P_SEQ, GLOBAL_SEQ);
      p.message(P_TRACK_DESCRIPTOR, (t) => {
        t.uint(1, uuid);
        t.message(4, (d) => (d.uint(1, pid), d.uint(2, tid), d.string(5, name)));
      });
    });
  const w = trace.warps;
  const { startNs, durationNs, warpSlot, stage, draw } = w;

  // The global sequence: track descriptors, and draw and region slices with absolute times.
  packet((p) => (p.uint(P_SEQ, GLOBAL_SEQ), p.uint(P_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED)));
  let globalIid = 0;
  let internedNames = 0;
  const spanTracks = (
    spans: readonly (Span | null)[],
    nest: ((outer: number, inner: number) => boolean) | null,
    pid: number,
    tidBase: number,
    process: string,
    lane: string,
    args: ReadonlyMap<number, ArgRecord> | null = null,
  ) => {
    const lanes = spanLanes(spans, nest);
    if (lanes.length === 0) return;
    processTrack(pid, process);
    lanes.forEach((members, l) => {
      const uuid = nextUuid++;
      threadTrack(uuid, pid, tidBase + l, `${lane} ${l + 1}`);
      laneEvents(spans, members, (i, begin) => {
        const span = spans[i]!;
        const iid = begin ? ++globalIid : 0;
        if (begin) internedNames++;
        packet((p) => {
          p.uint(P_TIMESTAMP, begin ? span.start : span.end);
          p.uint(P_SEQ, GLOBAL_SEQ);
          if (begin) {
            p.message(P_INTERNED, (d) => d.message(2, (n) => (n.uint(1, iid), n.string(2, span.name))));
            p.uint(P_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
          }
          p.message(P_TRACK_EVENT, (e) => {
            e.uint(9, begin ? TYPE_SLICE_BEGIN : TYPE_SLICE_END);
            e.uint(11, uuid);
            if (begin) e.uint(10, iid);
            const a = begin ? args?.get(i) : undefined;
            if (a !== undefined) writeDebugAnnotations(e, a);
          });
        });
      });
    });
  };
  // A sampled trace says so above everything (perfetto-sampling.ts): its SM tracks hold 1 in N of a stage's warps.
  const sampled = samplingTrack(trace);
  if (sampled !== null) spanTracks([sampled.span], null, SAMPLING_PID, SAMPLING_TID_BASE, sampled.process, 'sampling', new Map([[0, sampled.args]]));
  const draws = drawSpans(trace);
  // Block profiles' hottest lines and ray-event totals as the draw slices' arguments (queryable in Perfetto's SQL).
  const args = trace.blocks != null || trace.rayEvents != null ? drawArgs(blockSection(trace), raySection(trace)) : null;
  spanTracks(draws, null, DRAWS_PID, DRAWS_TID_BASE, 'Draws', 'draws', args);
  if (trace.regions.length > 0) spanTracks(regionSpans(trace, draws), (o, i) => isAncestor(trace, o, i), REGIONS_PID, REGIONS_TID_BASE, 'Regions', 'regions');
  yield flush();

  // Warp names, built on first use: the stages (× draws) that occur.
  const withDraw = options.warpNames === 'stage-draw' ? 1 : 0;
  const nameBytes = new Map<number, Uint8Array>();
  const nameOf = (key: number): Uint8Array => {
    let b = nameBytes.get(key);
    if (b === undefined) {
      const stageName = STAGES[key % STAGE_COUNT]!.name;
      b = utf8Bytes(withDraw ? `${stageName} draw ${Math.floor(key / STAGE_COUNT)}` : stageName);
      nameBytes.set(key, b);
    }
    return b;
  };

  // Phases between marks, nested in their warps' slices.
  const phases = options.phases !== false && (trace.marks?.count ?? 0) > 0 ? new WarpPhases(trace.marks!) : null;
  const phaseNames = new Map<number, Uint8Array>();
  const phaseNameOf = (phaseKey: number): Uint8Array => {
    let b = phaseNames.get(phaseKey);
    if (b === undefined) phaseNames.set(phaseKey, (b = utf8Bytes(phases!.name(-1 - phaseKey))));
    return b;
  };
  let phaseSlices = 0;

  const laneSeq = new Uint32Array(MAX_LANES); // 0: lane not started on this SM
  const laneLast = new Float64Array(MAX_LANES); // the incremental clock's value
  const laneNames: (Map<number, number> | undefined)[] = new Array(MAX_LANES);
  const warpLanes = new WarpLanes();
  let nextLaneUuid = 2;
  let lanes = 0;
  const { sm: groupSm, offsets } = w.smGroups;
  for (let g = 0; g < groupSm.length; g++) {
    const sm = groupSm[g]!;
    const pid = sm + 1;
    const smName = sm === UNKNOWN_SM ? 'SM unknown' : `SM ${sm}`;
    processTrack(pid, smName);
    laneSeq.fill(0);
    // Sequence ids restart on each SM (its lanes' sequences start with a state clear): ids below 128 cost 1 byte per packet.
    let nextSeq = GLOBAL_SEQ + 1;
    laneNames.fill(undefined);
    warpLanes.startSm();
    const tidBase = (g + 1) * MAX_LANES;
    for (let i = offsets[g]!, last = offsets[g + 1]!; i < last; i++) {
      const s = Math.round(startNs[i]!);
      const e = Math.round(startNs[i]! + durationNs[i]!);
      const slot = warpSlot[i]!;
      const lane = warpLanes.assign(slot, s, e);
      const forced = warpLanes.forced;
      let seq = laneSeq[lane]!;
      if (seq === 0) {
        seq = laneSeq[lane] = nextSeq++;
        lanes++;
        const uuid = nextLaneUuid++;
        threadTrack(uuid, pid, tidBase + lane, laneName(smName, lane, slot));
        startSequence(out, seq, uuid);
        laneLast[lane] = 0;
        laneNames[lane] = new Map();
      }
      const names = laneNames[lane]!;
      const key = draw[i]! * withDraw * STAGE_COUNT + stage[i]!;
      let iid = names.get(key);
      if (!forced) {
        const gap = s - laneLast[lane]!;
        if (iid === undefined) {
          // A name new to this sequence: interned in the begin packet (by hand: with 'stage-draw' names this is most warps).
          iid = names.size + 1;
          names.set(key, iid);
          internedNames++;
          writeInternedBegin(out, gap, seq, iid, nameOf(key));
        } else {
          writeBegin(out, gap, seq, iid);
        }
        const n = phases === null ? 0 : phases.at(i);
        let t = s;
        for (let j = 0; j < n; j++) {
          // Phase names share the sequence's iids with the warps' names: their keys are negative.
          const phaseKey = -1 - phases!.key(j);
          let phaseIid = names.get(phaseKey);
          if (phaseIid === undefined) {
            phaseIid = names.size + 1;
            names.set(phaseKey, phaseIid);
            internedNames++;
            writeInternedBegin(out, 0, seq, phaseIid, phaseNameOf(phaseKey));
          } else {
            writeBegin(out, 0, seq, phaseIid);
          }
          const b = phases!.boundary(j, startNs[i]!, t, e);
          writeEnd(out, b - t, seq);
          t = b;
        }
        phaseSlices += n;
        writeEnd(out, e - t, seq);
        laneLast[lane] = e;
      } else {
        // A forced lane (absolute times: its warps may go back in time, so their phases would not nest: none are written).
        const fresh = iid === undefined;
        if (fresh) {
          iid = names.size + 1;
          names.set(key, iid);
          internedNames++;
        }
        const newIid = iid!;
        packet((p) => {
          p.uint(P_CLOCK_ID, CLOCK_BOOTTIME);
          p.uint(P_TIMESTAMP, s);
          p.uint(P_SEQ, seq);
          if (fresh) {
            p.message(P_INTERNED, (d) => d.message(2, (n) => (n.uint(1, newIid), n.bytes(2, nameOf(key)))));
            p.uint(P_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
          }
          p.message(P_TRACK_EVENT, (t) => (t.uint(9, TYPE_SLICE_BEGIN), t.uint(10, newIid)));
        });
        packet((p) => {
          p.uint(P_CLOCK_ID, CLOCK_BOOTTIME);
          p.uint(P_TIMESTAMP, e);
          p.uint(P_SEQ, seq);
          p.message(P_TRACK_EVENT, (t) => t.uint(9, TYPE_SLICE_END));
        });
      }
      if (out.pos >= chunkBytes) yield flush();
    }
  }
  if (out.pos > 0) yield flush();
  return { warps: w.count, lanes, slotOverlaps: warpLanes.slotOverlaps, forcedOverlaps: warpLanes.forcedOverlaps, internedNames, phaseSlices, bytes };
}
