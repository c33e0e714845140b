// Recent traces: files told apart by their bytes (not name, size and device),
// and a stored list that is partly malformed keeps its good entries.
import { encodeWtrace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtRecents } from '../../viewer/components/wt-recents.js';
import { contentHash, mixHash64 } from '../../viewer/loading/content-hash.js';
import { RecentsStore, idbBackend, type RecentTrace } from '../../viewer/loading/recents-store.js';
import { assert, assertEqual } from './assert.js';
import { deepText, fixtureTrace, mountApp, waitFor } from './viewer-helpers.js';

let app: WarptraceApp | null = null;
afterEach(() => {
  app?.remove();
  app = null;
});

/** The fixture as a .wtrace whose first draw is labelled `label` (same length: same file size). */
async function fixtureLabelled(label: string): Promise<Blob> {
  const trace = await fixtureTrace();
  const draws = trace.draws.map((d, i) => (i === 0 ? { ...d, label } : d));
  return new Blob([encodeWtrace({ ...trace, draws }) as Uint8Array<ArrayBuffer>]);
}

const dbName = () => `warptrace-recents-${Math.random().toString(36).slice(2)}`;

describe('recent traces', () => {
  it('keeps two files of the same name, size and device apart, and reopens each one\'s own bytes', async () => {
    const first = await fixtureLabelled('alpha');
    const second = await fixtureLabelled('omega');
    assertEqual(first.size, second.size, 'same size');
    app = await mountApp({ dbName: dbName() });
    assert(await app.openFile(first, 'frame.wtrace'), 'first opens');
    await waitFor('the first entry', () => app!.recents.length === 1);
    assert(await app.openFile(second, 'frame.wtrace'), 'second opens');
    await waitFor('two entries', () => app!.recents.length === 2 && app!.recents[0]!.contentHash !== app!.recents[1]!.contentHash);
    const [newest, older] = app.recents as [RecentTrace, RecentTrace];
    assertEqual(newest.name, older.name, 'same name');
    assertEqual(newest.size, older.size, 'same size');
    assertEqual(newest.device, older.device, 'same device');
    assert(newest.contentHash !== null && /^sha256:[0-9a-f]{64}$/.test(newest.contentHash), `a SHA-256 key: ${newest.contentHash}`);

    app.dispatchEvent(new CustomEvent('wt-recent-open', { detail: { id: older.id } }));
    await waitFor('the first file again', () => app!.opened?.trace.draws[0]?.label === 'alpha');
    app.dispatchEvent(new CustomEvent('wt-recent-open', { detail: { id: newest.id } }));
    await waitFor('the second file again', () => app!.opened?.trace.draws[0]?.label === 'omega');
    // Reopening the same bytes updates their entry: still two.
    await waitFor('the list after reopening', () => app!.recents[0]?.id === newest.id);
    assertEqual(app.recents.length, 2, 'entries after reopening both');
  });

  it('drops malformed stored entries, keeps and reopens the good ones (entries from before content hashes included)', async () => {
    const name = dbName();
    const backend = idbBackend(name);
    const good = { id: 'old-1', name: 'legacy.wtrace', size: 0, openedAt: '2024-05-01T10:00:00.000Z', device: 'test GPU', warps: 4, source: 'file', url: null };
    const goodUrl = { id: 'old-2', name: 'remote.wtrace', size: 10, openedAt: '2024-05-02T10:00:00.000Z', device: 'test GPU', warps: 4, source: 'url', url: 'https://example.invalid/remote.wtrace' };
    const file = await fixtureLabelled('patches');
    await backend.set('file:old-1', file);
    await backend.set('list', [
      null,
      42,
      'text',
      { ...good, id: 'no-date', openedAt: 17 },
      { ...good, id: 'bad-warps', warps: '4' },
      { ...good, id: 'bad-source', source: 'ftp' },
      { ...goodUrl, id: 'url-without-url', url: null },
      { name: 'no id' },
      { ...good, size: file.size },
      goodUrl,
      { ...good, name: 'duplicate id' },
    ]);
    app = await mountApp({ dbName: name });
    await app.refreshRecents();
    assertEqual(app.notice, null, 'no error notice');
    assertEqual(app.recents.map((r) => r.id).join(), 'old-2,old-1', 'the good entries, newest first');
    assertEqual(app.recents[1]!.contentHash, null, 'an old entry has no hash');

    // The list renders (the popover and the start page use <wt-recents>).
    app.recentsOpen = true;
    await app.updateComplete;
    const list = app.renderRoot.querySelector('wt-recents') as WtRecents;
    await list.updateComplete;
    const text = deepText(list.shadowRoot!);
    assert(text.includes('legacy.wtrace') && text.includes('remote.wtrace'), `listed: ${text}`);

    // Reopening the old entry gives it a hash instead of a duplicate.
    app.dispatchEvent(new CustomEvent('wt-recent-open', { detail: { id: 'old-1' } }));
    await waitFor('the legacy file reopened', () => app!.opened?.name === 'legacy.wtrace');
    await waitFor('its entry upgraded', () => app!.recents.find((r) => r.id === 'old-1')?.contentHash?.startsWith('sha256:'));
    assertEqual(app.recents.length, 2, 'no duplicate');
    // The malformed entries are gone from storage once the list is written again.
    const stored = (await backend.get<unknown[]>('list'))!;
    assertEqual(stored.length, 2, 'stored entries');
  });

  it('<wt-recents> handed malformed entries shows the good ones', async () => {
    const element = document.createElement('wt-recents') as WtRecents;
    const entry: RecentTrace = { id: 'a', name: 'kept.wtrace', size: 10, openedAt: '2024-05-01T10:00:00.000Z', device: 'GPU', warps: 3, source: 'file', url: null, contentHash: null };
    element.recents = [entry, { id: 'b', name: 'broken' } as unknown as RecentTrace, null as unknown as RecentTrace];
    document.body.append(element);
    await element.updateComplete;
    const text = deepText(element.shadowRoot!);
    element.remove();
    assert(text.includes('kept.wtrace') && !text.includes('broken'), `rendered: ${text}`);
  });

  it('a non-array stored list reads as empty, without an error', async () => {
    const name = dbName();
    await idbBackend(name).set('list', { not: 'a list' });
    assertEqual((await new RecentsStore(idbBackend(name)).list()).length, 0, 'entries');
  });

  it('content hashes: SHA-256 when WebCrypto is there, our own 64-bit hash otherwise; equal bytes, equal keys', async () => {
    const bytes = new TextEncoder().encode('abc');
    assertEqual(await contentHash(bytes), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'SHA-256 of "abc"');
    const a = new Uint8Array(1001).map((_, i) => i * 7);
    const b = a.slice();
    b[1000] = (b[1000]! + 1) & 0xff;
    assertEqual(mixHash64(a), mixHash64(a.slice()), 'same bytes');
    assert(mixHash64(a) !== mixHash64(b), 'a changed last byte changes the hash');
    assert(mixHash64(a.subarray(1)) !== mixHash64(a.subarray(0, 1000)), 'unaligned views hash their own bytes');
    assert(/^mix64:[0-9a-f]{16}$/.test(mixHash64(a)), mixHash64(a));
  });
});
