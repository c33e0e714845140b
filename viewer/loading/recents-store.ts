/**
 * Recently opened traces in IndexedDB (idb-keyval): a small list of
 * metadata plus, for files, the file itself, so a trace reopens after a
 * reload. Files are told apart by a hash of their bytes, URLs by the URL.
 * The file is stored before the list entry that points at it, and a failed
 * write (quota) changes nothing that was stored before. The stored list is
 * read entry by entry: a malformed entry is dropped, the others are kept.
 */
import { createStore, del, get, set, type UseStore } from 'idb-keyval';

export interface RecentTrace {
  readonly id: string;
  readonly name: string;
  /** Bytes. */
  readonly size: number;
  /** ISO time it was last opened. */
  readonly openedAt: string;
  readonly device: string;
  readonly warps: number;
  /** 'file': the bytes are stored here; 'url': reopened from the URL. */
  readonly source: 'file' | 'url';
  readonly url: string | null;
  /**
   * Hash of a 'file' entry's bytes (content-hash.ts): the entry's identity.
   * Null for URLs, and for files kept before entries had one (until reopened).
   */
  readonly contentHash: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** One stored entry as a RecentTrace, or null when it is malformed (entries from older versions lack contentHash). */
export function readRecent(value: unknown): RecentTrace | null {
  if (!isObject(value)) return null;
  const { id, name, size, openedAt, device, warps, source, url, contentHash } = value;
  if (typeof id !== 'string' || id === '' || typeof name !== 'string' || typeof device !== 'string') return null;
  if (!isCount(size) || !isCount(warps)) return null;
  if (typeof openedAt !== 'string' || Number.isNaN(Date.parse(openedAt))) return null;
  if (source !== 'file' && source !== 'url') return null;
  if (source === 'url' ? typeof url !== 'string' : url !== null && url !== undefined) return null;
  if (contentHash !== undefined && contentHash !== null && typeof contentHash !== 'string') return null;
  return { id, name, size, openedAt, device, warps, source, url: source === 'url' ? (url as string) : null, contentHash: source === 'file' ? ((contentHash as string | null | undefined) ?? null) : null };
}

/** The well-formed entries of a stored list, newest first, one per id; never throws. */
export function readRecents(value: unknown): RecentTrace[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const out: RecentTrace[] = [];
  for (const entry of value) {
    const recent = readRecent(entry);
    if (recent === null || seen.has(recent.id)) continue;
    seen.add(recent.id);
    out.push(recent);
  }
  return out.sort((a, b) => b.openedAt.localeCompare(a.openedAt));
}

/** The subset of idb-keyval the store needs (tests substitute a failing one). */
export interface KeyValueBackend {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  del(key: string): Promise<void>;
}

export function idbBackend(dbName = 'warptrace', storeName = 'recent-traces'): KeyValueBackend {
  const store: UseStore = createStore(dbName, storeName);
  return {
    get: <T>(key: string) => get<T>(key, store),
    set: (key, value) => set(key, value, store),
    del: (key) => del(key, store),
  };
}

/** A storage failure, with a message for people ("storage is full", ...). */
export class RecentsError extends Error {
  override readonly name = 'RecentsError';
  constructor(
    message: string,
    readonly quota: boolean,
  ) {
    super(message);
  }
}

const LIST_KEY = 'list';
const fileKey = (id: string) => `file:${id}`;
export const MAX_RECENTS = 20;

function storageError(action: string, e: unknown): RecentsError {
  const quota = e instanceof DOMException && (e.name === 'QuotaExceededError' || e.name === 'UnknownError');
  const detail = e instanceof Error ? e.message : String(e);
  return new RecentsError(
    quota ? `Could not ${action}: browser storage is full (${detail}). Delete recent traces to make room; nothing stored was lost.` : `Could not ${action}: ${detail}`,
    quota,
  );
}

export class RecentsStore {
  constructor(private readonly backend: KeyValueBackend = idbBackend()) {}

  async list(): Promise<RecentTrace[]> {
    try {
      return readRecents(await this.backend.get<unknown>(LIST_KEY));
    } catch (e) {
      throw storageError('read the recent traces', e);
    }
  }

  /**
   * Records an opened trace (and stores `file` for 'file' entries). The
   * entry of the same bytes (contentHash) or the same URL is replaced;
   * `reopened` is the id of the entry whose stored file was just opened
   * (an entry from before content hashes gets its hash then). Beyond
   * MAX_RECENTS the oldest entries are dropped, after the new one is safely
   * stored.
   */
  async add(entry: Omit<RecentTrace, 'id' | 'openedAt'>, file: Blob | null, reopened: string | null = null): Promise<RecentTrace> {
    const list = await this.list();
    const same =
      entry.source === 'url'
        ? list.find((r) => r.source === 'url' && r.url === entry.url)
        : (list.find((r) => r.source === 'file' && entry.contentHash !== null && r.contentHash === entry.contentHash) ??
          list.find((r) => r.source === 'file' && r.id === reopened && r.contentHash === null));
    const id = same?.id ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const recent: RecentTrace = { ...entry, id, openedAt: new Date().toISOString() };
    if (entry.source === 'file' && file !== null && same === undefined) {
      try {
        await this.backend.set(fileKey(id), file);
      } catch (e) {
        throw storageError(`keep "${entry.name}" in recent traces`, e);
      }
    }
    const next = [recent, ...list.filter((r) => r.id !== id)];
    const dropped = next.splice(MAX_RECENTS);
    try {
      await this.backend.set(LIST_KEY, next);
    } catch (e) {
      if (same === undefined) await this.backend.del(fileKey(id)).catch(() => undefined);
      throw storageError(`keep "${entry.name}" in recent traces`, e);
    }
    for (const r of dropped) await this.backend.del(fileKey(r.id)).catch(() => undefined);
    return recent;
  }

  /** The stored file of a 'file' entry (null when it is gone). */
  async file(id: string): Promise<Blob | null> {
    try {
      const blob = await this.backend.get<Blob>(fileKey(id));
      return blob instanceof Blob ? blob : null;
    } catch (e) {
      throw storageError('read the stored trace', e);
    }
  }

  async remove(id: string): Promise<void> {
    try {
      const list = await this.list();
      await this.backend.set(
        LIST_KEY,
        list.filter((r) => r.id !== id),
      );
      await this.backend.del(fileKey(id));
    } catch (e) {
      throw e instanceof RecentsError ? e : storageError('delete the recent trace', e);
    }
  }
}
