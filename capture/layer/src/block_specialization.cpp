// Block profiles (settings().blocks): each profiled stage's module is registered with the
// tracer, which writes it into the .wtraw for the decoder, and takes its first cell within
// the pipeline's row through the specialization constant WT_BLOCK_BASE_SPEC_ID, added to
// the app's own constants (shared-schema/README.md "Block profiles").

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

void addBlockStage(DeviceState *device, const std::vector<uint8_t> &traced, const std::string &name, VkPipelineShaderStageCreateInfo &stage,
                   TwinStages &out) {
  uint32_t module = registeredModule(device, traced, name);
  if (module == WT_NO_BLOCK_MODULE) return;  // no mark (nothing profiled) or no table
  uint32_t offset = 0;
  for (const wtBlockRowModule &m : out.blockRow) offset = std::max(offset, m.offset + wtBlockModuleCount(device->tracer, m.module));
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

}  // namespace wtl
