// --bench --stats: the driver's statistics of the benchmarked pipelines.
#include <cstdio>

#include "modes.hpp"

/* Writes the driver's statistics of each variant's pipelines (VK_KHR_pipeline_executable_properties) as JSON lines. */
void writePipelineStats(Gpu &gpu, const std::vector<std::pair<std::string, std::vector<VkPipeline>>> &variants, const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) fatal("cannot write %s", path.c_str());
  if (!gpu.executableStats) {
    std::fprintf(f, "{\"error\": \"VK_KHR_pipeline_executable_properties is not available\"}\n");
    std::fclose(f);
    return;
  }
  auto getProps = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(vkGetDeviceProcAddr(gpu.device, "vkGetPipelineExecutablePropertiesKHR"));
  auto getStats = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(vkGetDeviceProcAddr(gpu.device, "vkGetPipelineExecutableStatisticsKHR"));
  for (const auto &v : variants) {
    for (size_t p = 0; p < v.second.size(); p++) {
      VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
      info.pipeline = v.second[p];
      uint32_t count = 0;
      getProps(gpu.device, &info, &count, nullptr);
      std::vector<VkPipelineExecutablePropertiesKHR> props(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
      getProps(gpu.device, &info, &count, props.data());
      for (uint32_t e = 0; e < count; e++) {
        VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        ei.pipeline = v.second[p];
        ei.executableIndex = e;
        uint32_t n = 0;
        getStats(gpu.device, &ei, &n, nullptr);
        std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
        getStats(gpu.device, &ei, &n, stats.data());
        std::fprintf(f, "{\"variant\": %s, \"pipeline\": %zu, \"executable\": %s, \"subgroupSize\": %u", jsonEscape(v.first).c_str(), p,
                     jsonEscape(props[e].name).c_str(), props[e].subgroupSize);
        for (auto &st : stats) {
          double value = st.format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR ? st.value.f64
                         : st.format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR ? static_cast<double>(st.value.i64)
                         : st.format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR ? static_cast<double>(st.value.u64)
                                                                                             : static_cast<double>(st.value.b32);
          std::fprintf(f, ", %s: %.10g", jsonEscape(st.name).c_str(), value);
        }
        std::fprintf(f, "}\n");
      }
    }
  }
  std::fclose(f);
}
