// Keeps the page URL a link to the current view (loading/view-link.ts), restores the view a
// link names when its trace is opened, and copies the link. The URL is rewritten with
// history.replaceState a moment after the view settles (no history entry per change).
import { html, type ReactiveController, type ReactiveControllerHost } from 'lit';
import type { TimeWindow } from '../model/time-scale.js';
import { checkViewLink, parseViewLink, traceFingerprint, viewLinkUrl, type ParsedViewLink, type ViewLinkState } from '../loading/view-link.js';
import type { OpenedTrace, TraceOpenedDetail } from './app-types.js';
import type { ColorBy } from '../model/color-by.js';
import type { WtTimeline } from './wt-timeline.js';
import type { WtDrawList } from './wt-draw-list.js';

/** The app state a link reads and restores. */
export interface ViewLinkHost extends ReactiveControllerHost, HTMLElement {
  readonly opened: OpenedTrace | null;
  readonly selectedDraw: number;
  readonly selectedWarp: number;
  /** What warp bars are colored by (the header's Color by). */
  colorBy: ColorBy;
  notice: string | null;
  /** The page URL is this app's: read a link from it on start, keep it up to date. */
  readonly pageLink: boolean;
  readonly viewPort: ViewPort | null;
  selectDraw(draw: number): void;
  selectWarp(row: number): void;
}

/** What the app's children let a link read and set (the timeline's window and lanes, the draw list's find text). */
export interface ViewPort {
  readonly view: TimeWindow;
  setView(view: TimeWindow): void;
  expandedSms: ReadonlySet<number>;
  find: string;
}

/** Quiet time before the URL follows the view, ms. */
const SETTLE_MS = 300;
const COPIED_MS = 2000;

interface Current {
  readonly fingerprint: string;
  readonly traceUrl: string | null;
  readonly name: string | null;
}

export class ViewLinkSync implements ReactiveController {
  /** A link read from the page that waits for its trace (a file's link waits for that file). */
  private pending: (ParsedViewLink & { readonly state: ViewLinkState; readonly traceUrl: string | null }) | null = null;
  private current: Current | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private copiedTimer: ReturnType<typeof setTimeout> | null = null;
  /** The notice that says the link waits for its file (cleared once the file is open). */
  private waitingNotice: string | null = null;
  /** 'copied' shows a moment after Copy link worked. */
  copied = false;

  constructor(private readonly host: ViewLinkHost) {
    host.addController(this);
  }

  hostConnected(): void {
    for (const type of ['wt-view-change', 'wt-draw-filter', 'pointerup', 'keyup']) this.host.addEventListener(type, this.schedule);
  }

  hostDisconnected(): void {
    for (const type of ['wt-view-change', 'wt-draw-filter', 'pointerup', 'keyup']) this.host.removeEventListener(type, this.schedule);
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  hostUpdated(): void {
    this.schedule();
  }

  /** Reads the page URL's link (on start, before the first trace opens). */
  readPageLink(): void {
    if (!this.host.pageLink) return;
    const parsed = parseViewLink(location.hash);
    if (parsed.state === null) return;
    this.pending = { ...parsed, state: parsed.state, traceUrl: new URL(location.href).searchParams.get('trace') };
  }

  /** After a trace's first frame: restore the pending link's view if it is of this trace. */
  traceOpened(detail: TraceOpenedDetail): void {
    const o = this.host.opened;
    if (o === null) return;
    const fingerprint = traceFingerprint(o.trace);
    const fromUrl = detail.source === 'url' && detail.remember !== false;
    this.current = { fingerprint, traceUrl: fromUrl ? detail.url : null, name: detail.source === 'url' ? null : detail.name };
    const link = this.pending;
    if (link === null) return this.schedule();
    const wanted = link.state.name ?? link.traceUrl ?? 'another trace';
    if (this.waitingNotice !== null && this.host.notice === this.waitingNotice) this.host.notice = null;
    this.waitingNotice = null;
    if (link.state.fingerprint === null || link.state.fingerprint === fingerprint) {
      this.pending = null;
      this.apply(o, link.state, link.problems);
    } else if (detail.source === 'url' && detail.url === link.traceUrl) {
      this.pending = null;
      this.host.notice = `${detail.name} is not the trace this link was made on (it has changed since?): the link's view was not restored.`;
    } else if (detail.remember === false) {
      // The default sample, opened on start: the link waits for its own trace.
      this.waitingNotice = `This link holds a view of ${wanted}: open that file to restore it.`;
      this.host.notice = this.waitingNotice;
    } else {
      this.pending = null;
      this.host.notice = `${detail.name} is not the trace this link's view is of (${wanted}): the view was not restored.`;
    }
    this.schedule();
  }

  private apply(o: OpenedTrace, state: ViewLinkState, parseProblems: readonly string[]): void {
    const laneSms = new Set(o.index.lanes.map((l) => l.sm));
    const checked = checkViewLink(state, o.trace, laneSms, { startNs: o.index.startNs, endNs: o.index.endNs });
    const s = checked.state;
    const port = this.host.viewPort;
    if (port !== null && s.find !== '') port.find = s.find;
    if (s.selectedDraw >= 0) this.host.selectDraw(s.selectedDraw);
    if (s.selectedWarp >= 0) this.host.selectWarp(s.selectedWarp);
    if (s.colorBy.kind !== 'stage') this.host.colorBy = s.colorBy;
    if (port !== null) {
      if (s.expandedSms.length > 0) port.expandedSms = new Set(s.expandedSms);
      if (s.view !== null) port.setView(s.view);
    }
    const problems = [...parseProblems, ...checked.problems];
    if (problems.length > 0) this.host.notice = `Parts of the link were ignored: ${problems.join('; ')}.`;
  }

  /** The link to the current view (null before a trace is open). */
  link(): string | null {
    const o = this.host.opened;
    const c = this.current;
    if (o === null || c === null) return null;
    const port = this.host.viewPort;
    const state: ViewLinkState = {
      fingerprint: c.fingerprint,
      name: c.name,
      view: port?.view ?? null,
      expandedSms: port !== null ? [...port.expandedSms] : [],
      selectedDraw: this.host.selectedDraw,
      selectedWarp: this.host.selectedWarp,
      find: port?.find ?? '',
      colorBy: this.host.colorBy,
    };
    return viewLinkUrl(location.href, c.traceUrl, state);
  }

  private readonly schedule = (): void => {
    if (!this.host.pageLink || this.current === null) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.writeNow();
    }, SETTLE_MS);
  };

  /** Rewrites the page URL now (when it differs): replaceState, so no history entry. */
  writeNow(): void {
    if (!this.host.pageLink) return;
    const link = this.link();
    if (link !== null && link !== location.href) history.replaceState(history.state, '', link);
  }

  /** Copies the link; where the clipboard is refused, a notice shows the link to copy by hand. */
  async copy(): Promise<void> {
    this.writeNow();
    const link = this.link();
    if (link === null) return;
    try {
      await navigator.clipboard.writeText(link);
      this.copied = true;
      if (this.copiedTimer !== null) clearTimeout(this.copiedTimer);
      this.copiedTimer = setTimeout(() => {
        this.copied = false;
        this.host.requestUpdate();
      }, COPIED_MS);
    } catch {
      this.host.notice = `The clipboard is not available here; the link: ${link}`;
    }
    this.host.requestUpdate();
  }

  button() {
    return html`<button class="copy-link" @click=${() => void this.copy()} title="Copy a link that reopens this view (time window, expanded lanes, selected draw and warp, find text, color by)">
      ${this.copied ? 'Link copied' : 'Copy link'}
    </button>`;
  }
}

/** The timeline's window and lanes and the draw list's find text, as a ViewPort. */
export function viewPortOf(timeline: WtTimeline | null, drawList: WtDrawList | null): ViewPort | null {
  if (timeline === null) return null;
  return {
    get view() {
      return timeline.visibleWindow;
    },
    setView: (view) => timeline.setView(view),
    get expandedSms() {
      return timeline.expandedSms;
    },
    set expandedSms(sms) {
      timeline.expandedSms = sms;
    },
    get find() {
      return drawList?.query ?? '';
    },
    set find(query) {
      drawList?.setQuery(query);
    },
  };
}
