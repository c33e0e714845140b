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
 *   region slices (parents contain their children).
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
import { ProtoBuffer, put, size, utf8Bytes } from './protobuf.js';

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
  /** Bytes written. */
  readonly bytes: number;
}

// Field numbers, from protos/perfetto/trace/ (see test/node/fixtures/perfetto-trace.proto).
const TRACE_PACKET = 1;
const P_TIMESTAMP = 8;
const P_CLOCK_ID = 58;
const P_SEQ = 10;
const P_SEQ_FLAGS = 13;
const P_INTERNED = 12;
const P_DEFAULTS = 59;
const P_CLOCK_SNAPSHOT = 6;
const P_TRACK_EVENT = 11;
const P_TRACK_DESCRIPTOR = 60;
const SEQ_INCREMENTAL_STATE_CLEARED = 1;
const SEQ_NEEDS_INCREMENTAL_STATE = 2;
const CLOCK_BOOTTIME = 6;
/** Sequence-scoped clock ids are 64..127; 64 is what the Perfetto SDK uses for incremental timestamps. */
const CLOCK_INCREMENTAL = 64;
const TYPE_SLICE_BEGIN = 1;
const TYPE_SLICE_END = 2;

const GLOBAL_SEQ = 1;
const DRAWS_PID = 70000;
const REGIONS_PID = 70002;
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
  const spanTracks = (spans: readonly (Span | null)[], nest: ((outer: number, inner: number) => boolean) | null, pid: number, tidBase: number, process: string, lane: string) => {
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
          });
        });
      });
    });
  };
  const draws = drawSpans(trace);
  spanTracks(draws, null, DRAWS_PID, DRAWS_TID_BASE, 'Draws', 'draws');
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
      if (iid === undefined && !forced) {
        // A name new to this sequence: interned in the begin packet (by hand: with 'stage-draw' names this is most warps).
        iid = names.size + 1;
        names.set(key, iid);
        internedNames++;
        writeInternedBegin(out, s - laneLast[lane]!, seq, iid, nameOf(key));
        writeEnd(out, e - s, seq);
        laneLast[lane] = e;
      } else if (iid === undefined || forced) {
        // A forced lane (absolute times: its warps may go back in time).
        const fresh = iid === undefined;
        if (fresh) {
          iid = names.size + 1;
          names.set(key, iid);
          internedNames++;
        }
        const newIid = iid!;
        packet((p) => {
          if (forced) p.uint(P_CLOCK_ID, CLOCK_BOOTTIME);
          p.uint(P_TIMESTAMP, forced ? s : s - laneLast[lane]!);
          p.uint(P_SEQ, seq);
          if (fresh) {
            p.message(P_INTERNED, (d) => d.message(2, (n) => (n.uint(1, newIid), n.bytes(2, nameOf(key)))));
            p.uint(P_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
          }
          p.message(P_TRACK_EVENT, (t) => (t.uint(9, TYPE_SLICE_BEGIN), t.uint(10, newIid)));
        });
        if (forced) {
          packet((p) => {
            p.uint(P_CLOCK_ID, CLOCK_BOOTTIME);
            p.uint(P_TIMESTAMP, e);
            p.uint(P_SEQ, seq);
            p.message(P_TRACK_EVENT, (t) => t.uint(9, TYPE_SLICE_END));
          });
        } else {
          writeEnd(out, e - s, seq);
          laneLast[lane] = e;
        }
      } else {
        writeBeginEnd(out, s - laneLast[lane]!, e - s, seq, iid);
        laneLast[lane] = e;
      }
      if (out.pos >= chunkBytes) yield flush();
    }
  }
  if (out.pos > 0) yield flush();
  return { warps: w.count, lanes, slotOverlaps: warpLanes.slotOverlaps, forcedOverlaps: warpLanes.forcedOverlaps, internedNames, bytes };
}

/**
 * A lane's first packet: clears its sequence's incremental state (the id may
 * have served a lane of an earlier SM), makes the lane's track the default for
 * its events, and its timestamps deltas on clock 64, which a snapshot ties to
 * BOOTTIME (the trace clock) at 0: always 0, since the trace processor refuses
 * snapshots of one sequence whose BOOTTIME goes back, and a reused id's next
 * lane may start earlier. The lane's first delta is then its absolute start.
 */
function startSequence(out: ProtoBuffer, seq: number, uuid: number): void {
  out.message(TRACE_PACKET, (p) => {
    p.uint(P_TIMESTAMP, 0);
    p.uint(P_CLOCK_ID, CLOCK_BOOTTIME);
    p.message(P_CLOCK_SNAPSHOT, (c) => {
      c.message(1, (k) => (k.uint(1, CLOCK_INCREMENTAL), k.uint(2, 0), k.uint(3, 1)));
      c.message(1, (k) => (k.uint(1, CLOCK_BOOTTIME), k.uint(2, 0)));
    });
    p.uint(P_SEQ, seq);
    p.uint(P_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
    p.message(P_DEFAULTS, (d) => {
      d.uint(58, CLOCK_INCREMENTAL);
      d.message(11, (t) => t.uint(11, uuid));
    });
  });
}

/**
 * The common case, by hand: two packets {timestamp delta, sequence,
 * track_event {type, name_iid}} and {timestamp delta, sequence, track_event
 * {type}}. Every length fits one byte (at most 27).
 */
function writeBeginEnd(out: ProtoBuffer, gap: number, duration: number, seq: number, iid: number): void {
  out.ensure(80);
  const b = out.buf;
  let p = out.pos;
  const seqSize = size(seq);
  const eventSize = 3 + size(iid);
  b[p++] = 0x0a; // Trace.packet
  b[p++] = 1 + size(gap) + 1 + seqSize + 2 + eventSize;
  b[p++] = (P_TIMESTAMP << 3) | 0;
  p = put(b, p, gap);
  b[p++] = (P_SEQ << 3) | 0;
  p = put(b, p, seq);
  b[p++] = (P_TRACK_EVENT << 3) | 2;
  b[p++] = eventSize;
  b[p++] = (9 << 3) | 0; // type
  b[p++] = TYPE_SLICE_BEGIN;
  b[p++] = (10 << 3) | 0; // name_iid
  p = put(b, p, iid);
  out.pos = p;
  writeEnd(out, duration, seq);
}

/** A begin packet that also interns its name: {timestamp, sequence, interned_data {event_names {iid, name}}, sequence_flags, track_event}. */
function writeInternedBegin(out: ProtoBuffer, gap: number, seq: number, iid: number, name: Uint8Array): void {
  const nameSize = 1 + size(iid) + 1 + size(name.length) + name.length; // EventName
  const internedSize = 1 + size(nameSize) + nameSize; // InternedData
  const eventSize = 3 + size(iid);
  const body = 1 + size(gap) + 1 + size(seq) + 1 + size(internedSize) + internedSize + 2 + 2 + eventSize;
  out.ensure(body + 16);
  const b = out.buf;
  let p = out.pos;
  b[p++] = 0x0a;
  p = put(b, p, body);
  b[p++] = (P_TIMESTAMP << 3) | 0;
  p = put(b, p, gap);
  b[p++] = (P_SEQ << 3) | 0;
  p = put(b, p, seq);
  b[p++] = (P_INTERNED << 3) | 2;
  p = put(b, p, internedSize);
  b[p++] = (2 << 3) | 2; // event_names
  p = put(b, p, nameSize);
  b[p++] = (1 << 3) | 0; // iid
  p = put(b, p, iid);
  b[p++] = (2 << 3) | 2; // name
  p = put(b, p, name.length);
  b.set(name, p);
  p += name.length;
  b[p++] = (P_SEQ_FLAGS << 3) | 0;
  b[p++] = SEQ_NEEDS_INCREMENTAL_STATE;
  b[p++] = (P_TRACK_EVENT << 3) | 2;
  b[p++] = eventSize;
  b[p++] = (9 << 3) | 0;
  b[p++] = TYPE_SLICE_BEGIN;
  b[p++] = (10 << 3) | 0;
  p = put(b, p, iid);
  out.pos = p;
}

function writeEnd(out: ProtoBuffer, duration: number, seq: number): void {
  out.ensure(40);
  const b = out.buf;
  let p = out.pos;
  b[p++] = 0x0a;
  b[p++] = 1 + size(duration) + 1 + size(seq) + 4;
  b[p++] = (P_TIMESTAMP << 3) | 0;
  p = put(b, p, duration);
  b[p++] = (P_SEQ << 3) | 0;
  p = put(b, p, seq);
  b[p++] = (P_TRACK_EVENT << 3) | 2;
  b[p++] = 2;
  b[p++] = (9 << 3) | 0;
  b[p++] = TYPE_SLICE_END;
  out.pos = p;
}
