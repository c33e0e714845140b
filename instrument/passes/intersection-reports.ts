/**
 * The intersection-reports pass: an OpReportIntersectionKHR that accepts the hit
 * of a terminate-on-first-hit ray, or whose any-hit shader terminates the ray,
 * ends the intersection invocation inside the call, so the wrapper's record
 * after the entry point never runs for those lanes (5,022 of 103,721
 * intersection lanes of our ray-tracing workload on the H200). Unlike an
 * ending, it cannot be deferred: whether it returns is the driver's decision.
 * So every report is preceded by a call that records the lanes reaching it
 * (once per invocation: a private flag), and the wrapper records only the lanes
 * that never reported (record-wrapper.ts, reportRecordFunction).
 */
import { instruction } from '../model/binary.js';
import { parseFunctions, reachableFrom, writeFunctions } from '../model/functions.js';
import { Section } from '../model/module.js';
import { Op, StorageClass } from '../model/spec.js';
import type { InstrumentPass } from './pass.js';

export const intersectionReportsPass: InstrumentPass = {
  name: 'intersection-reports',
  transform(context) {
    const { editor, decl } = context;
    const intersections = context.entries.filter((e) => e.stage === 'INTERSECTION');
    if (intersections.length === 0) return;
    const section = parseFunctions(editor.section(Section.Function));
    const byId = new Map(section.functions.map((f) => [f.id, f]));
    const reports = (id: number) => byId.get(id)?.blocks.some((b) => b.body.some((i) => i.opcode === Op.ReportIntersectionKHR)) === true;
    const reporting = intersections.filter((e) => [...reachableFrom(e.functionId, byId)].some(reports));
    if (reporting.length === 0) return;
    if (reporting.length > 1) {
      // Their reports may share functions, and one call before a report cannot serve two wrappers' records.
      context.notes.push('several intersection entry points report hits: lanes whose report ends the invocation are not recorded');
      return;
    }
    const entry = reporting[0]!;
    const functionId = editor.allocId();
    const recorded = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.bool), id, StorageClass.Private, decl.constantFalse]);
    const start = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.uint), id, StorageClass.Private, decl.u32(0)]);
    editor.addName(functionId, 'warptrace_record_at_report');
    editor.addName(recorded, 'warptrace_reported');
    editor.addName(start, 'warptrace_start');
    for (const id of reachableFrom(entry.functionId, byId)) {
      for (const block of byId.get(id)!.blocks) {
        if (!block.body.some((i) => i.opcode === Op.ReportIntersectionKHR)) continue;
        block.body = block.body.flatMap((i) =>
          i.opcode === Op.ReportIntersectionKHR ? [instruction(Op.FunctionCall, [decl.void, editor.allocId(), functionId]), i] : [i],
        );
      }
    }
    editor.replaceSection(Section.Function, writeFunctions(section));
    context.recordParts.get(entry.index)!.reportRecord = { functionId, recorded, start };
  },
};
