// Block profiles (settings().blocks): each profiled stage's module is registered with the
// tracer, which writes it into the .wtraw for the decoder, and takes its first cell within
// the pipeline's row through the specialization constant WT_BLOCK_BASE_SPEC_ID, added to
// the app's own constants (shared-schema/README.md "Block profiles"). A graphics pipeline
// library's modules are made before the layer knows the pipelines that will link them: they
// keep the constant at 0, and each link lays its libraries' modules out in its row and gives
// their stages their offsets per draw, in the draw-id block's stage words.

#include <algorithm>

#include "twin_stages.hpp"

namespace wtl {

/** FNV-1a over the module's bytes: the same instrumented module in several pipelines is registered once. */
static uint64_t contentHash(const std::vector<uint8_t> &bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  return h ^ bytes.size();
}

static uint32_t registeredModule(DeviceState *device, const std::vector<uint8_t> &traced, const std::string &name) {
  uint64_t key = contentHash(traced);
  std::lock_guard<std::mutex> guard(device->lock);
  auto it = device->blockModules.find(key);
  if (it != device->blockModules.end()) return it->second;
  uint32_t module = wtRegisterBlockModule(device->tracer, name.c_str(), (const uint32_t *)traced.data(), traced.size());
  device->blockModules[key] = module;
  return module;
}

/** The cells of a row laid out so far: past its last module's blocks. */
static uint32_t rowEnd(DeviceState *device, const std::vector<wtBlockRowModule> &row) {
  uint32_t end = 0;
  for (const wtBlockRowModule &m : row) end = std::max(end, m.offset + wtBlockModuleCount(device->tracer, m.module));
  return end;
}

void addBlockStage(DeviceState *device, const std::vector<uint8_t> &traced, const std::string &name, int code, VkPipelineShaderStageCreateInfo &stage,
                   TwinStages &out) {
  uint32_t module = registeredModule(device, traced, name);
  if (module == WT_NO_BLOCK_MODULE) return;  // no mark (nothing profiled) or no table
  if (out.library) {
    // Its row is its links': the constant stays at its default 0, the links' draws give the stage word.
    if (kBlockStageOfCode[code] >= 0) out.libraryModules[kBlockStageOfCode[code]] = module;
    return;
  }
  uint32_t offset = rowEnd(device, out.blockRow);
  out.blockRow.push_back({module, offset});

  // The app's constants, then ours (the host library's merge, as the harness does it).
  auto spec = std::make_unique<BlockSpecialization>();
  const VkSpecializationInfo *app = stage.pSpecializationInfo;
  spec->entries.resize((app ? app->mapEntryCount : 0) + 1);
  spec->data.resize(wtBlockSpecializationDataBytes(app));
  wtBlockSpecialization(app, offset, spec->entries.data(), spec->data.data(), &spec->info);
  stage.pSpecializationInfo = &spec->info;
  out.specializations.push_back(std::move(spec));
}

void addLibraryBlockStages(DeviceState *device, const std::vector<const PipelineInfo *> &libraries, TwinStages &out) {
  BlockStageWords modules = noBlockModules();
  for (const PipelineInfo *library : libraries)
    if (const std::shared_ptr<const BlockStageWords> theirs = library->blockStageModules)
      for (size_t k = 0; k < modules.size(); k++)
        if ((*theirs)[k] != WT_NO_BLOCK_MODULE) modules[k] = (*theirs)[k];
  if (out.library) {
    // A library linking libraries: theirs are its own, for the links that link it.
    for (size_t k = 0; k < modules.size(); k++)
      if (modules[k] != WT_NO_BLOCK_MODULE) out.libraryModules[k] = modules[k];
    return;
  }
  // After the pipeline's own stages (whose constants already hold their offsets), in stage order.
  BlockStageWords offsets{};
  wtLayoutBlockRow(device->tracer, modules.data(), (uint32_t)modules.size(), offsets.data());
  uint32_t end = rowEnd(device, out.blockRow);
  for (size_t k = 0; k < modules.size(); k++) {
    if (wtBlockModuleCount(device->tracer, modules[k]) == 0) continue;
    out.stageOffsets[k] = end + offsets[k];
    out.blockRow.push_back({modules[k], out.stageOffsets[k]});
    out.hasStageOffsets = true;
  }
}

}  // namespace wtl
