// Opening traces for <warptrace-app>: decode in a worker with progress, cancel an older
// open, show the first frame, time it, and keep the trace in Recent.
import type { Trace } from '../../shared-schema/index.js';
import { nextTask, whenIdle } from '../base/tasks.js';
import { buildDrawLayout } from '../model/draw-layout.js';
import type { DecodeRequest } from '../loading/protocol.js';
import { loadTrace } from '../loading/trace-loader.js';
import { RecentsError, type RecentsStore, type RecentTrace } from '../loading/recents-store.js';
import type { Loading } from './progress-bar.js';
import type { OpenMeta, OpenTimings, OpenedTrace, TraceOpenedDetail } from './app-types.js';
import type { WtTimeline } from './wt-timeline.js';

/** The app state an open reads and writes. */
export interface TraceOpenerHost extends EventTarget {
  opened: OpenedTrace | null;
  loading: Loading | null;
  error: string | null;
  notice: string | null;
  recents: RecentTrace[];
  recentsOpen: boolean;
  lastOpenTimings: OpenTimings | null;
  readonly store: RecentsStore;
  readonly timeline: WtTimeline | null;
  readonly updateComplete: Promise<boolean>;
  /** Called once the new trace is set, before its first frame: selections etc. start empty. */
  clearViewState(): void;
}

export class TraceOpener {
  private abort: AbortController | null = null;
  /** Recent entries deleted in this session: a reopened trace still being kept does not bring its entry back. */
  private readonly deleted = new Set<string>();
  /** The notice a failed keep in Recent showed (a later keep that works clears it). */
  private storageNotice: string | null = null;

  constructor(private readonly host: TraceOpenerHost) {}

  openUrl(url: string, options: { remember?: boolean } = {}): Promise<boolean> {
    const name = decodeURIComponent(url.split(/[?#]/)[0]!.split('/').pop() || url);
    return this.open({ kind: 'url', url }, { name, source: 'url', url, file: null, remember: options.remember ?? true });
  }

  openFile(file: File | Blob, name = file instanceof File ? file.name : 'trace'): Promise<boolean> {
    return this.open({ kind: 'blob', blob: file }, { name, source: 'file', url: null, file });
  }

  openSynthetic(warps: number, seed = 1): Promise<boolean> {
    return this.open({ kind: 'synthetic', warps, seed }, { name: `synthetic ${warps.toLocaleString('en-US')} warps`, source: 'generated', url: null, file: null });
  }

  async open(request: DecodeRequest, meta: OpenMeta): Promise<boolean> {
    const host = this.host;
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    host.error = null;
    const t0 = performance.now();
    performance.mark('warptrace:open');
    host.loading = { name: meta.name, progress: { phase: 'read', loaded: 0, total: null } };
    // The page's first toLocaleString loads ICU's locale data (~13 ms): let that happen
    // while the worker decodes, not in the task that shows the trace (its header).
    whenIdle(() => (0).toLocaleString('en-US'));
    let loaded;
    try {
      loaded = await loadTrace(request, (progress) => (host.loading = { name: meta.name, progress }), abort.signal);
    } catch (e) {
      if (abort.signal.aborted) return false;
      host.loading = null;
      const field = e instanceof Error && 'field' in e ? (e as { field: string | null }).field : null;
      const message = e instanceof Error ? e.message : String(e);
      host.error = `Could not open ${meta.name}: ${message}${field !== null && !message.includes(field) ? ` (field ${field})` : ''}`;
      return false;
    }
    const tDecoded = performance.now();
    performance.mark('warptrace:decoded');
    // Three steps, each in its own task (the worker's message; the app's render; the first
    // frame), so that no one task holds the page for all of them.
    const { trace, index } = loaded;
    let maxDurationNs = 0;
    for (const lane of index.lanes) maxDurationNs = Math.max(maxDurationNs, lane.maxDurationNs);
    const opened: OpenedTrace = { trace, index, drawLayout: buildDrawLayout(trace, index), name: meta.name, bytes: loaded.bytes, maxDurationNs, calibration: loaded.calibration };
    await nextTask();
    if (abort.signal.aborted) return false;
    host.opened = opened;
    host.loading = null;
    this.abort = null;
    host.clearViewState();
    await host.updateComplete;
    performance.mark('warptrace:shown');
    const timeline = host.timeline;
    if (timeline !== null && host.opened === opened) {
      // The timeline draws its first frame of the trace itself (its geometry in a task of
      // its own, then the frame in an animation frame); draw it here only when that frame
      // does not come soon (a hidden tab), so it is drawn once.
      const before = timeline.framesDrawn;
      await timeline.ready();
      await timeline.updateComplete;
      const drawn = await timeline.frameDrawnSince(before, FIRST_FRAME_WAIT_MS);
      if (!drawn && host.opened === opened) timeline.renderNow();
    }
    const t1 = performance.now();
    performance.mark('warptrace:first-frame');
    host.lastOpenTimings = {
      totalMs: t1 - t0,
      readMs: loaded.timings.readMs,
      decodeMs: loaded.timings.decodeMs,
      indexMs: loaded.timings.indexMs,
      firstFrameMs: t1 - tDecoded,
    };
    const detail: TraceOpenedDetail = { name: meta.name, timings: host.lastOpenTimings, source: meta.source, url: meta.url, remember: meta.remember !== false };
    host.dispatchEvent(new CustomEvent('wt-trace-opened', { detail, bubbles: true, composed: true }));
    if (meta.source !== 'generated' && meta.remember !== false) void this.remember(trace, loaded.bytes, loaded.contentHash, meta);
    return true;
  }

  cancel(): void {
    this.abort?.abort();
    this.abort = null;
    this.host.loading = null;
  }

  private async remember(trace: Trace, bytes: number, hashing: Promise<string | null>, meta: OpenMeta): Promise<void> {
    const host = this.host;
    try {
      const contentHash = await hashing;
      if (meta.reopened !== undefined && this.deleted.has(meta.reopened)) return;
      await host.store.add(
        { name: meta.name, size: bytes, device: trace.device.name, warps: trace.warps.count, source: meta.source === 'file' ? 'file' : 'url', url: meta.url, contentHash },
        meta.file,
        meta.reopened ?? null,
      );
      // Kept now: a storage problem said earlier is over (other notices, e.g. a link's, stay).
      if (host.notice !== null && host.notice === this.storageNotice) host.notice = null;
      this.storageNotice = null;
    } catch (e) {
      this.storageNotice = e instanceof RecentsError ? e.message : `Could not keep ${meta.name} in recent traces: ${String(e)}`;
      host.notice = this.storageNotice;
    }
    await this.refreshRecents();
  }

  async refreshRecents(): Promise<void> {
    try {
      this.host.recents = await this.host.store.list();
    } catch (e) {
      this.host.notice = e instanceof Error ? e.message : String(e);
    }
  }

  async openRecent(id: string): Promise<void> {
    const host = this.host;
    host.recentsOpen = false;
    const entry = host.recents.find((r) => r.id === id);
    if (entry === undefined) return;
    if (entry.source === 'url' && entry.url !== null) {
      await this.openUrl(entry.url);
      return;
    }
    try {
      const blob = await host.store.file(id);
      if (blob === null) {
        host.error = `The stored copy of ${entry.name} is gone; open the file again.`;
        return;
      }
      await this.open({ kind: 'blob', blob }, { name: entry.name, source: 'file', url: null, file: blob, reopened: id });
    } catch (e) {
      host.error = e instanceof Error ? e.message : String(e);
    }
  }

  async deleteRecent(id: string): Promise<void> {
    this.deleted.add(id);
    try {
      await this.host.store.remove(id);
    } catch (e) {
      this.host.notice = e instanceof Error ? e.message : String(e);
    }
    await this.refreshRecents();
  }
}

/** How long the open waits for the timeline's own first frame before drawing it itself, ms. */
const FIRST_FRAME_WAIT_MS = 200;
