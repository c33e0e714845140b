// Reads a Perfetto protobuf trace back the way Perfetto's trace processor
// does, for tests: decoded by protobufjs against Perfetto's field numbers
// (perfetto-trace.proto), then per sequence: incremental state, packet
// defaults, sequence-scoped incremental clocks, interned names, and a
// begin/end stack per track giving slices.
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { repoPath } from '../paths.js';

export interface Slice {
  readonly track: number;
  readonly name: string;
  readonly start: number;
  readonly end: number;
  /** Open slices on the track when it began. */
  readonly depth: number;
  /** The slice it lies in on its track (index into slices), or -1. */
  readonly parent: number;
  /**
   * Its begin event's debug annotations, flattened as the trace processor
   * files them in its args table: "debug.NAME", dict entries ".KEY", array
   * items "[i]" (empty without annotations).
   */
  readonly args: ReadonlyMap<string, ArgLeaf>;
}

export type ArgLeaf = number | string | boolean;

interface Annotation {
  name?: string;
  boolValue?: boolean;
  uintValue?: number;
  intValue?: number;
  doubleValue?: number;
  stringValue?: string;
  dictEntries?: Annotation[];
  arrayValues?: Annotation[];
}

const NO_ARGS: ReadonlyMap<string, ArgLeaf> = new Map();

function flatten(a: Annotation, key: string, into: Map<string, ArgLeaf>): void {
  const leaf = a.boolValue ?? a.uintValue ?? a.intValue ?? a.doubleValue ?? a.stringValue;
  if (leaf !== undefined) into.set(key, leaf);
  for (const e of a.dictEntries ?? []) flatten(e, `${key}.${e.name}`, into);
  (a.arrayValues ?? []).forEach((e, i) => flatten(e, `${key}[${i}]`, into));
}

export interface TrackInfo {
  readonly uuid: number;
  readonly pid: number | null;
  readonly tid: number | null;
  readonly name: string;
  readonly kind: 'process' | 'thread' | 'other';
}

export interface DecodedPerfetto {
  readonly packets: number;
  readonly tracks: Map<number, TrackInfo>;
  readonly slices: Slice[];
  /** EventName entries per sequence generation ("seq#n": the n-th state clear of sequence seq). */
  readonly internedPerSequence: Map<string, number>;
  /** Begin events that named their slice inline instead of by iid. */
  readonly inlineNames: number;
}

interface Packet {
  timestamp?: number;
  timestampClockId?: number;
  clockSnapshot?: { clocks?: { clockId?: number; timestamp?: number; isIncremental?: boolean }[] };
  trackEvent?: { type?: number; nameIid?: number; name?: string; trackUuid?: number; debugAnnotations?: Annotation[] };
  trackDescriptor?: { uuid?: number; name?: string; process?: { pid?: number; processName?: string }; thread?: { pid?: number; tid?: number; threadName?: string } };
  trustedPacketSequenceId?: number;
  internedData?: { eventNames?: { iid?: number; name?: string }[] };
  sequenceFlags?: number;
  tracePacketDefaults?: { timestampClockId?: number; trackEventDefaults?: { trackUuid?: number } };
}

let traceType: protobuf.Type | null = null;

export function decodePerfetto(bytes: Uint8Array): DecodedPerfetto {
  traceType ??= protobuf.loadSync(repoPath('test', 'node', 'perfetto', 'perfetto-trace.proto')).lookupType('perfetto.protos.Trace');
  const message = traceType.decode(bytes);
  const { packet } = traceType.toObject(message, { longs: Number, defaults: false }) as { packet?: Packet[] };
  const packets = packet ?? [];
  const tracks = new Map<number, TrackInfo>();
  const slices: Slice[] = [];
  const internedPerSequence = new Map<string, number>();
  interface SeqState {
    names: Map<number, string>;
    generation: string;
    clockId: number;
    track: number | null;
    clock: number | null;
  }
  const seqs = new Map<number, SeqState>();
  const generations = new Map<number, number>();
  const open = new Map<number, number[]>(); // per track, the open slices' indices
  const lastTs = new Map<number, number>();
  let inlineNames = 0;
  for (const p of packets) {
    const seqId = p.trustedPacketSequenceId ?? 0;
    assert.ok(seqId > 0, 'every packet names its sequence');
    let seq = seqs.get(seqId);
    if (seq === undefined || ((p.sequenceFlags ?? 0) & 1) !== 0) {
      seq = { names: new Map(), generation: `${seqId}#${(generations.get(seqId) ?? 0) + 1}`, clockId: 6, track: null, clock: null };
      generations.set(seqId, (generations.get(seqId) ?? 0) + 1);
      seqs.set(seqId, seq);
    }
    if (p.tracePacketDefaults !== undefined) {
      seq.clockId = p.tracePacketDefaults.timestampClockId ?? 6;
      seq.track = p.tracePacketDefaults.trackEventDefaults?.trackUuid ?? null;
    }
    for (const c of p.clockSnapshot?.clocks ?? []) {
      if (c.clockId === 64) {
        assert.equal(c.isIncremental, true);
        seq.clock = c.timestamp ?? 0;
      }
    }
    for (const n of p.internedData?.eventNames ?? []) {
      assert.ok(!seq.names.has(n.iid!), `iid ${n.iid} interned once on sequence ${seqId}`);
      seq.names.set(n.iid!, n.name!);
      internedPerSequence.set(seq.generation, (internedPerSequence.get(seq.generation) ?? 0) + 1);
    }
    const d = p.trackDescriptor;
    if (d !== undefined) {
      assert.ok(!tracks.has(d.uuid!), `track ${d.uuid} described once`);
      tracks.set(d.uuid!, {
        uuid: d.uuid!,
        pid: d.process?.pid ?? d.thread?.pid ?? null,
        tid: d.thread?.tid ?? null,
        name: d.process?.processName ?? d.thread?.threadName ?? d.name ?? '',
        kind: d.process ? 'process' : d.thread ? 'thread' : 'other',
      });
    }
    const e = p.trackEvent;
    if (e === undefined) continue;
    const clockId = p.timestampClockId ?? seq.clockId;
    let ts: number;
    if (clockId === 64) {
      assert.ok(seq.clock !== null, 'an incremental timestamp after its clock snapshot');
      seq.clock += p.timestamp ?? 0;
      ts = seq.clock;
    } else {
      ts = p.timestamp ?? 0;
    }
    const track = e.trackUuid ?? seq.track;
    assert.ok(track !== null, 'every event has a track');
    // The trace processor sorts by time: file order must already be time order on each track.
    assert.ok(ts >= (lastTs.get(track) ?? -Infinity), `track ${track} goes back in time at ${ts}`);
    lastTs.set(track, ts);
    const stack = open.get(track) ?? [];
    open.set(track, stack);
    if (e.type === 1) {
      if (e.name !== undefined) inlineNames++;
      const name = e.nameIid !== undefined ? seq.names.get(e.nameIid) : e.name;
      assert.ok(name !== undefined, `name iid ${e.nameIid} interned before use on sequence ${seqId}`);
      const index = slices.length;
      const args = e.debugAnnotations === undefined ? NO_ARGS : new Map<string, ArgLeaf>();
      for (const a of e.debugAnnotations ?? []) {
        assert.ok(a.name !== undefined, 'debug annotations are named');
        flatten(a, `debug.${a.name}`, args as Map<string, ArgLeaf>);
      }
      slices.push({ track, name, start: ts, end: -1, depth: stack.length, parent: stack.length > 0 ? stack[stack.length - 1]! : -1, args });
      stack.push(index);
    } else if (e.type === 2) {
      const index = stack.pop();
      assert.ok(index !== undefined, `an end on track ${track} with no open slice`);
      slices[index] = { ...slices[index]!, end: ts };
    }
  }
  for (const [track, stack] of open) assert.equal(stack.length, 0, `track ${track} ends with open slices`);
  return { packets: packets.length, tracks, slices, internedPerSequence, inlineNames };
}
