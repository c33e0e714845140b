// --blocks: block profiles of modules instrumented with `warptrace instrument --blocks` (capture/host/warptrace_blocks.h).

#include "workloads.hpp"

/* The module at `path`, registered once; WT_NO_BLOCK_MODULE when it has no block mark (not profiled). */
static uint32_t blockModuleFor(Context &ctx, const std::string &path) {
  auto it = ctx.blockModules.find(path);
  if (it != ctx.blockModules.end()) return it->second;
  std::vector<uint32_t> code = readSpirv(path);
  // The metadata names it by file: "divergence.comp" of ".../divergence.comp.spv".
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".spv") == 0) name.resize(name.size() - 4);
  uint32_t module = wtRegisterBlockModule(ctx.tracer, name.c_str(), code.data(), code.size() * 4);
  ctx.blockModules[path] = module;
  return module;
}

BlockSpecialization::BlockSpecialization(Context &ctx, std::vector<VkPipelineShaderStageCreateInfo> &stages,
                                         const std::vector<std::string> &paths)
    : ctx_(ctx) {
  if (!ctx.blocks || !ctx.tracer) return;
  std::vector<uint32_t> modules, offsets(stages.size());
  for (const std::string &path : paths) modules.push_back(blockModuleFor(ctx, path));
  wtLayoutBlockRow(ctx.tracer, modules.data(), static_cast<uint32_t>(modules.size()), offsets.data());
  // Sized up front: the stages keep pointers into these.
  infos_.resize(stages.size());
  entries_.resize(stages.size());
  data_.resize(stages.size());
  for (size_t i = 0; i < stages.size(); i++) {
    if (modules[i] == WT_NO_BLOCK_MODULE) continue;
    row_.push_back({modules[i], offsets[i]});
    // The stage's own constants, then the base (the host library's merge, as the capture layer does it).
    const VkSpecializationInfo *own = stages[i].pSpecializationInfo;
    entries_[i].resize((own ? own->mapEntryCount : 0) + 1);
    data_[i].resize(wtBlockSpecializationDataBytes(own));
    wtBlockSpecialization(own, offsets[i], entries_[i].data(), data_[i].data(), &infos_[i]);
    stages[i].pSpecializationInfo = &infos_[i];
  }
}

void BlockSpecialization::remember(VkPipeline pipeline) {
  if (!row_.empty()) ctx_.blockRows[pipeline] = row_;
}

void Frame::giveBlockRow(uint32_t id) {
  if (!ctx.blocks || id == WT_NO_DRAW) return;
  auto it = ctx.blockRows.find(pipeline_);
  if (it == ctx.blockRows.end()) return;
  uint64_t key = ctx.blockRowPerPipeline ? static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pipeline_)) : 0;
  wtSetDrawBlockRow(ctx.tracer, id, it->second.data(), static_cast<uint32_t>(it->second.size()), key);
}

void Frame::bindPipeline(VkPipelineBindPoint bindPoint, VkPipeline pipeline) {
  vkCmdBindPipeline(cmd, bindPoint, pipeline);
  pipeline_ = pipeline;
}
