// One warp of invocations through an instrumented entry point (spirv-interpreter.ts): every lane runs the
// function in turn until it reaches a subgroup operation; when every lane still running waits at the same one,
// its result is given to each (the lanes waiting there are the active ones), and they go on. Lanes waiting at
// different subgroup operations at once would need the device's scheduling: that throws (the tests fail rather
// than guess). Enough for the instrumenter's wrappers, whose subgroup operations all lanes reach together.
import { GroupOperation, Op } from '../../instrument/model/spec.js';
import type { DeviceMemory, GroupWait, SpirvInterpreter, Value } from './spirv-interpreter.js';

/** A lane: its index in the subgroup (its ballot bit) and its built-in inputs (by BuiltIn). */
export interface Lane {
  readonly index: number;
  readonly inputs: ReadonlyMap<number, Value>;
}

/** Runs function `id` (a wrapper: no parameters) in every lane of `lanes`; `stubs` are functions whose calls return at once. */
export function runWarp(gpu: SpirvInterpreter, memory: DeviceMemory, id: number, lanes: readonly Lane[], stubs: ReadonlySet<number>): void {
  const indices = new Set(lanes.map((l) => l.index));
  if (indices.size !== lanes.length || lanes.some((l) => !(l.index >= 0 && l.index < 64))) throw new Error('lane indices must be distinct, 0 to 63');
  let running = lanes.map((lane) => ({ lane, steps: gpu.run(memory, { privates: gpu.invocation(), inputs: lane.inputs }, id, [], stubs), result: 0 as Value }));
  for (;;) {
    const waiting: { lane: Lane; wait: GroupWait; entry: (typeof running)[number] }[] = [];
    for (const entry of running) {
      const step = entry.steps.next(entry.result);
      if (!step.done) waiting.push({ lane: entry.lane, wait: step.value, entry });
    }
    if (waiting.length === 0) return;
    const inst = waiting[0]!.wait.inst;
    if (waiting.some((w) => w.wait.inst !== inst)) throw new Error('lanes wait at different subgroup operations at once');
    const results = groupResults(inst.opcode, inst.words, waiting.map((w) => ({ index: w.lane.index, operand: w.wait.operand })));
    waiting.forEach((w, k) => (w.entry.result = results[k]!));
    running = waiting.map((w) => w.entry);
  }
}

/** The result of a subgroup operation for each active lane (in the order given). */
function groupResults(opcode: number, words: Uint32Array, active: readonly { index: number; operand: number | boolean | null }[]): Value[] {
  const lowest = Math.min(...active.map((a) => a.index));
  switch (opcode) {
    case Op.GroupNonUniformElect:
      return active.map((a) => a.index === lowest);
    case Op.GroupNonUniformBallot: {
      const ballot = [0, 0, 0, 0];
      for (const a of active) if (a.operand === true) ballot[a.index >> 5] = (ballot[a.index >> 5]! | (1 << (a.index & 31))) >>> 0;
      return active.map(() => ballot);
    }
    case Op.GroupNonUniformUMin:
    case Op.GroupNonUniformUMax: {
      if (words[4] !== GroupOperation.Reduce) throw new Error(`group operation ${words[4]} (only Reduce is run)`);
      const operands = active.map((a) => a.operand as number);
      const reduced = opcode === Op.GroupNonUniformUMin ? Math.min(...operands) : Math.max(...operands);
      return active.map(() => reduced);
    }
    default:
      throw new Error(`the warp does not run subgroup opcode ${opcode}`);
  }
}
