/**
 * What the page's long tasks are made of, from a Chrome trace of the open
 * (`bench:viewer -- --trace FILE`): every main-thread task over 50 ms of the
 * renderer, with the C++ that posted it and its largest parts (script,
 * V8's garbage collector, style, layout, paint, GPU, …), so a long task the
 * long-task observer cannot attribute (no script in it) gets a name.
 */
import { readFileSync } from 'node:fs';

interface TraceEvent {
  readonly name: string;
  readonly cat: string;
  readonly ph: string;
  readonly ts: number;
  readonly dur?: number;
  /** Thread (CPU) time, µs: on a busy machine, what the task would take alone, less its waits. */
  readonly tdur?: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: { readonly name?: string; readonly src_func?: string; readonly src_file?: string; readonly data?: Record<string, unknown> };
}

/** Categories that name the tasks and their parts without making the file huge. */
export const OPEN_TRACE_CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8',
  'v8.execute',
  'disabled-by-default-v8.gc',
  'blink.user_timing',
  'gpu',
];

const TASK_NAMES = new Set(['RunTask', 'ThreadControllerImpl::RunTask', 'ThreadPool_RunTask']);
/** Parts not worth naming: the task wrappers themselves and scheduler bookkeeping. */
const WRAPPERS = new Set([...TASK_NAMES, 'SequenceManager::DoIdleWork', 'TimerBase::run', 'ScheduledAction::execute']);

export interface LongTaskParts {
  readonly startMs: number;
  readonly durationMs: number;
  /** The main thread's CPU time in the task (the rest: waiting for the CPU, the GPU process, other threads). */
  readonly cpuMs: number;
  readonly postedFrom: string;
  /** Largest parts, "name (detail) ms", self-nested parts counted at their own level. */
  readonly parts: string[];
  /** User-timing marks that fall inside the task. */
  readonly marks: string[];
}

/**
 * The renderer main thread's tasks over `minMs`, from `startMark` (a performance.mark name
 * that names the thread) on, or from `originMark` when given and found on that thread
 * (`navigationStart` for a page that opens a trace as it loads); `which`: the origin mark's
 * first or last occurrence (the second of two opens).
 */
export function longTasksOfTrace(path: string, startMark: string, minMs = 50, originMark = startMark, which: 'first' | 'last' = 'first'): LongTaskParts[] {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && events.some((x) => x.pid === e.pid && x.tid === e.tid && x.name === startMark));
  if (main === undefined) return [];
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid).sort((a, b) => a.ts - b.ts);
  const pick = (name: string) => (which === 'first' ? onMain.find((e) => e.name === name) : [...onMain].reverse().find((e) => e.name === name));
  const origin = (pick(originMark) ?? pick(startMark)!).ts;
  const marks = onMain.filter((e) => e.cat.includes('user_timing') && e.name.startsWith('warptrace:'));
  const complete = onMain.filter((e) => e.ph === 'X' && e.dur !== undefined);
  const tasks = complete.filter((e) => TASK_NAMES.has(e.name) && e.ts >= origin && e.dur! >= minMs * 1000);
  const out: LongTaskParts[] = [];
  for (const task of tasks) {
    // A task wrapper inside another (RunTask in ThreadControllerImpl::RunTask) is the same task.
    if (tasks.some((o) => o !== task && o.ts <= task.ts && o.ts + o.dur! >= task.ts + task.dur! && (o.dur! > task.dur! || o.ts < task.ts || tasks.indexOf(o) < tasks.indexOf(task)))) continue;
    const end = task.ts + task.dur!;
    const inside = complete.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur! <= end && !WRAPPERS.has(e.name));
    // Keep the outermost event of each name at each level: a part inside a same-named part is not counted twice.
    const kept = inside.filter((e) => !inside.some((o) => o !== e && o.name === e.name && o.ts <= e.ts && o.ts + o.dur! >= e.ts + e.dur! && o.dur! > e.dur!));
    const largest = kept.sort((a, b) => b.dur! - a.dur!).slice(0, 8);
    out.push({
      startMs: (task.ts - origin) / 1000,
      durationMs: task.dur! / 1000,
      cpuMs: (task.tdur ?? 0) / 1000,
      postedFrom: postedFrom(tasks.filter((t) => t.ts >= task.ts && t.ts + t.dur! <= end)),
      parts: largest.map((e) => `${e.name}${detail(e)} ${(e.dur! / 1000).toFixed(0)}`),
      marks: marks.filter((m) => m.ts >= task.ts && m.ts <= end).map((m) => m.name.replace('warptrace:', '')),
    });
  }
  return out;
}

/** Where a task was posted from: the first of its wrappers that says. */
function postedFrom(wrappers: readonly TraceEvent[]): string {
  const w = wrappers.find((t) => t.args?.src_func !== undefined);
  if (w === undefined) return '?';
  const file = w.args!.src_file?.split('/').slice(-2).join('/');
  return `${w.args!.src_func}${file !== undefined ? ` (${file})` : ''}`;
}

function detail(e: TraceEvent): string {
  const d = e.args?.data;
  if (d === undefined) return '';
  const fn = typeof d['functionName'] === 'string' && d['functionName'] !== '' ? d['functionName'] : null;
  const url = typeof d['url'] === 'string' ? (d['url'] as string).split('/').pop() : null;
  const type = typeof d['type'] === 'string' ? d['type'] : null;
  const what = [type, fn, url].filter((x) => x !== null && x !== '').join(' ');
  return what === '' ? '' : ` (${what})`;
}

export function printLongTaskParts(tasks: readonly LongTaskParts[]): void {
  console.log(`main-thread tasks over 50 ms in the Chrome trace (${tasks.length}):`);
  for (const t of tasks) {
    console.log(`  ${t.durationMs.toFixed(0)} ms (CPU ${t.cpuMs.toFixed(0)}) at +${t.startMs.toFixed(0)} ms, posted from ${t.postedFrom}${t.marks.length > 0 ? `; marks: ${t.marks.join(', ')}` : ''}`);
    console.log(`    ${t.parts.join(' · ') || '(no parts recorded)'}`);
  }
}
