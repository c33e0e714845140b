/** The stage of each execution model the instrumenter traces (NV and EXT task/mesh alike). */
import type { InstrumentedStage } from '../options.js';
import { ExecutionModel } from './spec.js';

export const STAGE_OF_EXECUTION_MODEL: ReadonlyMap<number, InstrumentedStage> = new Map<number, InstrumentedStage>([
  [ExecutionModel.Vertex, 'VS'],
  [ExecutionModel.TessellationControl, 'TCS'],
  [ExecutionModel.TessellationEvaluation, 'TES'],
  [ExecutionModel.Geometry, 'GS'],
  [ExecutionModel.Fragment, 'FS'],
  [ExecutionModel.GLCompute, 'CS'],
  [ExecutionModel.TaskEXT, 'TASK'],
  [ExecutionModel.MeshEXT, 'MESH'],
  [ExecutionModel.TaskNV, 'TASK'],
  [ExecutionModel.MeshNV, 'MESH'],
  [ExecutionModel.RayGenerationKHR, 'RAYGEN'],
  [ExecutionModel.AnyHitKHR, 'ANY_HIT'],
  [ExecutionModel.ClosestHitKHR, 'CLOSEST_HIT'],
  [ExecutionModel.MissKHR, 'MISS'],
  [ExecutionModel.IntersectionKHR, 'INTERSECTION'],
  [ExecutionModel.CallableKHR, 'CALLABLE'],
]);
