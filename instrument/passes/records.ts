/**
 * The records pass: every traced entry point gets a wrapper function that
 * reads the clocks around the original entry and writes one warp-trace record
 * (record-wrapper.ts), and the entry point now names the wrapper.
 */
import { Capability, Extension, ExecutionModel, Scope, SPIRV_1_4, StorageClass, MemoryModel } from '../model/spec.js';
import { Section } from '../model/module.js';
import type { InstrumentPass, PassContext, TracedEntry } from './pass.js';
import { emitWrapper } from './record-wrapper.js';
import { sampledFlagVariable } from './sample-code.js';

export const recordsPass: InstrumentPass = {
  name: 'records',
  declare(context) {
    const { editor, entries, options } = context;
    editor.addCapability(Capability.ShaderClockKHR);
    editor.addExtension(Extension.shaderClock);
    if (entries.some((e) => e.subgroup === 'core')) {
      editor.addCapability(Capability.GroupNonUniform);
      editor.addCapability(Capability.GroupNonUniformBallot);
    }
    if (entries.some((e) => e.subgroup === 'khr-ballot')) {
      editor.addCapability(Capability.SubgroupBallotKHR);
      editor.addExtension(Extension.shaderBallot);
    }
    if (context.smBuiltins) {
      editor.addCapability(Capability.ShaderSMBuiltinsNV);
      editor.addExtension(Extension.smBuiltins);
    }
    const fsPrimitiveId = entries.some((e) => e.stage === 'FS' && options.customIds.FS === 'primitive-id');
    if (fsPrimitiveId && !editor.hasCapability(Capability.Geometry) && !editor.hasCapability(Capability.Tessellation)) {
      editor.addCapability(Capability.Geometry);
      context.notes.push('fragment custom id gl_PrimitiveID needs the Geometry capability (the geometryShader feature); --stage-id fs=frag-coord or fs=none avoid it');
    }
  },
  record(context) {
    for (const entry of context.entries) wrapEntry(context, entry);
  },
};

function wrapEntry(context: PassContext, entry: TracedEntry): void {
  const { editor, decl, options } = context;
  const parts = context.recordParts.get(entry.index)!;
  const customId = options.customIds[entry.stage];
  // Records and marks inside the entry point test the wrapper's decision, kept in a private variable.
  const inside = parts.marks !== null || parts.reportRecord !== null || parts.reorder !== null;
  const sampledFlag = options.sampling === 'runtime' && inside ? sampledFlagVariable(decl) : null;
  const wrapper = emitWrapper(decl, {
    stage: entry.stage,
    originalFunction: entry.functionId,
    entryInterface: entry.interfaceIds,
    subgroup: entry.subgroup,
    smBuiltins: context.smBuiltins,
    subgroupClock: options.subgroupClock,
    deviceClock: options.deviceClock,
    customId,
    atomicScope: editor.memoryModel()[1] === MemoryModel.Vulkan ? Scope.QueueFamily : Scope.Device,
    helperViaInstruction: editor.hasCapability(Capability.DemoteToHelperInvocation),
    set: options.set,
    binding: options.binding,
    ending: parts.ending,
    position: parts.position,
    sampling: options.sampling,
    sampledFlag,
    reportRecord: parts.reportRecord,
    reorder: parts.reorder,
    blocks: parts.blocks,
    marks: parts.marks,
    rayEvents: parts.rayEvents,
    nvMesh: entry.executionModel === ExecutionModel.TaskNV || entry.executionModel === ExecutionModel.MeshNV,
  });
  editor.append(Section.Function, ...wrapper.code);
  editor.addName(wrapper.functionId, `warptrace_${entry.name}`);
  // Before SPIR-V 1.4 an entry point lists only its Input and Output variables.
  const isInterface = (id: number) => {
    if (editor.version >= SPIRV_1_4) return true;
    const sc = editor.globalDef(id)?.words[3];
    return sc === StorageClass.Input || sc === StorageClass.Output;
  };
  const added = wrapper.globals.filter((id) => isInterface(id) && !entry.interfaceIds.includes(id));
  editor.replaceEntryPoint(entry.index, wrapper.functionId, [...entry.interfaceIds, ...added]);
  context.wrappersOf.set(entry.functionId, [...(context.wrappersOf.get(entry.functionId) ?? []), wrapper.functionId]);
  context.reports.push({
    name: entry.name,
    stage: entry.stage,
    subgroup: entry.subgroup,
    smBuiltins: context.smBuiltins,
    customId,
    flags: wrapper.flags,
    sampled: options.sampling === 'runtime',
    position: parts.position !== null,
  });
}
