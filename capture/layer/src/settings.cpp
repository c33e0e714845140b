#include "settings.hpp"

#include <cstdlib>
#include <cstring>

#include "stages.hpp"
#include "warptrace.h"

namespace wtl {

static bool parseU64(const char *text, uint64_t &out) {
  if (!text || !*text) return false;
  char *end = nullptr;
  unsigned long long v = strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-') return false;
  out = v;
  return true;
}

/** "A..B" into two numbers. */
static bool parseRange(const char *text, uint64_t &first, uint64_t &last) {
  const char *dots = strstr(text, "..");
  if (!dots) return false;
  std::string a(text, dots - text);
  return parseU64(a.c_str(), first) && parseU64(dots + 2, last) && first <= last;
}

/* WARPTRACE_SAMPLE: "FS=8,VS=4" (shared-schema stage names, N a power of two up to 32768; wtParseSampleRate). */
static void parseSampling(const char *text, Settings &s) {
  const std::string all = text;
  for (size_t start = 0; start <= all.size();) {
    size_t comma = all.find(',', start);
    std::string part = all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? all.size() + 1 : comma + 1;
    uint32_t stage = 0, log2 = 0;
    if (!wtParseSampleRate(part.data(), part.size(), &stage, &log2)) {
      s.problems += "WARPTRACE_SAMPLE: expected STAGE=N with N a power of two up to 32768, got \"" + part + "\"; ";
      continue;
    }
    s.sampleLog2[stage] = (uint8_t)log2;
    s.sampling = s.sampling || log2 > 0;
  }
}

/* WARPTRACE_SAMPLE_BUDGET: "1.1" (the CLI's --budget, 1 < B <= 100, up to 4 decimals); 0 when malformed. Read by hand, not
   with strtod: the app's locale may write its decimal point as a comma. */
static double parseBudget(const char *text) {
  uint64_t whole = 0, fraction = 0, scale = 1;
  const char *p = text;
  if (*p < '0' || *p > '9') return 0;
  for (; *p >= '0' && *p <= '9' && whole <= 100; p++) whole = whole * 10 + (uint64_t)(*p - '0');
  if (*p == '.') {
    for (p++; *p >= '0' && *p <= '9' && scale < 10000; p++) fraction = fraction * 10 + (uint64_t)(*p - '0'), scale *= 10;
    if (scale == 1) return 0;
  }
  double budget = (double)whole + (double)fraction / (double)scale;
  return *p == '\0' && budget > 1 && budget <= 100 ? budget : 0;
}

static uint32_t parseStages(const char *text, std::string &problems) {
  uint32_t mask = 0;
  std::string list(text);
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    bool found = false;
    for (int i = 0; i < kTracedStageCount; i++)
      if (strcasecmp(name.c_str(), kTracedStageOptions[i]) == 0) mask |= 1u << i, found = true;
    if (!found) problems += "WARPTRACE_STAGES: unknown stage '" + name + "'; ";
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return mask;
}

static Settings read() {
  Settings s;
  if (const char *v = getenv("WARPTRACE_SOCKET")) s.socketPath = v;
  if (const char *v = getenv("WARPTRACE_OUTPUT")) s.outputPath = v;
  if (const char *v = getenv("WARPTRACE_IMAGE")) s.imagePath = v;
  if (const char *v = getenv("WARPTRACE_FRAME")) {
    if (!parseU64(v, s.frame) || s.frame == 0) s.problems += "WARPTRACE_FRAME: expected a frame number from 1; ", s.frame = 60;
  }
  if (const char *v = getenv("WARPTRACE_SUBMITS")) {
    s.submitMode = parseRange(v, s.firstSubmit, s.lastSubmit);
    if (!s.submitMode) s.problems += "WARPTRACE_SUBMITS: expected N..M; ";
  }
  if (const char *v = getenv("WARPTRACE_TRIGGER")) s.triggerPath = v;
  if (const char *v = getenv("WARPTRACE_STAGES")) s.stageMask = parseStages(v, s.problems);
  if (const char *v = getenv("WARPTRACE_DRAWS")) {
    if (parseRange(v, s.firstDraw, s.lastDraw)) s.drawRange = true;
    else s.drawGlob = v;
  }
  if (const char *v = getenv("WARPTRACE_SAMPLE")) parseSampling(v, s);
  if (const char *v = getenv("WARPTRACE_FS_ID")) {
    std::string id = v;
    if (id == "primitive-id" || id == "frag-coord" || id == "none") s.fsCustomId = id;
    else s.problems += "WARPTRACE_FS_ID: expected primitive-id, frag-coord or none; ";
  }
  if (const char *v = getenv("WARPTRACE_SAMPLE_BUDGET")) {
    s.sampleBudget = parseBudget(v);
    if (s.sampleBudget == 0) s.problems += "WARPTRACE_SAMPLE_BUDGET: expected a number above 1, at most 100 (up to 4 decimals); ";
  }
  if (const char *v = getenv("WARPTRACE_BLOCKS")) s.blocks = std::string(v) == "1";
  if (const char *v = getenv("WARPTRACE_BLOCK_CELLS")) {
    uint64_t n = 0;
    if (!parseU64(v, n) || n == 0 || n > (1u << 26)) s.problems += "WARPTRACE_BLOCK_CELLS: expected 1..67108864; ";
    else s.blockCells = (uint32_t)n;
  }
  if (const char *v = getenv("WARPTRACE_BLOCK_ROWS")) {
    std::string rows = v;
    if (rows == "pipeline" || rows == "draw") s.blockRowsPerPipeline = rows == "pipeline";
    else s.problems += "WARPTRACE_BLOCK_ROWS: expected draw or pipeline; ";
  }
  if (const char *v = getenv("WARPTRACE_RAY_EVENTS")) s.rayEvents = std::string(v) == "1";
  if (const char *v = getenv("WARPTRACE_RAY_ROWS")) {
    uint64_t n = 0;
    if (!parseU64(v, n) || n == 0 || n > 1024) s.problems += "WARPTRACE_RAY_ROWS: expected 1..1024; ";
    else s.rayRows = (uint32_t)n;
  }
  if (const char *v = getenv("WARPTRACE_RAY_CELLS")) {
    uint64_t n = 0;
    if (!parseU64(v, n) || n == 0 || n > (1u << 24)) s.problems += "WARPTRACE_RAY_CELLS: expected 1..16777216; ";
    else s.rayCells = (uint32_t)n;
  }
  if (const char *v = getenv("WARPTRACE_POSITIONS")) {
    std::string list = v, json;
    bool ok = !list.empty();
    if (list != "none") {
      // Stage names as WARPTRACE_STAGES has them; fragment, compute and the ray-tracing stages record a position.
      for (size_t at = 0; ok && at <= list.size();) {
        size_t comma = list.find(',', at);
        std::string name = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        int code = -1;
        for (int i = 0; i < kTracedStageCount; i++)
          if (name == kTracedStageOptions[i] && (i == 4 || i == 5 || ((1u << i) & kRayTracingStageCodes) != 0)) code = i;
        if (code >= 0) json += std::string(json.empty() ? "\"" : ", \"") + kTracedStageNames[code] + "\"";
        else ok = false;
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
    }
    if (!ok) s.problems += "WARPTRACE_POSITIONS: expected fs, cs, rgen, ahit, chit, miss, rint, call (comma-separated) or none; ";
    else s.positions = list, s.positionJson = "[" + json + "]";
  }
  if (const char *v = getenv("WARPTRACE_MARKS")) {
    // Sites in the instrumenter's order, whatever order the list names them in (part of the request, so of its cache key).
    std::string list = std::string(",") + v + ",";
    bool trace = list.find(",trace,") != std::string::npos, loops = list.find(",loops,") != std::string::npos;
    size_t named = (trace ? 1 : 0) + (loops ? 1 : 0), items = 0;
    for (char ch : std::string(v)) items += ch == ',';
    if (named == 0 || items + 1 != named) s.problems += "WARPTRACE_MARKS: expected trace, loops (comma-separated); ";
    else {
      s.marks = std::string(trace ? "trace" : "") + (trace && loops ? "," : "") + (loops ? "loops" : "");
      s.marksJson = std::string("[") + (trace ? "\"trace\"" : "") + (trace && loops ? ", " : "") + (loops ? "\"loops\"" : "") + "]";
    }
  }
  if (const char *v = getenv("WARPTRACE_TIME_ONLY")) s.timeOnly = !strcmp(v, "1");
  if (const char *v = getenv("WARPTRACE_PLAIN_NS")) {
    char *end = nullptr;
    double ns = strtod(v, &end);
    if (*end || !(ns > 0) || ns > 1e12) s.problems += "WARPTRACE_PLAIN_NS: expected a positive duration in ns; ";
    else s.plainNs = ns;
  }
  if (const char *v = getenv("WARPTRACE_PLAIN_RUNS")) {
    uint64_t n = 0;
    if (parseU64(v, n) && n > 0 && n < 1000) s.plainRuns = (uint32_t)n;
  }
  if (const char *v = getenv("WARPTRACE_CAPACITY")) {
    uint64_t c = 0;
    if (!parseU64(v, c) || c == 0 || c > (1u << 26)) s.problems += "WARPTRACE_CAPACITY: expected 1..67108864 records; ";
    else s.capacity = (uint32_t)c;
  }
  if (const char *v = getenv("WARPTRACE_OFFSCREEN")) {
    if (!strcmp(v, "1")) s.offscreen = Settings::Offscreen::Always;
    else if (!strcmp(v, "0")) s.offscreen = Settings::Offscreen::Never;
    else if (*v) s.problems += "WARPTRACE_OFFSCREEN: expected 1 or 0; ";
  }
  return s;
}

const Settings &settings() {
  static const Settings s = read();
  return s;
}

bool globMatch(const char *p, const char *t) {
  // Iterative, with one backtrack point: linear in practice, never exponential.
  const char *star = nullptr, *resume = nullptr;
  while (*t) {
    if (*p == '*') star = p++, resume = t;
    else if (*p == '?' || *p == *t) p++, t++;
    else if (star) p = star + 1, t = ++resume;
    else return false;
  }
  while (*p == '*') p++;
  return *p == '\0';
}

}  // namespace wtl
