/**
 * The sample index (samples/index.json) that says which capture the viewer
 * opens by default. A missing or malformed index means "no sample", never a crash.
 */
export interface SampleEntry {
  readonly file: string;
  readonly title: string;
  readonly description: string;
  readonly device: string;
}

export interface SampleIndex {
  readonly default: string | null;
  readonly samples: readonly SampleEntry[];
}

export type SampleIndexResult = { readonly ok: true; readonly index: SampleIndex } | { readonly ok: false; readonly reason: string };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Validates untrusted JSON; file names must stay inside samples/. */
export function parseSampleIndex(json: unknown): SampleIndexResult {
  if (typeof json !== 'object' || json === null) return { ok: false, reason: 'samples/index.json is not an object' };
  const o = json as Record<string, unknown>;
  if (!Array.isArray(o['samples'])) return { ok: false, reason: 'samples/index.json has no "samples" list' };
  const safe = (f: string) => f.length > 0 && !f.includes('..') && !f.startsWith('/') && !/^[a-z]+:/i.test(f);
  const samples: SampleEntry[] = [];
  for (const s of o['samples'] as unknown[]) {
    if (typeof s !== 'object' || s === null) continue;
    const e = s as Record<string, unknown>;
    const file = str(e['file']);
    if (!safe(file)) continue;
    samples.push({ file, title: str(e['title']) || file, description: str(e['description']), device: str(e['device']) });
  }
  const def = str(o['default']);
  return { ok: true, index: { default: samples.some((s) => s.file === def) ? def : (samples[0]?.file ?? null), samples } };
}

export async function fetchSampleIndex(base = 'samples/'): Promise<SampleIndexResult> {
  let response: Response;
  try {
    response = await fetch(`${base}index.json`, { cache: 'no-cache' });
  } catch (e) {
    return { ok: false, reason: `could not fetch ${base}index.json (${e instanceof Error ? e.message : String(e)})` };
  }
  // Dev servers answer unknown paths with the app's index.html: that means "not there" too.
  const html = (response.headers.get('content-type') ?? '').includes('text/html');
  if (response.status === 404 || html) return { ok: false, reason: `there is no ${base}index.json` };
  if (!response.ok) return { ok: false, reason: `${base}index.json: HTTP ${response.status}` };
  try {
    return parseSampleIndex(await response.json());
  } catch {
    return { ok: false, reason: `${base}index.json is not valid JSON` };
  }
}
