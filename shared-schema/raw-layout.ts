/**
 * The GPU record layout and the .wtraw container: the single source of truth
 * for the GLSL library (capture/shaders/warptrace_layout.glsl is generated
 * from this file), the SPIR-V instrumenter, the C host library and the
 * decoder. See shared-schema/README.md for the prose specification.
 */

/** GPU trace buffer: a 16-byte header, then records. */
export const BUFFER_HEADER_BYTES = 16;
/** Header word indices (u32) of the GPU trace buffer. */
export const BufferWord = {
  /** Atomic counter: records the shaders tried to write (kept or not). */
  COUNT: 0,
  /** Records that fit in the buffer; writes at or past it are counted, never made. */
  CAPACITY: 1,
  /** Reserved for the host (0). */
  FLAGS: 2,
  /** Reserved (0). */
  RESERVED: 3,
} as const;

/** One record per warp: eight u32 words, written as two 16-byte vector stores. */
export const RECORD_WORDS = 8;
export const RECORD_BYTES = RECORD_WORDS * 4;

/** Word indices within a record. */
export const RecordWord = {
  /** Low 32 bits of the clock at warp start: SM cycles, or device ticks when RecordFlag.SM_CLOCK is clear. */
  CLOCK_START: 0,
  /** Low 32 bits of the same clock at warp end. */
  CLOCK_END: 1,
  /** Low 32 bits of the device clock, read right after CLOCK_END (when RecordFlag.DEVICE_CLOCK). */
  DEVICE_CLOCK: 2,
  /** Active lanes 32..63 (subgroups wider than 32), else 0; the warp's screen position instead when RecordFlag.POSITION is set. */
  ACTIVE_MASK_HI: 3,
  /** Same word as ACTIVE_MASK_HI: the screen position (see position.ts) when RecordFlag.POSITION is set (subgroups of at most 32 lanes only). */
  POSITION: 3,
  /** Packed: SM id (bits 0-15), warp slot (16-23), stage (24-27), flags (28-31). */
  PACKED_IDS: 4,
  DRAW_ID: 5,
  CUSTOM_ID: 6,
  /** Active lanes 0..31. */
  ACTIVE_MASK_LO: 7,
} as const;

/** Bit fields of RecordWord.PACKED_IDS. */
export const PackedIds = {
  SM_SHIFT: 0,
  SM_MASK: 0xffff,
  SLOT_SHIFT: 16,
  SLOT_MASK: 0xff,
  STAGE_SHIFT: 24,
  STAGE_MASK: 0xf,
  FLAGS_SHIFT: 28,
  FLAGS_MASK: 0xf,
} as const;

/** Record flags (4 bits). */
export const RecordFlag = {
  /** CLOCK_START/CLOCK_END are SM (subgroup-scope) cycles; else device-clock ticks. */
  SM_CLOCK: 1,
  /** DEVICE_CLOCK holds a device-clock sample (with SM_CLOCK) or CLOCK_* are device ticks (without). */
  DEVICE_CLOCK: 2,
  /** Subgroup ops unavailable in this stage: one record per invocation, mask = that lane only. */
  PER_INVOCATION: 4,
  /** Word 3 holds the warp's screen position (position.ts), not lanes 32..63: set only where subgroups are at most 32 lanes wide. */
  POSITION: 8,
} as const;

/** Value stored in the SM and slot fields when the device has no SM builtins. */
export const RAW_UNKNOWN_SM = 0xffff;
export const RAW_UNKNOWN_SLOT = 0xff;

/** .wtraw file: a fixed header of u32 little-endian words, then sections. */
export const WTRAW_MAGIC = 0x57525457; // bytes "WTRW"
export const WTRAW_VERSION = 1;
export const WTRAW_HEADER_BYTES = 64;
/** Word indices (u32) of the .wtraw file header. */
export const WtrawHeaderWord = {
  MAGIC: 0,
  VERSION: 1,
  HEADER_BYTES: 2,
  METADATA_BYTES: 3,
  RECORD_BYTES: 4,
  RECORD_COUNT: 5,
  COUNTER: 6,
  CAPACITY: 7,
  TIMESTAMP_COUNT: 8,
  FLAGS: 9,
  /** Bytes of the optional block-profile section after the records (block-layout.ts); 0: none. */
  BLOCK_BYTES: 10,
  /** Bytes of the optional ray-event section after the block section (ray-event-layout.ts); 0: none. */
  RAY_EVENT_BYTES: 11,
} as const;
/** Sections are padded to this alignment (bytes). */
export const WTRAW_SECTION_ALIGN = 8;
/** A timestamp-table entry that was not written (u64 all ones). */
export const WTRAW_NO_TIMESTAMP = 0xffffffffffffffffn;

/** Packs the ids word the way the shaders do (for synthetic raw buffers and tests). */
export function packIds(sm: number, slot: number, stage: number, flags: number): number {
  return (
    (((sm & PackedIds.SM_MASK) << PackedIds.SM_SHIFT) |
      ((slot & PackedIds.SLOT_MASK) << PackedIds.SLOT_SHIFT) |
      ((stage & PackedIds.STAGE_MASK) << PackedIds.STAGE_SHIFT) |
      ((flags & PackedIds.FLAGS_MASK) << PackedIds.FLAGS_SHIFT)) >>>
    0
  );
}
