// wt-capture-vk: headless reference workloads traced with warptrace.
//
//   wt-capture-vk --probe [--device N]
//   wt-capture-vk --list
//   wt-capture-vk --workload NAME --shaders DIR [--plain-shaders DIR] --out FILE.wtraw
//                 [--param KEY=VALUE]... [--capacity N] [--overhead-frames N] [--device N] [--skip-draw N]
//                 [--blocks [--block-cells N] [--block-rows draw|pipeline]] [--ray-events [--ray-cells N]]
//   wt-capture-vk --bench --workload NAME --plain-variant NAME=DIR --variant NAME=DIR...
//                 [--rounds N] [--param KEY=VALUE]... [--json FILE]
//   wt-capture-vk --app --workload NAME --plain-shaders DIR [--frames N] [--param KEY=VALUE]... [--device N] [--vulkan-1.0]
//                 (an ordinary untraced app for the capture layer: app.cpp)
//
// SPIR-V comes from directories (DIR/<file>.spv, e.g. DIR/aqt.vert.spv), so
// hand-instrumented, plain and auto-instrumented shaders are interchangeable.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "modes.hpp"

namespace {

struct Variant {
  std::string name, dir;
  bool hooks = true;       // traced: draw ids bound
  bool timestamps = true;  // per-draw timestamps (with hooks)
  std::vector<VkPipeline> pipelines;
};

struct Options {
  std::string mode = "capture";
  std::string workload, shaders, plainShaders, out, json, stats;
  std::vector<std::pair<std::string, double>> params;
  std::vector<Variant> variants;
  uint32_t capacity = 0, overheadFrames = 20, rounds = 60, warmup = 3, frames = 3;
  /* --skip-draw N: draw N of the captured frame reads draw id 0xFFFFFFFF ("not traced", as the layer marks it). */
  int64_t skipDraw = -1;
  int device = -1;
  bool clearInFrame = false;
  /* --blocks: a block table of blockCells cells; rows per draw, or per pipeline (--block-rows pipeline). */
  bool blocks = false, blockRowPerPipeline = false;
  uint32_t blockCells = 1u << 16;
  /* --ray-events: a ray-event table, a row per trace-rays call of the captured frame, rayCells cells each (0: the host's default). */
  bool rayEvents = false;
  uint32_t rayCells = 0;
  /* --sample STAGE=N: (stage code, log2 N) pairs for wtSetSampling. */
  std::vector<std::pair<uint32_t, uint32_t>> sampling;
  AppRun app;  // --app's own options
};

const char *kUsage =
    "usage: wt-capture-vk --probe [--device N]\n"
    "       wt-capture-vk --list\n"
    "       wt-capture-vk --workload NAME --shaders DIR [--plain-shaders DIR] --out FILE.wtraw\n"
    "                     [--param KEY=VALUE]... [--capacity RECORDS] [--overhead-frames N] [--device N]\n"
    "                     [--clear-in-frame] (clear the targets inside the traced/timed frame, not before it)\n"
    "                     [--sample STAGE=N]... (one warp in N of STAGE records: VS, TCS, TES, GS, FS, CS,\n"
    "                     TASK, MESH, RAYGEN, ANY_HIT, CLOSEST_HIT, MISS, INTERSECTION, CALLABLE; N a power of two)\n"
    "                     [--skip-draw N] (draw N of the capture reads draw id 0xFFFFFFFF, as the layer marks\n"
    "                     draws outside --draws A..B: auto-instrumented shaders write no record for it)\n"
    "                     [--blocks] (block profiles of modules from `warptrace instrument --blocks`)\n"
    "                     [--block-cells N] (the block table, 65536 cells) [--block-rows draw|pipeline]\n"
    "                     [--ray-events] (per launch pixel ray events of modules from `warptrace instrument --ray-events`)\n"
    "                     [--ray-cells N] (cells per trace-rays call, 1048576)\n"
    "       wt-capture-vk --bench --workload NAME --plain-variant NAME=DIR --variant NAME=DIR...\n"
    "                     [--variant-no-timestamps NAME=DIR]... [--rounds N] [--param KEY=VALUE]... [--json FILE]\n"
    "                     [--stats FILE] (compiler statistics of every pipeline, e.g. registers)\n"
    "       wt-capture-vk --app --workload NAME --plain-shaders DIR [--frames N] [--param KEY=VALUE]... [--device N]\n"
    "                     (untraced, like any app: submit 0 sets up, submit 1+i is frame i; for the capture layer)\n";

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr, "%s%swt-capture-vk: %s\n", kUsage, kAppUsage, why);
  std::exit(2);
}

uint32_t parseCount(const char *text, const char *flag) {
  char *end = nullptr;
  unsigned long v = std::strtoul(text, &end, 10);
  if (!*text || *end || v > 0xffffffffUL) usage((std::string(flag) + " needs a whole number").c_str());
  return static_cast<uint32_t>(v);
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--probe") o.mode = "probe";
    else if (a == "--list") o.mode = "list";
    else if (a == "--bench") o.mode = "bench";
    else if (a == "--app") o.mode = "app";
    else if (a == "--frames") o.frames = parseCount(value(), "--frames");
    else if (a == "--workload") o.workload = value();
    else if (a == "--shaders") o.shaders = value();
    else if (a == "--plain-shaders") o.plainShaders = value();
    else if (a == "--out") o.out = value();
    else if (a == "--json") o.json = value();
    else if (a == "--stats") o.stats = value();
    else if (a == "--capacity") o.capacity = parseCount(value(), "--capacity");
    else if (a == "--overhead-frames") o.overheadFrames = parseCount(value(), "--overhead-frames");
    else if (a == "--rounds") o.rounds = parseCount(value(), "--rounds");
    else if (a == "--warmup") o.warmup = parseCount(value(), "--warmup");
    else if (a == "--clear-in-frame") o.clearInFrame = true;
    else if (a == "--blocks") o.blocks = true;
    else if (a == "--ray-events") o.rayEvents = true;
    else if (a == "--ray-cells") o.rayCells = parseCount(value(), "--ray-cells");
    else if (a == "--block-cells") o.blockCells = parseCount(value(), "--block-cells");
    else if (a == "--block-rows") {
      std::string rows = value();
      if (rows != "draw" && rows != "pipeline") usage("--block-rows takes draw or pipeline");
      o.blockRowPerPipeline = rows == "pipeline";
    }
    else if (a == "--sample") {
      const char *text = value();
      std::pair<uint32_t, uint32_t> &rate = o.sampling.emplace_back();
      if (!wtParseSampleRate(text, std::strlen(text), &rate.first, &rate.second)) usage((std::string("--sample takes STAGE=N: a stage name (VS, FS, CS, RAYGEN...) and N a power of two from 1 to 32768, got ") + text).c_str());
    }
    else if (a == "--skip-draw") o.skipDraw = parseCount(value(), "--skip-draw");
    else if (a == "--device") o.device = static_cast<int>(parseCount(value(), "--device"));
    else if (parseAppOption(o.app, a, value)) continue;
    else if (a == "--param") {
      std::string kv = value();
      size_t eq = kv.find('=');
      char *end = nullptr;
      double v = eq == std::string::npos ? 0 : std::strtod(kv.c_str() + eq + 1, &end);
      if (eq == std::string::npos || eq == 0 || !end || *end || end == kv.c_str() + eq + 1)
        usage(("--param needs KEY=NUMBER, got " + kv).c_str());
      o.params.emplace_back(kv.substr(0, eq), v);
    } else if (a == "--variant" || a == "--plain-variant" || a == "--variant-no-timestamps") {
      std::string nv = value();
      size_t eq = nv.find('=');
      if (eq == std::string::npos || eq == 0) usage((a + " needs NAME=DIR").c_str());
      Variant v;
      v.name = nv.substr(0, eq);
      v.dir = nv.substr(eq + 1);
      v.hooks = a != "--plain-variant";
      v.timestamps = a == "--variant";
      o.variants.push_back(v);
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::fputs(kAppUsage, stdout);
      std::exit(0);
    } else usage(("unknown option " + a).c_str());
  }
  return o;
}

int list() {
  for (auto &w : allWorkloads()) {
    std::printf("%s: %s\n  shaders:", w->name(), w->summary());
    for (auto &s : w->shaderFiles()) std::printf(" %s", s.c_str());
    std::printf("\n  parameters:\n%s", w->params.help().c_str());
  }
  return 0;
}

/* Frame timestamps: two per timed frame. */
struct FrameTimer {
  Gpu &gpu;
  VkQueryPool pool = VK_NULL_HANDLE;
  uint32_t capacity;
  FrameTimer(Gpu &g, uint32_t frames) : gpu(g), capacity(frames) {
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2 * frames;
    check(vkCreateQueryPool(gpu.device, &qi, nullptr, &pool), "vkCreateQueryPool");
  }
  ~FrameTimer() { vkDestroyQueryPool(gpu.device, pool, nullptr); }
  void reset(VkCommandBuffer cmd) { vkCmdResetQueryPool(cmd, pool, 0, 2 * capacity); }
  void begin(VkCommandBuffer cmd, uint32_t i) {
    fullBarrier(cmd);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2 * i);
  }
  void end(VkCommandBuffer cmd, uint32_t i) { vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2 * i + 1); }
  std::vector<double> read(uint32_t count) {
    std::vector<uint64_t> ticks(2 * count);
    check(vkGetQueryPoolResults(gpu.device, pool, 0, 2 * count, ticks.size() * 8, ticks.data(), 8,
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    std::vector<double> ns(count);
    for (uint32_t i = 0; i < count; i++) ns[i] = static_cast<double>(ticks[2 * i + 1] - ticks[2 * i]) * gpu.caps.timestampPeriod;
    return ns;
  }
};

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double at = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(at)), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

void applyParams(Workload &w, const Options &o) {
  for (auto &kv : o.params) w.params.set(kv.first, kv.second);
}

/* Records one frame of variant v; traced frames reset the trace buffer first (outside the timed part). */
void recordFrame(Context &ctx, Workload &w, VkCommandBuffer cmd, const Variant &v, FrameTimer *timer, uint32_t slot) {
  Frame frame(ctx, cmd, v.hooks);
  wtSetDrawTimestamps(ctx.tracer, v.timestamps);
  if (!ctx.clearInFrame) frame.clearTargets();
  if (v.hooks) wtCmdBeginCapture(ctx.tracer, cmd);
  if (timer) timer->begin(cmd, slot);
  w.record(frame, v.pipelines);
  if (timer) timer->end(cmd, slot);
}

/*
 * Runs `rounds` rounds; each round records every variant once, in an order
 * rotated per round, in one command buffer. Returns frame times per variant.
 */
std::vector<std::vector<double>> timeVariants(Context &ctx, Workload &w, std::vector<Variant> &variants, uint32_t rounds, uint32_t warmup) {
  size_t n = variants.size();
  FrameTimer timer(ctx.gpu, static_cast<uint32_t>(n));
  std::vector<std::vector<double>> times(n);
  for (uint32_t r = 0; r < warmup + rounds; r++) {
    VkCommandBuffer cmd = beginCommands(ctx.gpu);
    timer.reset(cmd);
    for (size_t k = 0; k < n; k++) {
      size_t v = (k + r) % n;
      recordFrame(ctx, w, cmd, variants[v], &timer, static_cast<uint32_t>(v));
    }
    fullBarrier(cmd);
    submitAndWait(ctx.gpu, cmd);
    std::vector<double> ns = timer.read(static_cast<uint32_t>(n));
    if (r >= warmup)
      for (size_t v = 0; v < n; v++) times[v].push_back(ns[v]);
  }
  return times;
}

struct Run {
  Gpu gpu;
  wtTracer *tracer = nullptr;
  std::unique_ptr<Workload> workload;
  std::unique_ptr<Context> ctx;
};

void setUp(Run &run, const Options &o, uint32_t capacity, uint32_t maxDraws) {
  if (o.workload.empty()) usage("missing --workload NAME (see --list)");
  run.workload = requireWorkload(o.workload);
  applyParams(*run.workload, o);
  uint32_t needs = run.workload->needs();
  run.gpu = createGpu(o.device, !o.stats.empty(), true, needs);
  wtTracerInfo ti{};
  // The trace set reaches the ray-tracing, task and mesh stages only where the workload has them.
  if (needs) ti.stages = VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT | optionalStages(needs);
  ti.physicalDevice = run.gpu.physical;
  ti.device = run.gpu.device;
  ti.caps = &run.gpu.caps;
  ti.capacity = capacity;
  ti.maxDraws = maxDraws;
  if (o.blocks && o.blockCells == 0) usage("--block-cells must be at least 1");
  if (o.blocks && !run.gpu.caps.bufferInt64Atomics) fatal("%s: block profiles count in 64-bit atomics, and the device lacks shaderBufferInt64Atomics", run.gpu.caps.deviceName);
  ti.blockCells = o.blocks ? o.blockCells : 0;
  if (o.rayCells > (1u << 24)) usage("--ray-cells takes at most 16777216 (what the decoder reads)");
  // A workload's frame has a few trace-rays calls at most (raytrace.cpp: one).
  ti.rayEventRows = o.rayEvents ? 8u : 0u;
  ti.rayEventCells = o.rayCells;
  check(wtCreateTracer(&ti, &run.tracer), "creating the trace buffer");
  for (const auto &[stage, log2] : o.sampling) check(wtSetSampling(run.tracer, stage, log2, 0), "setting the sampling rate");
  run.ctx.reset(new Context(run.gpu, run.workload->params.u("width"), run.workload->params.u("height"), run.tracer,
                            run.workload->dataBytes()));
  run.ctx->clearInFrame = o.clearInFrame;
  run.ctx->blocks = o.blocks;
  run.ctx->rayEvents = o.rayEvents;
  run.ctx->blockRowPerPipeline = o.blockRowPerPipeline;
  run.workload->fillData(run.ctx->data.map);
}

void tearDown(Run &run) {
  run.ctx.reset();
  wtDestroyTracer(run.tracer);
  destroyGpu(run.gpu);
}

int capture(const Options &o) {
  if (o.shaders.empty()) usage("missing --shaders DIR (instrumented SPIR-V)");
  if (o.out.empty()) usage("missing --out FILE.wtraw");
  Run run;
  setUp(run, o, o.capacity, 0);
  Context &ctx = *run.ctx;
  Workload &w = *run.workload;

  wtClockCheck clocks{};
  check(wtCheckClocks(run.tracer, run.gpu.queue, run.gpu.family, &clocks), "checking the device clock against timestamps");

  Variant traced{"traced", o.shaders, true, {}};
  traced.pipelines = w.pipelines(ctx, traced.dir);
  std::vector<Variant> variants{traced};
  bool measure = !o.plainShaders.empty() && o.overheadFrames > 0;
  if (measure) {
    Variant plain{"plain", o.plainShaders, false, {}};
    plain.pipelines = w.pipelines(ctx, plain.dir);
    variants.insert(variants.begin(), plain);
  }
  // Overhead: plain and traced frames interleaved in the same run, medians.
  double plainNs = 0, tracedNs = 0;
  std::vector<std::vector<double>> times = timeVariants(ctx, w, variants, measure ? o.overheadFrames : 0, o.warmup);
  if (measure) plainNs = quantile(times[0], 0.5), tracedNs = quantile(times[1], 0.5);

  // The capture: one traced frame (the timed frames above have completed: the table may change).
  if (o.skipDraw >= 0) markDrawUntraced(run.gpu, run.tracer, static_cast<uint32_t>(o.skipDraw));
  VkCommandBuffer cmd = beginCommands(run.gpu);
  wtSetDrawTimestamps(run.tracer, VK_TRUE);
  Frame frame(ctx, cmd, true);
  if (!ctx.clearInFrame) frame.clearTargets();
  wtCmdBeginCapture(run.tracer, cmd);
  ctx.barrierBefore.clear();
  w.record(frame, traced.pipelines);
  wtCmdEndCapture(run.tracer, cmd);
  submitAndWait(run.gpu, cmd);

  std::string extra = "\"drawStages\": " + w.drawStagesJson() + ",\n  \"barrierBefore\": [";
  for (size_t i = 0; i < ctx.barrierBefore.size(); i++) extra += std::string(i ? ", " : "") + (ctx.barrierBefore[i] ? "true" : "false");
  extra += "],\n  \"clearInFrame\": " + std::string(ctx.clearInFrame ? "true" : "false");
  std::string parameters = w.params.json();
  wtCaptureInfo info{};
  info.workload = w.name();
  info.parametersJson = parameters.c_str();
  info.plainFrameNs = plainNs;
  info.tracedFrameNs = tracedNs;
  info.overheadFrames = measure ? o.overheadFrames : 0;
  info.extraJson = extra.c_str();
  wtCaptureStats stats{};
  char error[256];
  if (wtWriteWtraw(run.tracer, o.out.c_str(), &info, &stats, error, sizeof error) != 0) fatal("%s", error);
  std::printf("{\"out\": %s, \"workload\": \"%s\", \"device\": %s, \"records\": %u, \"counter\": %u, \"capacity\": %u, \"draws\": %u",
              jsonEscape(o.out).c_str(), w.name(), jsonEscape(run.gpu.caps.deviceName).c_str(), stats.kept, stats.counter,
              stats.capacity, stats.draws);
  std::printf(", \"clockSharedTimeBase\": %s, \"timestampMinusDeviceNs\": [%.0f, %.0f]", clocks.sharedTimeBase ? "true" : "false",
              clocks.offsetLowNs, clocks.offsetHighNs);
  if (measure) std::printf(", \"plainFrameNs\": %.0f, \"tracedFrameNs\": %.0f, \"overhead\": %.4f", plainNs, tracedNs, tracedNs / plainNs);
  std::printf("}\n");
  tearDown(run);
  return 0;
}

int bench(const Options &o) {
  if (o.variants.empty()) usage("--bench needs --plain-variant NAME=DIR and --variant NAME=DIR");
  Run run;
  setUp(run, o, o.capacity ? o.capacity : (1u << 21), 64);
  std::vector<Variant> variants = o.variants;
  for (Variant &v : variants) v.pipelines = run.workload->pipelines(*run.ctx, v.dir);
  if (!o.stats.empty()) {
    std::vector<std::pair<std::string, std::vector<VkPipeline>>> named;
    for (const Variant &v : variants) named.emplace_back(v.name, v.pipelines);
    writePipelineStats(run.gpu, named, o.stats);
  }
  std::vector<std::vector<double>> times = timeVariants(*run.ctx, *run.workload, variants, o.rounds, o.warmup);
  double base = quantile(times[0], 0.5);
  FILE *json = o.json.empty() ? nullptr : std::fopen(o.json.c_str(), "w");
  if (!o.json.empty() && !json) fatal("cannot write %s", o.json.c_str());
  std::printf("%s on %s, %u rounds, parameters %s\n", run.workload->name(), run.gpu.caps.deviceName, o.rounds,
              run.workload->params.json().c_str());
  std::printf("%-14s %12s %12s %12s %8s\n", "variant", "median us", "p25 us", "p75 us", "ratio");
  if (json)
    std::fprintf(json, "{\"workload\": \"%s\", \"device\": %s, \"rounds\": %u, \"parameters\": %s, \"variants\": [", run.workload->name(),
                 jsonEscape(run.gpu.caps.deviceName).c_str(), o.rounds, run.workload->params.json().c_str());
  for (size_t v = 0; v < variants.size(); v++) {
    double med = quantile(times[v], 0.5), p25 = quantile(times[v], 0.25), p75 = quantile(times[v], 0.75);
    std::printf("%-14s %12.2f %12.2f %12.2f %8.4f\n", variants[v].name.c_str(), med / 1000, p25 / 1000, p75 / 1000, med / base);
    if (json)
      std::fprintf(json, "%s\n  {\"name\": %s, \"medianNs\": %.1f, \"p25Ns\": %.1f, \"p75Ns\": %.1f, \"ratio\": %.5f}", v ? "," : "",
                   jsonEscape(variants[v].name).c_str(), med, p25, p75, med / base);
  }
  if (json) {
    std::fprintf(json, "\n]}\n");
    std::fclose(json);
  }
  tearDown(run);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  if (o.mode == "probe") return probe(o.device);
  if (o.mode == "list") return list();
  if (o.mode == "bench") return bench(o);
  if (o.app.vulkan10 && o.mode != "app") usage("--vulkan-1.0 is an --app option");
  if (o.mode == "app") {
    if (o.workload.empty()) usage("missing --workload NAME (see --list)");
    if (o.plainShaders.empty()) usage("--app needs --plain-shaders DIR (uninstrumented SPIR-V)");
    AppRun run = o.app;
    run.workload = o.workload, run.plainShaders = o.plainShaders, run.params = o.params;
    run.frames = o.frames, run.device = o.device, run.clearInFrame = o.clearInFrame;
    return runApp(run);
  }
  return capture(o);
}
