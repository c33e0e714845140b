/**
 * The subset of the SPIR-V specification (unified headers, 1.6 rev. 2) the
 * reader, writer and instrumenter need. Values are the spec's enumerants;
 * the tests assemble every instrumented module through Debian's spirv-val,
 * which catches a wrong number.
 */

export const SPIRV_MAGIC = 0x07230203;
/** Header words: magic, version, generator, bound, schema. */
export const HEADER_WORDS = 5;
/**
 * The largest id bound a module may declare (ids up to 0x3FFFFE): SPIR-V's
 * universal limit, the least every Vulkan implementation accepts, and the
 * bound past which spirv-val rejects a module.
 */
export const MAX_ID_BOUND = 0x3fffff;

/** Version word for SPIR-V major.minor (0x00MMmm00). */
export function spirvVersion(major: number, minor: number): number {
  return (major << 16) | (minor << 8);
}
export const SPIRV_1_0 = spirvVersion(1, 0);
export const SPIRV_1_3 = spirvVersion(1, 3);
export const SPIRV_1_4 = spirvVersion(1, 4);
export const SPIRV_1_6 = spirvVersion(1, 6);

export function formatSpirvVersion(version: number): string {
  return `${(version >>> 16) & 0xff}.${(version >>> 8) & 0xff}`;
}

export const Op = {
  Nop: 0,
  Undef: 1,
  SourceContinued: 2,
  Source: 3,
  SourceExtension: 4,
  Name: 5,
  MemberName: 6,
  String: 7,
  Line: 8,
  Extension: 10,
  ExtInstImport: 11,
  ExtInst: 12,
  MemoryModel: 14,
  EntryPoint: 15,
  ExecutionMode: 16,
  Capability: 17,
  TypeVoid: 19,
  TypeBool: 20,
  TypeInt: 21,
  TypeFloat: 22,
  TypeVector: 23,
  TypeRuntimeArray: 29,
  TypeStruct: 30,
  TypePointer: 32,
  TypeFunction: 33,
  TypePipe: 38,
  TypeForwardPointer: 39,
  TypePipeStorage: 322,
  TypeNamedBarrier: 327,
  TypeRayQueryKHR: 4472,
  TypeAccelerationStructureKHR: 5341,
  ConstantTrue: 41,
  ConstantFalse: 42,
  Constant: 43,
  SpecConstant: 50,
  Function: 54,
  FunctionParameter: 55,
  FunctionEnd: 56,
  FunctionCall: 57,
  Variable: 59,
  Load: 61,
  Store: 62,
  AccessChain: 65,
  ArrayLength: 68,
  Decorate: 71,
  MemberDecorate: 72,
  DecorationGroup: 73,
  GroupDecorate: 74,
  GroupMemberDecorate: 75,
  CompositeConstruct: 80,
  CompositeExtract: 81,
  ConvertFToU: 109,
  UConvert: 113,
  Bitcast: 124,
  IAdd: 128,
  ISub: 130,
  IMul: 132,
  UDiv: 134,
  IEqual: 170,
  INotEqual: 171,
  ULessThan: 176,
  ULessThanEqual: 178,
  LogicalOr: 166,
  LogicalAnd: 167,
  LogicalNot: 168,
  Select: 169,
  ShiftRightLogical: 194,
  ShiftLeftLogical: 196,
  BitwiseOr: 197,
  BitwiseXor: 198,
  BitwiseAnd: 199,
  BitCount: 205,
  AtomicIAdd: 234,
  AtomicUMin: 237,
  AtomicUMax: 239,
  Phi: 245,
  LoopMerge: 246,
  SelectionMerge: 247,
  Label: 248,
  Branch: 249,
  BranchConditional: 250,
  Switch: 251,
  Kill: 252,
  Return: 253,
  ReturnValue: 254,
  Unreachable: 255,
  NoLine: 317,
  ModuleProcessed: 330,
  ExecutionModeId: 331,
  DecorateId: 332,
  GroupNonUniformElect: 333,
  GroupNonUniformBroadcastFirst: 338,
  GroupNonUniformBallot: 339,
  GroupNonUniformUMin: 354,
  GroupNonUniformUMax: 357,
  TerminateInvocation: 4416,
  // Trace calls (--marks trace): the ray leaves the invocation and comes back.
  TraceRayKHR: 4445,
  HitObjectTraceRayMotionNV: 5256,
  HitObjectTraceRayNV: 5260,
  HitObjectTraceRayEXT: 5316,
  HitObjectTraceRayMotionEXT: 5317,
  TraceNV: 5337,
  TraceMotionNV: 5338,
  TraceRayMotionNV: 5339,
  IgnoreIntersectionKHR: 4448,
  TerminateRayKHR: 4449,
  EmitMeshTasksEXT: 5294,
  // Also OpReportIntersectionNV (the same opcode).
  ReportIntersectionKHR: 5334,
  // Shader execution reordering (SPV_NV_shader_invocation_reorder, SPV_EXT_shader_invocation_reorder).
  ReorderThreadWithHitObjectNV: 5279,
  ReorderThreadWithHintNV: 5280,
  HitObjectReorderExecuteShaderEXT: 5310,
  HitObjectTraceReorderExecuteEXT: 5311,
  HitObjectTraceMotionReorderExecuteEXT: 5312,
  ReorderThreadWithHintEXT: 5314,
  ReorderThreadWithHitObjectEXT: 5315,
  // Hit-object execution: the hit's closest-hit or miss shader runs inside the call (SER).
  HitObjectExecuteShaderNV: 5264,
  HitObjectExecuteShaderEXT: 5319,
  IgnoreIntersectionNV: 5335,
  TerminateRayNV: 5336,
  SubgroupBallotKHR: 4421,
  SubgroupFirstInvocationKHR: 4422,
  ReadClockKHR: 5056,
  DemoteToHelperInvocation: 5380,
  IsHelperInvocationEXT: 5381,
  DecorateString: 5632,
  MemberDecorateString: 5633,
} as const;

export const Capability = {
  Shader: 1,
  Geometry: 2,
  Tessellation: 3,
  Kernel: 6,
  Int64: 11,
  Int64Atomics: 12,
  GroupNonUniform: 61,
  GroupNonUniformArithmetic: 63,
  GroupNonUniformBallot: 64,
  SubgroupBallotKHR: 4423,
  ShaderClockKHR: 5055,
  VulkanMemoryModel: 5345,
  DemoteToHelperInvocation: 5379,
  ShaderSMBuiltinsNV: 5373,
} as const;

export const Decoration = {
  SpecId: 1,
  Block: 2,
  BufferBlock: 3,
  ArrayStride: 6,
  BuiltIn: 11,
  Flat: 14,
  Volatile: 21,
  NonWritable: 24,
  Location: 30,
  Binding: 33,
  DescriptorSet: 34,
  Offset: 35,
} as const;

export const BuiltIn = {
  PrimitiveId: 7,
  InvocationId: 8,
  TessCoord: 13,
  FragCoord: 15,
  HelperInvocation: 23,
  NumWorkgroups: 24,
  WorkgroupId: 26,
  GlobalInvocationId: 28,
  LocalInvocationIndex: 29,
  SubgroupSize: 36,
  SubgroupId: 40,
  SubgroupLocalInvocationId: 41,
  VertexIndex: 42,
  InstanceIndex: 43,
  LaunchIdKHR: 5319,
  LaunchSizeKHR: 5320,
  RayTmaxKHR: 5326,
  InstanceCustomIndexKHR: 5327,
  WarpIDNV: 5376,
  SMIDNV: 5377,
} as const;

export const StorageClass = {
  UniformConstant: 0,
  Input: 1,
  Uniform: 2,
  Output: 3,
  Workgroup: 4,
  Private: 6,
  Function: 7,
  PushConstant: 9,
  StorageBuffer: 12,
} as const;

export const ExecutionModel = {
  Vertex: 0,
  TessellationControl: 1,
  TessellationEvaluation: 2,
  Geometry: 3,
  Fragment: 4,
  GLCompute: 5,
  Kernel: 6,
  TaskNV: 5267,
  MeshNV: 5268,
  RayGenerationKHR: 5313,
  IntersectionKHR: 5314,
  AnyHitKHR: 5315,
  ClosestHitKHR: 5316,
  MissKHR: 5317,
  CallableKHR: 5318,
  TaskEXT: 5364,
  MeshEXT: 5365,
} as const;

export const MemoryModel = { GLSL450: 1, Vulkan: 3 } as const;

/** GroupOperation operand of the subgroup arithmetic instructions. */
export const GroupOperation = { Reduce: 0 } as const;

export const Scope = { CrossDevice: 0, Device: 1, Workgroup: 2, Subgroup: 3, Invocation: 4, QueueFamily: 5 } as const;

export const MemorySemantics = { Relaxed: 0 } as const;

export const Extension = {
  shaderClock: 'SPV_KHR_shader_clock',
  smBuiltins: 'SPV_NV_shader_sm_builtins',
  shaderBallot: 'SPV_KHR_shader_ballot',
  storageBuffer: 'SPV_KHR_storage_buffer_storage_class',
  demoteToHelper: 'SPV_EXT_demote_to_helper_invocation',
} as const;

/** Human names for error messages. */
export function executionModelName(model: number): string {
  for (const [name, value] of Object.entries(ExecutionModel)) if (value === model) return name;
  return `ExecutionModel(${model})`;
}
