// --sample STAGE=N (wt-capture-vk): one warp in N of STAGE records, through the host library's wtSetSampling.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "modes.hpp"
#include "warptrace_layout.h"

bool parseSampling(const char *text, std::pair<uint32_t, uint32_t> &out) {
  // The shared-schema stage names, in stage-code order (WT_STAGE_VS .. WT_STAGE_CALLABLE).
  static const char *const names[] = {"VS", "TCS", "TES", "GS", "FS", "CS", "TASK", "MESH", "RAYGEN", "ANY_HIT", "CLOSEST_HIT", "MISS", "INTERSECTION", "CALLABLE"};
  std::string kv = text;
  size_t eq = kv.find('=');
  if (eq == std::string::npos) return false;
  for (uint32_t s = 0; s < sizeof names / sizeof *names; s++) {
    if (kv.compare(0, eq, names[s]) != 0 || eq != std::string(names[s]).size()) continue;
    char *end = nullptr;
    unsigned long n = std::strtoul(kv.c_str() + eq + 1, &end, 10);
    if (kv.size() == eq + 1 || *end || n == 0 || n > (1ul << WT_MAX_SAMPLE_LOG2) || (n & (n - 1)) != 0) return false;
    uint32_t log2 = 0;
    while ((1ul << log2) < n) log2++;
    out = {s, log2};
    return true;
  }
  return false;
}
