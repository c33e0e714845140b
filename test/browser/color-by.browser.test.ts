// "Color by" on the timeline (model/color-by.ts): on the H100 ray-tracing sample with marks
// around its trace calls, the bars drawn in each mode (stage, live lanes, branch at a mark)
// have the colors worked out here from the warp and mark columns, by this file's own
// reading of them: lanes counted here, viridis taken from d3, a warp's branch class from
// its own marks. The selector is a header control, the legend counts the classes, and the
// mode travels in the view link.
import { setViewport } from '@web/test-runner-commands';
import { interpolateViridis } from 'd3-scale-chromatic';
import { STAGES, smOfWarp, type Trace } from '../../shared-schema/index.js';
import { markLabel } from '../../analysis/marks.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { RecentsStore, idbBackend } from '../../viewer/loading/recents-store.js';
import { warpSlotY } from '../../viewer/components/timeline-navigation.js';
import { BRANCH_RGB } from '../../viewer/model/branch-classes.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { assert, assertEqual } from './assert.js';
import { FIXTURE_BASE, afterTwoFrames, mountApp, near, rgbText, waitFor } from './viewer-helpers.js';

/** Ray generation traces a primary ray, then a shadow ray where the primary hit: marks before and after each trace call. */
const MARKS_FILE = 'h100-ray-tracing-marks.wtrace';
/** Tessellation warps of 32, 16 and 6 lanes, fragment warps of 1 to 24: no marks, bars never nested. */
const AQT_FILE = 'h100-aqt.wtrace';
const bytes = new Map<string, ArrayBuffer>();
let app: WarptraceApp | null = null;

const rgbOf = (c: number): number[] => [(c >>> 16) & 255, (c >>> 8) & 255, c & 255];
const bits = (v: number): number => {
  let n = 0;
  for (let x = v >>> 0; x !== 0; x >>>= 1) n += x & 1;
  return n;
};

function viridis(t: number): number[] {
  const m = /^#(..)(..)(..)$/.exec(interpolateViridis(t))!;
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}

/** A warp's live-lane color: eighths of the subgroup through viridis, full warps at its yellow end. */
function expectedLaneRgb(t: Trace, row: number): number[] {
  const size = t.device.subgroupSize;
  const lanes = bits(t.warps.activeMask[row]!);
  return viridis(lanes >= size ? 1 : Math.floor((lanes * 8) / size) / 8);
}

/** Each warp's marks (indices into the mark columns). */
function marksByWarp(t: Trace): Map<number, number[]> {
  const m = t.marks!;
  const out = new Map<number, number[]>();
  for (let k = 0; k < m.count; k++) {
    const list = out.get(m.warp[k]!) ?? [];
    list.push(k);
    out.set(m.warp[k]!, list);
  }
  return out;
}

/** 'all' | 'some' | 'none': which of the warp's lanes (its record's and all its marks' lanes) reached a mark `id`. */
function branchOf(t: Trace, byWarp: Map<number, number[]>, row: number, id: number): 'all' | 'some' | 'none' {
  const m = t.marks!;
  let lanes = t.warps.activeMask[row]! >>> 0;
  let took = 0;
  let any = false;
  for (const k of byWarp.get(row) ?? []) {
    lanes = (lanes | m.activeMask[k]!) >>> 0;
    if (m.id[k] === id) {
      any = true;
      took = (took | m.activeMask[k]!) >>> 0;
    }
  }
  return !any ? 'none' : took === lanes ? 'all' : 'some';
}

/**
 * Spans of what may be drawn over `row`'s bar: the warps of its SM that ran in its slot while it
 * did (a ray-generation warp holds its slot while its hit shaders run in it) and are later rows
 * (bars are drawn in row order) or have marks (their ticks and bands go over every bar).
 */
function slotNeighbours(t: Trace, row: number): [number, number][] {
  const marked = new Set(t.marks?.warp ?? []);
  const w = t.warps;
  const g = w.smGroups;
  const sm = smOfWarp(g, row);
  const start = w.startNs[row]!;
  const end = start + w.durationNs[row]!;
  const out: [number, number][] = [];
  for (let k = 0; k < g.sm.length; k++) {
    if (g.sm[k] !== sm) continue;
    for (let i = g.offsets[k]!; i < g.offsets[k + 1]!; i++) {
      const s = w.startNs[i]!;
      const e = s + w.durationNs[i]!;
      if (i !== row && (i > row || marked.has(i)) && w.warpSlot[i] === w.warpSlot[row] && s < end && e > start) out.push([s, e]);
    }
  }
  return out;
}

/**
 * The longest stretch of warp `row` where its bar alone shows its color: outside the other
 * warps of its slot, and in a phase its marks leave unshaded (start → mark 0, mark 1 → mark 2, …:
 * the phase from mark 0 to mark 1 and every other one after it is banded).
 */
function clearStretch(t: Trace, row: number): [number, number] {
  const w = t.warps;
  const start = w.startNs[row]!;
  const cuts = [start];
  const m = t.marks;
  for (let k = 0; k < (m?.count ?? 0); k++) if (m!.warp[k] === row) cuts.push(start + m!.offsetNs[k]!);
  cuts.push(start + w.durationNs[row]!);
  let pieces: [number, number][] = [];
  for (let p = 0; p + 1 < cuts.length; p += 2) pieces.push([cuts[p]!, cuts[p + 1]!]);
  for (const [s, e] of slotNeighbours(t, row)) {
    pieces = pieces.flatMap(([a, b]): [number, number][] => [[a, Math.min(b, s)], [Math.max(a, e), b]]).filter(([a, b]) => b > a);
  }
  return pieces.reduce((best, p) => (p[1] - p[0] > best[1] - best[0] ? p : best), [start, start]);
}

/** Shows warp `row` across the timeline in its expanded lane; returns the pixel in the middle of its clear stretch. */
async function barPixel(a: WarptraceApp, row: number): Promise<Uint8ClampedArray> {
  const tl = a.timeline!;
  const t = a.opened!.trace;
  const w = t.warps;
  const start = w.startNs[row]!;
  const [c0, c1] = clearStretch(t, row);
  tl.revealWarp(row);
  tl.zoomTo(start, start + w.durationNs[row]!, 0.05);
  await tl.updateComplete;
  await afterTwoFrames();
  const lane = tl.laneLayout.rows.find((r) => r.sm === smOfWarp(w.smGroups, row))!;
  const y = warpSlotY(t, a.opened!.index, lane, row) + lane.slotRowHeight / 2;
  const s = tl.screenLayout;
  const v = tl.visibleWindow;
  const x = Math.round(s.gutter + (((c0 + c1) / 2 - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s));
  const py = Math.round(s.lanes.y + y - tl.verticalScroll);
  // The point is in the warp's slot row (hit testing prefers the longest warp there; the bar on top is the later row's).
  const hit = tl.warpAtPoint(x, py);
  assert(hit >= 0 && smOfWarp(w.smGroups, hit) === smOfWarp(w.smGroups, row) && w.warpSlot[hit] === w.warpSlot[row], `the pixel is in warp ${row}'s slot row (hit ${hit})`);
  return tl.readPixels(x, py, 1, 1);
}

/** The first warp that passes `test` with a clear stretch of a 25th of its time at least (40 px across the timeline), so the pixel read is its own. */
function firstRow(t: Trace, test: (row: number) => boolean): number {
  for (let i = 0; i < t.warps.count; i++) {
    if (!test(i)) continue;
    const [a, b] = clearStretch(t, i);
    if (b - a >= t.warps.durationNs[i]! / 25) return i;
  }
  throw new Error('no such warp in the sample');
}

async function sampleApp(file: string): Promise<WarptraceApp> {
  const a = await mountApp();
  assert(await a.openFile(new Blob([bytes.get(file)!]), file), 'opens');
  await a.updateComplete;
  await a.timeline!.ready();
  return a;
}

function selectMode(a: WarptraceApp, label: string): void {
  const select = a.shadowRoot!.querySelector<HTMLSelectElement>('select[aria-label="Color warps by"]')!;
  const option = [...select.options].find((o) => o.textContent!.trim().startsWith(label));
  assert(option !== undefined, `an option "${label}" among ${[...select.options].map((o) => o.textContent!.trim()).join(' | ')}`);
  select.value = option.value;
  select.dispatchEvent(new Event('change'));
}

describe('color by', () => {
  before(async () => {
    await setViewport({ width: 1400, height: 900 });
    for (const file of [MARKS_FILE, AQT_FILE]) bytes.set(file, await (await fetch(`/samples/${file}`)).arrayBuffer());
  });
  afterEach(() => {
    app?.remove();
    app = null;
  });

  it('stage (the default), then live lanes: bars take the color of their stage, then of their live lanes', async () => {
    app = await sampleApp(AQT_FILE);
    const t = app.opened!.trace;
    const w = t.warps;
    const code = (name: string) => STAGES.find((s) => s.name === name)!.code;
    const full = firstRow(t, (i) => w.stage[i] === code('TES') && bits(w.activeMask[i]!) === 32 && w.durationNs[i]! > 100);
    const partial = firstRow(t, (i) => w.stage[i] === code('FS') && bits(w.activeMask[i]!) === 10 && w.durationNs[i]! > 100);
    const stagePx = await barPixel(app, partial);
    assert(near(stagePx, rgbOf(STAGES[code('FS')]!.color)), `stage mode: the fragment color, got ${rgbText(stagePx)}`);

    selectMode(app, 'live lanes');
    await app.updateComplete;
    assertEqual(app.colorBy.kind, 'lanes', 'the selector set the mode');
    await waitFor('the lanes coloring', () => app!.coloring?.colors.by.kind === 'lanes');
    for (const row of [full, partial]) {
      const px = await barPixel(app, row);
      const want = expectedLaneRgb(t, row);
      assert(near(px, want), `warp ${row} (${bits(w.activeMask[row]!)} lanes): ${rgbText(px)}, want ${rgbText(want)}`);
    }
    const legend = app.shadowRoot!.querySelector('.sm-summary .legend');
    assert(legend !== null, 'a legend in the SM line');
    const fullEntry = legend.querySelector<HTMLElement>('.legend-entry[data-class="8"]')!;
    let fullWarps = 0;
    for (let i = 0; i < w.count; i++) if (bits(w.activeMask[i]!) === t.device.subgroupSize) fullWarps++;
    assert(fullEntry.title.includes(`${fullWarps.toLocaleString('en-US')} warps`), `the full-warp entry counts them: ${fullEntry.title}`);

    selectMode(app, 'stage');
    await app.updateComplete;
    assertEqual(app.coloring, null, 'back to stage: no classes');
    const back = await barPixel(app, partial);
    assert(near(back, rgbOf(STAGES[code('FS')]!.color)), `stage again: ${rgbText(back)}`);
  });

  it('branch at a mark: red where all the warp’s lanes reached it, yellow where some did, grey where none did', async () => {
    app = await sampleApp(MARKS_FILE);
    const t = app.opened!.trace;
    const w = t.warps;
    const m = t.marks!;
    // The shadow ray's trace call: the instrumenter's second "before trace" mark.
    const id = [...new Set(m.id)].sort((a, b) => a - b).find((x) => markLabel(x) === 'before trace #1')!;
    assert(id !== undefined, 'the sample has a mark before its second trace call');
    const byWarp = marksByWarp(t);
    // Warps with marks (ray generation), so a grey one is a warp that could have reached the mark.
    const pick = (k: 'all' | 'some' | 'none') => firstRow(t, (i) => w.durationNs[i]! > 2000 && byWarp.has(i) && branchOf(t, byWarp, i, id) === k);
    const rows = { all: pick('all'), some: pick('some'), none: pick('none') };
    selectMode(app, 'branch: before trace #1');
    await app.updateComplete;
    await waitFor('the branch coloring', () => app!.coloring?.colors.by.kind === 'branch');
    const rgb = { all: BRANCH_RGB[2]!, some: BRANCH_RGB[1]!, none: BRANCH_RGB[0]! };
    for (const k of ['all', 'some', 'none'] as const) {
      const px = await barPixel(app, rows[k]);
      assert(near(px, rgbOf(rgb[k])), `a warp whose lanes reached it: ${k}, drawn ${rgbText(px)}, want ${rgbText(rgbOf(rgb[k]))}`);
    }
    // The legend's counts: warps that reached the mark, split by whether all their lanes did.
    const marked = new Set<number>();
    for (let k = 0; k < m.count; k++) if (m.id[k] === id) marked.add(m.warp[k]!);
    let all = 0;
    for (const row of marked) if (branchOf(t, byWarp, row, id) === 'all') all++;
    const text = (cls: number) => app!.shadowRoot!.querySelector(`.legend-entry[data-class="${cls}"]`)!.textContent!.replace(/\s+/g, ' ').trim();
    assertEqual(text(2), `all lanes ${all.toLocaleString('en-US')}`, 'red count');
    assertEqual(text(1), `some lanes ${(marked.size - all).toLocaleString('en-US')}`, 'yellow count');
    assertEqual(text(0), `no lane ${(w.count - marked.size).toLocaleString('en-US')}`, 'grey count');
  });

  it('zoomed out, collapsed lanes and the overview stack their occupancy by class, not by stage', async () => {
    app = await sampleApp(MARKS_FILE);
    const tl = app.timeline!;
    const t = app.opened!.trace;
    tl.fitAll();
    await afterTwoFrames();
    const s = tl.screenLayout;
    const stageRgbs = ['RAYGEN', 'CLOSEST_HIT', 'ANY_HIT', 'INTERSECTION'].map((n) => rgbOf(STAGES.find((x) => x.name === n)!.color));
    const branchRgbs = [...BRANCH_RGB].map(rgbOf);
    /** Pixels of the lanes and the overview near each of `colors`. */
    const counts = (colors: number[][]) => {
      const out = colors.map(() => 0);
      for (const [y, h] of [[s.lanes.y, s.lanes.height], [s.overview.y, s.overview.height]] as const) {
        const px = tl.readPixels(s.gutter, y, timeWidth(s), h);
        for (let i = 0; i < px.length; i += 4) colors.forEach((c, k) => (out[k]! += near(px.subarray(i, i + 3), c, 6) ? 1 : 0));
      }
      return out;
    };
    assert(t.warps.count > 0 && tl.laneLayout.rows.every((r) => !r.expanded), 'every lane collapsed');
    const byStage = counts(stageRgbs);
    assert(byStage.every((n) => n > 0), `stage mode: ray-tracing stage colors drawn (${byStage.join(', ')} px)`);
    selectMode(app, 'branch: before trace #1');
    await app.updateComplete;
    await waitFor('the branch coloring', () => app!.coloring?.colors.by.kind === 'branch');
    await afterTwoFrames();
    const stagesLeft = counts(stageRgbs);
    assert(stagesLeft.every((n) => n === 0), `branch mode: no stage colors left (${stagesLeft.join(', ')} px)`);
    const byBranch = counts(branchRgbs);
    assert(byBranch.every((n) => n > 0), `branch mode: grey, yellow and red all drawn (${byBranch.join(', ')} px)`);
  });

  it('a trace of more than 300k warps gets its coloring in steps; a newer mode cancels an older one', async () => {
    app = await mountApp();
    assert(await app.openSynthetic(400_000), 'opens');
    await app.updateComplete;
    const o = app.opened!;
    assert(o.trace.warps.count > 300_000, `${o.trace.warps.count} warps`);
    app.colorBy = { kind: 'lanes' };
    await app.updateComplete;
    assertEqual(app.coloring, null, 'not built in the update that asked for it');
    const lanes = app.colors.settled;
    app.colorBy = { kind: 'stage' };
    await app.updateComplete;
    await lanes;
    assertEqual(app.coloring, null, 'the lanes build was given up for stage');
    app.colorBy = { kind: 'lanes' };
    await app.updateComplete;
    await app.colors.settled;
    const c = app.coloring!;
    assertEqual(c.colors.by.kind, 'lanes', 'built');
    assertEqual(c.pyramids.length, o.index.lanes.length, 'a class pyramid per lane');
    const w = o.trace.warps;
    for (let i = 0; i < w.count; i += 997) {
      const want = bits(w.activeMask[i]!) >= 32 ? 8 : Math.floor((bits(w.activeMask[i]!) * 8) / 32);
      if (c.colors.classOf[i] !== want) assert(false, `warp ${i}: class ${c.colors.classOf[i]}, want ${want}`);
    }
  });

  it('the mode is keyboard reachable and travels in the view link', async () => {
    app = await sampleApp(MARKS_FILE);
    const select = app.shadowRoot!.querySelector<HTMLSelectElement>('select[aria-label="Color warps by"]')!;
    select.focus();
    assertEqual(app.shadowRoot!.activeElement, select, 'the selector takes focus (Tab reaches it)');
    selectMode(app, 'branch: after trace #0');
    await app.updateComplete;
    const link = app.viewLink()!;
    const mark = (app.colorBy as { mark: number }).mark;
    assert(link.includes(`color=branch:${mark}`), `the link holds the mode: ${link}`);
    app.remove();

    // A page opened at that link restores the mode once the same trace is opened.
    const pageHref = location.href;
    history.replaceState(history.state, '', link);
    try {
      const el = document.createElement('warptrace-app');
      el.pageLink = true;
      el.sampleBase = `${FIXTURE_BASE}missing/`;
      el.store = new RecentsStore(idbBackend(`warptrace-color-${Math.random().toString(36).slice(2)}`));
      el.style.cssText = 'display:flex;position:fixed;left:0;top:0;width:1200px;height:800px;';
      document.body.append(el);
      app = el;
      await waitFor('the sample index to fail', () => el.sampleProblem !== null);
      assert(await el.openFile(new Blob([bytes.get(MARKS_FILE)!]), MARKS_FILE), 'opens');
      await waitFor('the mode restored', () => el.colorBy.kind === 'branch' && el.colorBy.mark === mark);
      await waitFor('its coloring', () => el.coloring?.colors.by.kind === 'branch');
      const shown = el.shadowRoot!.querySelector<HTMLSelectElement>('select[aria-label="Color warps by"]')!;
      assertEqual(shown.value, `branch:${mark}`, 'the selector shows it');
    } finally {
      history.replaceState(history.state, '', pageHref);
    }
  });
});
