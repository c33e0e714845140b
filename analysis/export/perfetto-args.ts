/**
 * Arguments of the Perfetto exports' draw slices, for traces with block
 * profiles or ray events: per profiled draw its hottest source lines
 * (`block_profile`, an array of entries) and per trace-rays call its ray
 * events (`ray_events`). The Chrome JSON export writes them as the slice's
 * `args`, the protobuf one as debug annotations; Perfetto's trace processor
 * files both in its `args` table (`debug.block_profile[0].tick_share`,
 * `args.ray_events.trace_calls`), so they can be queried in SQL.
 * Keys are snake_case like the CSV columns; null values are left out.
 */
import { RAY_EVENTS } from '../../shared-schema/ray-event-model.js';
import type { BlockStat } from '../blocks.js';
import { RAY_EVENT_KEYS, type BlockSection, type RaySection } from '../trace-sections.js';
import type { ProtoBuffer } from './protobuf.js';

export type ArgValue = number | string | boolean | readonly ArgValue[] | ArgRecord;
export interface ArgRecord {
  readonly [key: string]: ArgValue;
}

/** Where an entry is: "file:line", or "#block opcodes" for a block without a line. */
export function blockSite(s: BlockStat): string {
  return s.line === null ? `#${s.blocks[0]} ${s.text ?? '?'}` : `${s.file ?? '?'}:${s.line}`;
}

function blockEntry(s: BlockStat): ArgRecord {
  const entry: Record<string, ArgValue> = {
    site: blockSite(s),
    module: s.moduleName,
    function: s.function,
    blocks: s.blocks.join(' '),
    executions: s.executions,
    lanes: s.lanes,
    ticks: s.ticks,
    clock: s.clock,
    tick_share: s.tickShare,
  };
  if (s.simtEfficiency !== null) entry['simt_efficiency'] = s.simtEfficiency;
  if (s.ns !== null) entry['ns'] = s.ns;
  return entry;
}

/** Per draw, the arguments its slice gets (draws without block rows or ray rows get none). */
export function drawArgs(blocks: BlockSection | undefined, rays: RaySection | undefined): Map<number, ArgRecord> {
  const args = new Map<number, Record<string, ArgValue>>();
  const of = (draw: number) => {
    let a = args.get(draw);
    if (a === undefined) args.set(draw, (a = {}));
    return a;
  };
  for (const scope of blocks?.draws ?? []) {
    if (scope.draw !== null && scope.top.length > 0) of(scope.draw)['block_profile'] = scope.top.map(blockEntry);
  }
  for (const row of rays?.rows ?? []) {
    const r: Record<string, ArgValue> = {
      launches: row.launches,
      launch_width: row.launchWidth,
      launch_height: row.launchHeight,
      launch_depth: row.launchDepth,
      mixed_sizes: row.mixedSizes,
    };
    for (const e of RAY_EVENTS) r[RAY_EVENT_KEYS[e]] = row.totals[e];
    of(row.draw)['ray_events'] = r;
  }
  return args;
}

// DebugAnnotation field numbers (protos/perfetto/trace/track_event/debug_annotation.proto).
const D_BOOL = 2;
const D_UINT = 3;
const D_DOUBLE = 5;
const D_STRING = 6;
const D_NAME = 10;
const D_DICT_ENTRIES = 11;
const D_ARRAY_VALUES = 12;
/** TrackEvent.debug_annotations. */
const TE_DEBUG_ANNOTATIONS = 4;

function annotationValue(d: ProtoBuffer, value: ArgValue): void {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) d.uint(D_UINT, value);
    else d.double(D_DOUBLE, value);
  } else if (typeof value === 'string') {
    d.string(D_STRING, value);
  } else if (typeof value === 'boolean') {
    d.uint(D_BOOL, value ? 1 : 0);
  } else if (Array.isArray(value)) {
    for (const item of value as readonly ArgValue[]) d.message(D_ARRAY_VALUES, (a) => annotationValue(a, item));
  } else {
    for (const [key, item] of Object.entries(value)) d.message(D_DICT_ENTRIES, (a) => (a.string(D_NAME, key), annotationValue(a, item)));
  }
}

/** `args` as a TrackEvent's debug annotations (names written out: a few draws have them, interning would save little). */
export function writeDebugAnnotations(event: ProtoBuffer, args: ArgRecord): void {
  for (const [key, value] of Object.entries(args)) event.message(TE_DEBUG_ANNOTATIONS, (d) => (d.string(D_NAME, key), annotationValue(d, value)));
}
