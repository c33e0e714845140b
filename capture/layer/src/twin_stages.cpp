#include "twin_stages.hpp"

#include "stages.hpp"

namespace wtl {

bool instrumentStage(DeviceState *device, const std::vector<uint32_t> &code, int stage, const char *entry, bool blocks, bool rayEvents,
                     std::vector<uint8_t> &out, std::string &why) {
  const wtCaps &c = device->caps;
  std::string subgroupStages;
  for (int i = 0; i < kTracedStageCount; i++)
    if (c.subgroupStages & kTracedStageBits[i]) subgroupStages += std::string(subgroupStages.empty() ? "" : ", ") + "\"" + kTracedStageNames[i] + "\"";
  std::string json = std::string("{\"stage\": \"") + kTracedStageNames[stage] + "\", \"entryPoint\": " + jsonString(entry) +
                     ", \"set\": " + std::to_string(device->traceSet) + ", \"binding\": 0, \"smBuiltins\": " + (c.smBuiltins ? "true" : "false") +
                     ", \"subgroupClock\": " + (c.subgroupClock ? "true" : "false") + ", \"deviceClock\": " + (c.deviceClock ? "true" : "false") +
                     ", \"subgroupStages\": [" + subgroupStages + "], \"fsCustomId\": \"" +
                     // gl_PrimitiveID in a fragment shader needs the Geometry capability (the geometryShader feature).
                     (settings().fsCustomId == "primitive-id" && !c.geometryShader ? std::string("frag-coord") : settings().fsCustomId) + "\"" +
                     // Rates are read at run time; a full capture leaves the test out (it costs 2-9% of a frame on the H200).
                     ", \"sampling\": \"" + (settings().sampling ? "runtime" : "none") + "\"" +
                     (device->lanesUnknown           ? std::string(", \"position\": []")
                      : settings().positionJson.empty() ? std::string()
                                                        : ", \"position\": " + settings().positionJson) +
                     (blocks ? ", \"blocks\": true" : "") + (rayEvents ? ", \"rayEvents\": true" : "") + (settings().marks.empty() ? std::string() : ", \"marks\": " + settings().marksJson) + "}";
  std::string reply;
  return device->client->request(kInstrument, json, code.data(), (uint32_t)(code.size() * 4), out, reply, why);
}


bool twinStages(DeviceState *device, const VkPipelineShaderStageCreateInfo *stages, uint32_t count, VkGraphicsPipelineLibraryFlagsEXT parts,
                TwinStages &out, std::string &why, bool blocks, bool rayEvents) {
  blocks = blocks && device->blocks;
  rayEvents = rayEvents && device->rayEvents;
  out.device = device;
  out.chains.reserve(count);
  for (uint32_t i = 0; i < count; i++) {
    VkPipelineShaderStageCreateInfo stage = stages[i];
    int code = stageCode(stage.stage);
    if (code < 0) {
      why = "it has a stage the layer does not know";
      return false;
    }
    if (!stageInParts(stage.stage, parts)) continue;  // the driver ignores it (compute: kAllParts)
    if (!(settings().stageMask & (1u << code))) {
      out.stages.push_back(stage);
      continue;
    }
    std::shared_ptr<const std::vector<uint32_t>> spirv;
    if (const VkShaderModuleCreateInfo *inline_ = inlineShader(stage)) {
      // SPIR-V passed inline, no module: the twin's stage takes the instrumented module instead.
      spirv = std::make_shared<std::vector<uint32_t>>(inline_->pCode, inline_->pCode + inline_->codeSize / 4);
      out.chains.emplace_back();
      if (!out.chains.back().replace(stage.pNext, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, &stage.pNext, why)) return false;
    } else {
      std::lock_guard<std::mutex> guard(device->lock);
      auto it = device->modules.find(stage.module);
      if (it != device->modules.end()) spirv = it->second;
    }
    if (!spirv) {
      why = std::string("the SPIR-V of its ") + kTracedStageNames[code] + " shader is unknown to the layer";
      return false;
    }
    std::vector<uint8_t> traced;
    if (!instrumentStage(device, *spirv, code, stage.pName, blocks, rayEvents, traced, why)) {
      why = std::string(kTracedStageNames[code]) + " shader: " + why;
      return false;
    }
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = traced.size();
    mi.pCode = (const uint32_t *)traced.data();
    VkShaderModule module = VK_NULL_HANDLE;
    VkResult r = device->d.CreateShaderModule(device->device, &mi, nullptr, &module);
    if (r != VK_SUCCESS) {
      why = std::string("the driver refused its instrumented ") + kTracedStageNames[code] + " shader (VkResult " + std::to_string((int)r) + ")";
      return false;
    }
    out.modules.push_back(module);
    stage.module = module;
    if (blocks) {
      std::string name = std::string(kTracedStageNames[code]) + " " + (stages[i].module ? hexHandle((uint64_t)stages[i].module) : std::string("inline")) + " " + stage.pName;
      addBlockStage(device, traced, name, code, stage, out);
    }
    out.stages.push_back(stage);
    out.instrumented = true;
  }
  return true;
}

TwinStages::~TwinStages() {
  for (VkShaderModule m : modules) device->d.DestroyShaderModule(device->device, m, nullptr);
}

}  // namespace wtl
