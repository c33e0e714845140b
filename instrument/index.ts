/**
 * The SPIR-V instrumenter's public API: platform-neutral (no Node or DOM
 * imports), for the CLI, a browser, or a future Vulkan layer.
 */
export { instrumentSpirv, instrumentModule, PROCESSED_MARK, type InstrumentResult, type EntryPointReport } from './instrument.js';
export { InstrumentError } from './errors.js';
export { SpirvIdError, checkIds } from './model/ids.js';
export { SpirvFormatError, parseSpirv, writeSpirv, isSpirv, type SpirvModule, type Instruction, type SpirvHeader } from './model/binary.js';
export {
  DEFAULT_OPTIONS,
  TARGETS,
  CUSTOM_ID_SOURCES,
  DEFAULT_CUSTOM_IDS,
  targetOptions,
  checkOptions,
  type InstrumentOptions,
  type InstrumentedStage,
  type CustomIdSource,
  type TargetName,
  type DiscardMode,
  type LegacySubgroupMode,
} from './options.js';
export { optionsFromFlags, FlagError, type InstrumentFlags } from './cli-options.js';
export { UNTRACED_DRAW } from './passes/record-wrapper.js';
