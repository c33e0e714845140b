/**
 * The endings pass: instructions that would end an invocation before its
 * record (fragment discards unless `--discard kill`, any-hit ignore/terminate,
 * the task shader's OpEmitMeshTasksEXT) are deferred past it. The rewrite is
 * ending-deferral.ts; the record wrapper performs the ending after the record.
 */
import { ExecutionModel } from '../model/spec.js';
import { ANY_HIT_ENDINGS, deferEndings, FRAGMENT_DISCARD, TASK_EMIT, type EndingKind } from './ending-deferral.js';
import type { InstrumentPass, PassContext, TracedEntry } from './pass.js';

function defer(context: PassContext, kind: EndingKind, selected: readonly TracedEntry[]): void {
  if (selected.length === 0) return;
  const deferred = deferEndings(context.decl, kind, selected, context.untracedEntries);
  if (deferred === null) return;
  for (const e of selected) if (deferred.functions.has(e.functionId)) context.recordParts.get(e.index)!.ending = deferred;
}

export const endingsPass: InstrumentPass = {
  name: 'endings',
  transform(context) {
    const { entries } = context;
    if (context.options.discard === 'defer') defer(context, FRAGMENT_DISCARD, entries.filter((e) => e.stage === 'FS'));
    defer(context, ANY_HIT_ENDINGS, entries.filter((e) => e.stage === 'ANY_HIT'));
    defer(context, TASK_EMIT, entries.filter((e) => e.executionModel === ExecutionModel.TaskEXT));
  },
};
