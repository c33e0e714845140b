/**
 * `warptrace capture --budget B -- APP`: the app is captured again, at most
 * MAX_BUDGET_RUNS times in all, until its traced frame takes at most B times
 * the untraced frames before it (the trace's capture.overhead). Each run after
 * the first samples at the rates chooseRates (app-budget.ts) picks from the
 * last run's ratio and recorded warps. Each run writes to a temporary folder;
 * the first run within budget, or else the run with the lowest ratio, becomes
 * the output, with its summary. Every run tells the layer the budget
 * (WARPTRACE_SAMPLE_BUDGET): the trace's sampling says its rates were chosen
 * by the budget, and its parameters say `budget` even where no stage was
 * sampled. A run's own second capture for dropped records (--capacity auto)
 * happens inside that run, as without --budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_SAMPLE_EVERY, decodeWtrace, type Trace } from '../../shared-schema/index.js';
import { oneLine, type CliIo } from '../../cli/command.js';
import { readInputFile, writeFileAtomic } from '../../cli/files.js';
import type { SampleRates } from '../../cli/commands/capture-sample.js';
import type { AppCaptureOptions, CaptureOnce } from './app-capture.js';
import { describeSelection } from './app-environment.js';
import { FIRST_RUN, MIN_RECORDED_WARPS, chooseAfterRun, describeRates, recordedWarpsByStage } from './app-budget.js';

/** Runs of the app in all, the first included: each one re-launches the app and waits for its frame. */
export const MAX_BUDGET_RUNS = 5;

/** A run whose capture was written. */
interface BudgetRun {
  readonly run: number;
  readonly output: string;
  readonly raw: string | null;
  /** Its summary (stdout), told only if it is kept. */
  readonly summary: readonly string[];
  readonly rates: SampleRates;
  /** Traced over untraced frame time; null: the layer did not time the frame. */
  readonly ratio: number | null;
  /** "frame 60". */
  readonly frame: string;
}

/** Runs `capture` until a run is within `budget`; returns the exit status (that of a first run that captured nothing). */
export async function captureWithinBudget(
  options: AppCaptureOptions,
  budget: number,
  io: CliIo,
  capture: (options: AppCaptureOptions, io: CliIo) => Promise<CaptureOnce>,
): Promise<number> {
  const temp = mkdtempSync(join(tmpdir(), 'warptrace-budget-'));
  const say = (text: string) => io.err(`warptrace: ${oneLine(text)}`);
  const shownBudget = formatBudget(budget);
  let best: BudgetRun | null = null;
  let rates: SampleRates = options.selection.sample ?? {};
  // What the sampling test costs whatever the rates (app-budget.ts "The floor"), learnt from each sampled run's miss.
  let memory = FIRST_RUN;
  let status = 0;
  /** Why the runs ended, for the final line; null: the kept run met the budget. */
  let unmet: string | null = null;
  const forget = (run: BudgetRun) => {
    rmSync(run.output, { force: true });
    if (run.raw !== null) rmSync(run.raw, { force: true });
  };
  try {
    for (let n = 1; ; n++) {
      const output = join(temp, `run-${n}.wtrace`);
      const raw = options.raw === null ? null : join(temp, `run-${n}.wtraw`);
      const summary: string[] = [];
      const result = await capture(
        {
          ...options,
          output,
          raw,
          force: true,
          shownAs: { output: options.output, raw: options.raw },
          selection: { ...options.selection, sample: Object.keys(rates).length === 0 ? null : rates, sampleBudget: budget },
        },
        { out: (text) => summary.push(text), err: (text) => io.err(text) },
      );
      if (result.ending === null) {
        // Nothing captured: the run said why. A first run's failure is the command's.
        if (best === null) return result.status;
        status = result.status;
        unmet = `after ${n} runs: run ${n} ${status === 130 || status === 143 ? 'was interrupted' : 'captured nothing (see above)'}`;
        break;
      }
      const trace = decodeWtrace(readInputFile(output));
      const run: BudgetRun = { run: n, output, raw, summary, rates, ratio: frameRatio(trace), frame: frameOf(trace, options) };
      const previous: BudgetRun | null = best;
      if (previous === null || (run.ratio !== null && (previous.ratio === null || run.ratio < previous.ratio))) {
        if (previous !== null) forget(previous);
        best = run;
      } else {
        forget(run);
      }
      if (run.ratio === null) {
        unmet = `the layer did not time ${run.frame} against the frames before it, so the budget cannot be checked`;
        break;
      }
      // Within budget: lower than every run before it, which were all over.
      if (run.ratio <= budget) {
        unmet = null;
        break;
      }
      const runs = `after ${n} run${n === 1 ? '' : 's'}`;
      if (result.ending === 'interrupted') {
        status = result.status;
        unmet = `${runs}: interrupted`;
        break;
      }
      if (result.ending === 'ran-on') {
        unmet = `${runs}: the app ran on after the capture, so it is not captured again (with --exit-after the command ends it and captures again)`;
        break;
      }
      if (n === MAX_BUDGET_RUNS) {
        unmet = `${runs}, the most --budget takes`;
        break;
      }
      const next = chooseAfterRun(memory, { rates, ratio: run.ratio, budget, recorded: recordedWarpsByStage(trace.warps.stage, trace.warps.count) });
      const choice = next.choice;
      memory = next.memory;
      if (!choice.raised) {
        unmet = `${runs}: no stage is left to sample more (each keeps at least ${MIN_RECORDED_WARPS} recorded warps, or is at 1 in ${MAX_SAMPLE_EVERY})`;
        break;
      }
      const again = options.selection.trigger === null ? '' : `; touch ${options.selection.trigger} again when the app shows the frame`;
      say(`${run.frame} traced at ${run.ratio.toFixed(2)}x the untraced frames (budget ${shownBudget}): capturing again with ${describeRates(choice.rates)}${again}`);
      rates = choice.rates;
    }
    if (best === null) return status;
    await writeFileAtomic(options.output, [readInputFile(best.output)], { overwrite: options.force });
    if (options.raw !== null && best.raw !== null) await writeFileAtomic(options.raw, [readInputFile(best.raw)], { overwrite: options.force });
    for (const text of best.summary) io.out(text);
    io.out(`  ${budgetLine(best, shownBudget, unmet)}`);
    return status;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The final line: the budget met, with the rates chosen, or plainly not, with the lowest ratio reached and why the runs ended. */
function budgetLine(kept: BudgetRun, budget: string, unmet: string | null): string {
  const rates = kept.rates;
  const withRates = Object.keys(rates).length === 0 ? 'every warp recorded' : describeRates(rates);
  if (kept.ratio === null) return `budget ${budget} not checked: ${unmet ?? 'no overhead figure'}; kept run ${kept.run}, with ${withRates}`;
  const reached = `${kept.frame} traced at ${kept.ratio.toFixed(2)}x the untraced frames, with ${withRates}`;
  if (unmet === null) return `budget ${budget} met in run ${kept.run}: ${reached}`;
  return `budget ${budget} NOT met ${unmet}; kept the lowest, run ${kept.run}: ${reached}`;
}

function frameRatio(trace: Trace): number | null {
  const o = trace.capture.overhead;
  if (o === null || !(o.plainFrameNs > 0) || !(o.tracedFrameNs > 0)) return null;
  return o.tracedFrameNs / o.plainFrameNs;
}

function frameOf(trace: Trace, options: AppCaptureOptions): string {
  const frame = trace.capture.layer?.frame ?? null;
  return frame === null ? describeSelection(options.selection) : `frame ${frame}`;
}

/** 1.1 as "1.10", as the user would write a 10% budget; finer and larger budgets as given. */
function formatBudget(budget: number): string {
  const hundredths = Math.round(budget * 100);
  return budget < 10 && Math.abs(budget * 100 - hundredths) < 1e-9 ? (hundredths / 100).toFixed(2) : String(budget);
}
