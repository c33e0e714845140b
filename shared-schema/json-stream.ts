/**
 * The JSON import format written in chunks: the same text as
 * `JSON.stringify(traceToJson(trace))`, without one string for all of it
 * (10 M warps make ~700 MB, over V8's longest string) nor a JS array per
 * column (memory stays that of the trace plus one chunk).
 */
import { laneMasks, smIdPerWarp } from './columns.js';
import { JSON_FORMAT, JSON_VERSION } from './json.js';
import { UNKNOWN_SLOT, UNKNOWN_SM, type Trace } from './model.js';
import { STAGES } from './stages.js';

/** Characters per yielded chunk, about (default 1 Mi). */
export const DEFAULT_JSON_CHUNK_CHARS = 1 << 20;

/** JSON.stringify's text for a number (non-finite numbers are null). */
function numberText(v: number): string {
  return Number.isFinite(v) ? String(v) : 'null';
}

export function* traceJsonChunks(trace: Trace, chunkChars = DEFAULT_JSON_CHUNK_CHARS): Generator<string, void, undefined> {
  const w = trace.warps;
  const parts: string[] = [];
  let size = 0;
  const add = (text: string) => {
    parts.push(text);
    size += text.length;
  };
  const take = () => {
    const chunk = parts.join('');
    parts.length = 0;
    size = 0;
    return chunk;
  };

  add(`{"format":${JSON.stringify(JSON_FORMAT)},"version":${JSON_VERSION},"device":${JSON.stringify(trace.device)},"capture":${JSON.stringify(trace.capture)},"draws":[`);
  for (const [i, draw] of trace.draws.entries()) {
    add(i === 0 ? JSON.stringify(draw) : `,${JSON.stringify(draw)}`);
    if (size >= chunkChars) yield take();
  }
  add('],"warps":{');

  const sm = smIdPerWarp(w);
  const stageNames = STAGES.map((s) => JSON.stringify(s.name));
  const columns: [string, (i: number) => string][] = [
    ['startNs', (i) => numberText(w.startNs[i] as number)],
    ['endNs', (i) => numberText((w.startNs[i] as number) + (w.durationNs[i] as number))],
    ['sm', (i) => (sm[i] === UNKNOWN_SM ? 'null' : String(sm[i]))],
    ['warpSlot', (i) => (w.warpSlot[i] === UNKNOWN_SLOT ? 'null' : String(w.warpSlot[i]))],
    ['stage', (i) => stageNames[w.stage[i] as number]!],
    ['draw', (i) => numberText(w.draw[i] as number)],
    ['customId', (i) => numberText(w.customId[i] as number)],
    ['activeMask', (i) => numberText(w.activeMask[i] as number)],
  ];
  // The same optional columns as traceToJson, in its order.
  const hi = w.activeMaskHi;
  if (laneMasks(trace.device.subgroupSize).hi !== 0 && hi !== null) columns.push(['activeMaskHi', (i) => numberText(hi[i] as number)]);
  const cycleStart = w.smCycleStart;
  const cycleDuration = w.smCycleDuration;
  if (cycleStart !== null && cycleDuration !== null) {
    columns.push(['smCycleStart', (i) => numberText(cycleStart[i] as number)], ['smCycleDuration', (i) => numberText(cycleDuration[i] as number)]);
  }

  for (const [c, [name, text]] of columns.entries()) {
    add(`${c === 0 ? '' : ','}${JSON.stringify(name)}:[`);
    for (let i = 0; i < w.count; i++) {
      add(i === 0 ? text(i) : `,${text(i)}`);
      if (size >= chunkChars) yield take();
    }
    add(']');
  }
  add('}}');
  yield take();
}
