/**
 * Shader stages. The numeric code is what a GPU record stores (4 bits), so
 * the codes are part of the file formats: never renumber, only append.
 */
export const Stage = {
  VS: 0,
  TCS: 1,
  TES: 2,
  GS: 3,
  FS: 4,
  CS: 5,
  TASK: 6,
  MESH: 7,
  RAYGEN: 8,
  ANY_HIT: 9,
  CLOSEST_HIT: 10,
  MISS: 11,
  INTERSECTION: 12,
  CALLABLE: 13,
  /**
   * Ray generation after a shader-execution-reordering point (reorderThreadNV/EXT, and the fused
   * reorder-and-execute calls): the driver re-forms the launch's warps there, so the invocation's
   * time before the point is a RAYGEN record and its time after it a RAYGEN_REORDERED record of
   * the warp it joined. Not a Vulkan shader stage: only ray-generation shaders write it.
   */
  RAYGEN_REORDERED: 14,
} as const;

export type StageName = keyof typeof Stage;
export type StageCode = (typeof Stage)[StageName];

/** Number of defined stage codes; codes are 0 .. STAGE_COUNT-1. */
export const STAGE_COUNT = 15;

export interface StageInfo {
  readonly code: StageCode;
  readonly name: StageName;
  /** Short label for legends and tables. */
  readonly label: string;
  /** Long label for tooltips. */
  readonly title: string;
  /** 0xRRGGBB. The first six are the 2016 Warp Trace tool's colors. */
  readonly color: number;
}

export const STAGES: readonly StageInfo[] = [
  { code: 0, name: 'VS', label: 'VS', title: 'vertex', color: 0xb10e5b },
  { code: 1, name: 'TCS', label: 'TCS', title: 'tessellation control', color: 0xff4eaa },
  { code: 2, name: 'TES', label: 'TES', title: 'tessellation evaluation', color: 0x6cbb92 },
  { code: 3, name: 'GS', label: 'GS', title: 'geometry', color: 0x00ffff },
  { code: 4, name: 'FS', label: 'FS', title: 'fragment', color: 0xff6f00 },
  { code: 5, name: 'CS', label: 'CS', title: 'compute', color: 0x1490e1 },
  { code: 6, name: 'TASK', label: 'Task', title: 'task', color: 0x8e6cef },
  { code: 7, name: 'MESH', label: 'Mesh', title: 'mesh', color: 0x4b3bbd },
  { code: 8, name: 'RAYGEN', label: 'RGen', title: 'ray generation', color: 0xffd400 },
  { code: 9, name: 'ANY_HIT', label: 'AHit', title: 'any-hit', color: 0xa0522d },
  { code: 10, name: 'CLOSEST_HIT', label: 'CHit', title: 'closest-hit', color: 0x2e8b57 },
  { code: 11, name: 'MISS', label: 'Miss', title: 'miss', color: 0x8a8a8a },
  { code: 12, name: 'INTERSECTION', label: 'Isect', title: 'intersection', color: 0xb5e61d },
  { code: 13, name: 'CALLABLE', label: 'Call', title: 'callable', color: 0x00bcd4 },
  { code: 14, name: 'RAYGEN_REORDERED', label: 'RGen↻', title: 'ray generation after reorder', color: 0xc08a00 },
];

export function isStageCode(value: number): value is StageCode {
  return Number.isInteger(value) && value >= 0 && value < STAGE_COUNT;
}

export function stageInfo(code: number): StageInfo {
  const info = STAGES[code];
  if (info === undefined) throw new RangeError(`unknown stage code ${code}`);
  return info;
}

const byName = new Map<string, StageCode>(STAGES.map((s) => [s.name, s.code]));

/** Parses a stage name (case-insensitive, e.g. "tcs"); undefined when unknown. */
export function parseStageName(name: string): StageCode | undefined {
  return byName.get(name.toUpperCase());
}

/** '#rrggbb' for CSS. */
export function stageCssColor(code: number): string {
  return `#${stageInfo(code).color.toString(16).padStart(6, '0')}`;
}

/** The UI's name for a stage given by name ("RAYGEN" → "RGen", as legends and chips say); an unknown name as it is. */
export function stageLabelOf(name: string): string {
  const code = parseStageName(name);
  return code === undefined ? name : stageInfo(code).label;
}
