/**
 * Recently opened traces in IndexedDB (idb-keyval): a small list of
 * metadata plus, for files, the file itself, so a trace reopens after a
 * reload. The file is stored before the list entry that points at it, and a
 * failed write (quota) changes nothing that was stored before.
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
      const list = (await this.backend.get<RecentTrace[]>(LIST_KEY)) ?? [];
      return Array.isArray(list) ? [...list].sort((a, b) => b.openedAt.localeCompare(a.openedAt)) : [];
    } catch (e) {
      throw storageError('read the recent traces', e);
    }
  }

  /**
   * Records an opened trace (and stores `file` for 'file' entries). An entry
   * with the same name, size and device is replaced. Beyond MAX_RECENTS the
   * oldest entries are dropped, after the new one is safely stored.
   */
  async add(entry: Omit<RecentTrace, 'id' | 'openedAt'>, file: Blob | null): Promise<RecentTrace> {
    const list = await this.list();
    const same = list.find((r) => r.name === entry.name && r.size === entry.size && r.device === entry.device && r.source === entry.source);
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
