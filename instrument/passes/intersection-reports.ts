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
import { Op } from '../model/spec.js';
import { bracketSites, recordPointVariables, soleEntryReaching } from './call-sites.js';
import type { InstrumentPass } from './pass.js';

const REPORTS: ReadonlySet<number> = new Set([Op.ReportIntersectionKHR]);

export const intersectionReportsPass: InstrumentPass = {
  name: 'intersection-reports',
  transform(context) {
    const { editor } = context;
    // Their reports may share functions, and one call before a report cannot serve two wrappers' records.
    const sites = soleEntryReaching(context, 'INTERSECTION', REPORTS, 'several intersection entry points report hits: lanes whose report ends the invocation are not recorded');
    if (sites === null) return;
    const functionId = editor.allocId();
    editor.addName(functionId, 'warptrace_record_at_report');
    const { flag: recorded, start } = recordPointVariables(context, 'warptrace_reported');
    bracketSites(context, sites, REPORTS, functionId, null);
    context.recordParts.get(sites.entry.index)!.reportRecord = { functionId, recorded, start };
  },
};
