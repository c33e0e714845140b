/**
 * The Perfetto protobuf export's packets (perfetto-proto.ts): field numbers,
 * and the hand-written writers of the packets every warp makes (a varint at a
 * time into the chunk's buffer, no message objects: they are ~12 B each).
 */
import { ProtoBuffer, put, size } from './protobuf.js';

// Field numbers, from protos/perfetto/trace/ (see test/node/fixtures/perfetto-trace.proto).
export const TRACE_PACKET = 1;
export const P_TIMESTAMP = 8;
export const P_CLOCK_ID = 58;
export const P_SEQ = 10;
export const P_SEQ_FLAGS = 13;
export const P_INTERNED = 12;
export const P_DEFAULTS = 59;
export const P_CLOCK_SNAPSHOT = 6;
export const P_TRACK_EVENT = 11;
export const P_TRACK_DESCRIPTOR = 60;
export const SEQ_INCREMENTAL_STATE_CLEARED = 1;
export const SEQ_NEEDS_INCREMENTAL_STATE = 2;
export const CLOCK_BOOTTIME = 6;
/** Sequence-scoped clock ids are 64..127; 64 is what the Perfetto SDK uses for incremental timestamps. */
export const CLOCK_INCREMENTAL = 64;
export const TYPE_SLICE_BEGIN = 1;
export const TYPE_SLICE_END = 2;

/**
 * A lane's first packet: clears its sequence's incremental state (the id may
 * have served a lane of an earlier SM), makes the lane's track the default for
 * its events, and its timestamps deltas on clock 64, which a snapshot ties to
 * BOOTTIME (the trace clock) at 0: always 0, since the trace processor refuses
 * snapshots of one sequence whose BOOTTIME goes back, and a reused id's next
 * lane may start earlier. The lane's first delta is then its absolute start.
 */
export function startSequence(out: ProtoBuffer, seq: number, uuid: number): void {
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
 * A begin packet {timestamp delta, sequence, track_event {type, name_iid}},
 * by hand: with the end packet {timestamp delta, sequence, track_event
 * {type}} (writeEnd) the common warp. Every length fits one byte (at most 27).
 */
export function writeBegin(out: ProtoBuffer, gap: number, seq: number, iid: number): void {
  out.ensure(40);
  const b = out.buf;
  let p = out.pos;
  const eventSize = 3 + size(iid);
  b[p++] = 0x0a; // Trace.packet
  b[p++] = 1 + size(gap) + 1 + size(seq) + 2 + eventSize;
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
}

/** A begin packet that also interns its name: {timestamp, sequence, interned_data {event_names {iid, name}}, sequence_flags, track_event}. */
export function writeInternedBegin(out: ProtoBuffer, gap: number, seq: number, iid: number, name: Uint8Array): void {
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

export function writeEnd(out: ProtoBuffer, duration: number, seq: number): void {
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
