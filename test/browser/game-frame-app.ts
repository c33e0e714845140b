/** Opening the game-like frame (test/node/game-frame.ts) in a fresh app, as a user opens a file; and reading a warp's bar. */
import { encodeWtrace, smOfWarp } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { warpSlotY } from '../../viewer/components/timeline-navigation.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { gameFrameTrace } from '../node/game-frame.js';
import { assert } from './assert.js';
import { afterTwoFrames, mountApp } from './viewer-helpers.js';

let gameFile: Blob | null = null;

export function gameFrameFile(): Blob {
  gameFile ??= new Blob([encodeWtrace(gameFrameTrace()) as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' });
  return gameFile;
}

export async function openGameFrame(options: { panels?: boolean } = {}): Promise<WarptraceApp> {
  const app = await mountApp();
  if (options.panels === true) {
    const panels = document.createElement('wt-analysis-panels');
    panels.slot = 'panels';
    app.append(panels);
  }
  assert(await app.openFile(gameFrameFile(), 'game-frame.wtrace'), 'opens the game frame');
  await app.updateComplete;
  await app.timeline!.ready();
  return app;
}

/** Shows warp `row` across the timeline in its expanded lane and reads the pixel in the middle of its bar. */
export async function warpBarPixel(app: WarptraceApp, row: number): Promise<Uint8ClampedArray> {
  const tl = app.timeline!;
  const t = app.opened!.trace;
  const w = t.warps;
  const start = w.startNs[row]!;
  tl.revealWarp(row);
  tl.zoomTo(start, start + w.durationNs[row]!, 0.5);
  await tl.updateComplete;
  await afterTwoFrames();
  const lane = tl.laneLayout.rows.find((r) => r.sm === smOfWarp(w.smGroups, row))!;
  const y = warpSlotY(t, app.opened!.index, lane, row) + lane.slotRowHeight / 2;
  const s = tl.screenLayout;
  const v = tl.visibleWindow;
  const x = Math.round(s.gutter + ((start + w.durationNs[row]! / 2 - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s));
  const py = Math.round(s.lanes.y + y - tl.verticalScroll);
  assert(tl.warpAtPoint(x, py) === row, `the pixel (${x}, ${py}) is warp ${row}'s (hit ${tl.warpAtPoint(x, py)})`);
  return tl.readPixels(x, py, 1, 1);
}
