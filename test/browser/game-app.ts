/**
 * The full app with the analysis panels on the game-like frame of issue 24
 * (test/node/synthetic-game-frame.ts: 2,025 draws in 23 passes, asset-path labels
 * without spaces), at a window size, as a user opens it.
 */
import { setViewport } from '@web/test-runner-commands';
import { encodeWtrace, type Trace } from '../../shared-schema/index.js';
import type { AnalysisSummary } from '../../analysis/summary.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtAnalysisPanels } from '../../viewer/panels/wt-analysis-panels.js';
import '../../viewer/panels/index.js';
import { gameFrameTrace } from '../node/synthetic-game-frame.js';
import { assert } from './assert.js';
import { mountApp, waitFor } from './viewer-helpers.js';

let cached: Trace | null = null;
/** Built once per test file (the generator takes a few hundred ms). */
export function gameTrace(): Trace {
  return (cached ??= gameFrameTrace());
}

export interface GameApp {
  readonly app: WarptraceApp;
  readonly panels: WtAnalysisPanels;
  readonly summary: AnalysisSummary;
}

export async function openApp(trace: Trace, name: string, width: number, height: number): Promise<GameApp> {
  await setViewport({ width, height });
  const app = await mountApp();
  app.style.width = `${width}px`;
  app.style.height = `${height}px`;
  const panels = document.createElement('wt-analysis-panels');
  panels.slot = 'panels';
  app.append(panels);
  assert(await app.openFile(new Blob([encodeWtrace(trace) as BlobPart]), name), `${name} opens`);
  await app.timeline!.ready();
  const summary = await waitFor('the analysis', () => panels.summary, 60000);
  await settle(app);
  return { app, panels, summary };
}

export function openGameApp(width = 1600, height = 1000): Promise<GameApp> {
  return openApp(gameTrace(), 'game.wtrace', width, height);
}

/** The app and its panels rendered, and two frames drawn. */
export async function settle(app: WarptraceApp): Promise<void> {
  await app.updateComplete;
  const panels = app.querySelector('wt-analysis-panels');
  await panels?.updateComplete;
  for (const el of panels?.shadowRoot?.querySelectorAll('*') ?? []) await (el as Partial<{ updateComplete: Promise<unknown> }>).updateComplete;
  await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(r));
}
