// The reference workloads: each reproduces a situation warptrace exists to reveal.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "workloads.hpp"

namespace {

void setRect(Knobs &k, float x0, float y0, float x1, float y1) {
  k.rect[0] = x0, k.rect[1] = y0, k.rect[2] = x1, k.rect[3] = y1;
}

void setColor(Knobs &k, float r, float g, float b) { k.color[0] = r, k.color[1] = g, k.color[2] = b; }

void defineFrame(Params &p, double width, double height) {
  p.define("width", width, "render target width (px)");
  p.define("height", height, "render target height (px)");
}

/* 1. AQT-like frame: three tessellated draws, as in the AQT paper's Big Guy case study. */
class AqtFrame : public Workload {
 public:
  AqtFrame() {
    defineFrame(params, 1280, 720);
    params.define("grid", 24, "patches across each band (rows = grid / 4)");
    params.define("tess", 12, "tessellation level of regular patches (quartets get twice)");
    params.define("shading", 16, "fragment busy-loop iterations (light 0-16, heavy 256)");
    params.define("tcsWork", 48, "TCS iterations per invocation (irregular patches x1-4 by patch)");
    params.define("tesWork", 8, "TES iterations per invocation (irregular patches x2)");
    params.define("vsWork", 0, "VS iterations per invocation");
  }
  const char *name() const override { return "aqt"; }
  const char *summary() const override {
    return "AQT-like frame: irregular / regular-quartet / regular tessellated draws; TCS heavier than TES, short VS, many FS warps";
  }
  std::vector<std::string> shaderFiles() const override {
    return {"aqt.vert", "aqt_irregular.tesc", "aqt_regular.tesc", "aqt.tese", "shade.frag"};
  }
  std::vector<VkPipeline> pipelines(Context &ctx, const std::string &dir) const override {
    GraphicsPipelineDesc d;
    d.topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST;
    d.patchControlPoints = 16;
    d.shaders = {"aqt.vert", "aqt_irregular.tesc", "aqt.tese", "shade.frag"};
    VkPipeline irregular = ctx.graphics(dir, d);
    d.shaders = {"aqt.vert", "aqt_regular.tesc", "aqt.tese", "shade.frag"};
    VkPipeline regular = ctx.graphics(dir, d);
    return {irregular, regular};
  }
  void record(Frame &f, const std::vector<VkPipeline> &p) const override {
    uint32_t gridW = std::max(2u, params.u("grid")), gridH = std::max(2u, gridW / 4);
    Knobs k;
    k.vsWork = params.u("vsWork");
    k.fsWork = params.u("shading");
    k.tessLevel = static_cast<float>(params.get("tess"));
    f.beginRendering(true);

    f.bindGraphics(p[0]);
    setRect(k, -1, -1, 1, -1.0f / 3);
    k.gridW = gridW, k.gridH = gridH, k.flavor = 0;
    k.tcsWork = params.u("tcsWork"), k.tesWork = 2 * params.u("tesWork");
    setColor(k, 0.85f, 0.45f, 0.3f);
    f.push(k);
    f.draw("irregular patches (32-invocation TCS, variable depth)", gridW * gridH * 16);

    f.bindGraphics(p[1]);
    setRect(k, -1, -1.0f / 3, 1, 1.0f / 3);
    k.gridW = gridW / 2, k.gridH = gridH / 2, k.flavor = 1;
    k.tcsWork = params.u("tcsWork") / 2, k.tesWork = params.u("tesWork");
    k.tessLevel = 2 * static_cast<float>(params.get("tess"));
    setColor(k, 0.35f, 0.7f, 0.45f);
    f.push(k);
    f.draw("regular quartet patches (2x2 cells per patch)", k.gridW * k.gridH * 16);

    setRect(k, -1, 1.0f / 3, 1, 1);
    k.gridW = gridW, k.gridH = gridH, k.flavor = 2;
    k.tcsWork = params.u("tcsWork") / 4;
    k.tessLevel = static_cast<float>(params.get("tess"));
    setColor(k, 0.35f, 0.5f, 0.85f);
    f.push(k);
    f.draw("regular patches", gridW * gridH * 16);
    f.endRendering();
  }
  std::string drawStagesJson() const override {
    return R"([["VS","TCS","TES","FS"],["VS","TCS","TES","FS"],["VS","TCS","TES","FS"]])";
  }
};

/* 2. Tessellation stall: a few very expensive TCS patches, in submission order and sorted by cost. */
class TessStall : public Workload {
 public:
  TessStall() {
    defineFrame(params, 1280, 720);
    params.define("grid", 32, "patches across (rows = grid / 2); the same patches are drawn twice");
    params.define("spikes", 6, "expensive patches");
    params.define("spikeCost", 256, "cost of an expensive patch, in multiples of a cheap one");
    params.define("tcsWork", 24, "TCS iterations per invocation of a cheap patch");
    params.define("tess", 8, "tessellation level");
    params.define("shading", 0, "fragment busy-loop iterations");
  }
  const char *name() const override { return "tess-stall"; }
  const char *summary() const override {
    return "tessellation stall: a few patches with very expensive TCS hold the in-order pipeline; then the same patches sorted by cost";
  }
  std::vector<std::string> shaderFiles() const override { return {"stall.vert", "stall.tesc", "stall.tese", "shade.frag"}; }
  uint32_t patchCount() const { return gridW() * gridH(); }
  uint32_t gridW() const { return std::max(2u, params.u("grid")); }
  uint32_t gridH() const { return std::max(1u, gridW() / 2); }
  VkDeviceSize dataBytes() const override { return 2ull * patchCount() * 8; }
  void fillData(void *map) const override {
    // Entries [0, n): submission order; [n, 2n): sorted by cost, most expensive first (stable).
    uint32_t n = patchCount(), spikes = std::min(params.u("spikes"), n);
    std::vector<uint32_t> cost(n, 1);
    for (uint32_t s = 0; s < spikes; s++) {
      // Spread the spikes over the draw, away from its very start.
      uint32_t at = static_cast<uint32_t>((static_cast<uint64_t>(n) * (2 * s + 1)) / (2 * spikes));
      cost[std::min(at, n - 1)] = std::max(1u, params.u("spikeCost"));
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return cost[a] > cost[b]; });
    uint32_t *table = static_cast<uint32_t *>(map);
    for (uint32_t i = 0; i < n; i++) {
      table[2 * i] = i, table[2 * i + 1] = cost[i];
      table[2 * (n + i)] = order[i], table[2 * (n + i) + 1] = cost[order[i]];
    }
  }
  std::vector<VkPipeline> pipelines(Context &ctx, const std::string &dir) const override {
    GraphicsPipelineDesc d;
    d.topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST;
    d.patchControlPoints = 4;
    d.shaders = {"stall.vert", "stall.tesc", "stall.tese", "shade.frag"};
    return {ctx.graphics(dir, d)};
  }
  void record(Frame &f, const std::vector<VkPipeline> &p) const override {
    Knobs k;
    k.gridW = gridW(), k.gridH = gridH();
    k.tcsWork = params.u("tcsWork");
    k.fsWork = params.u("shading");
    k.tessLevel = static_cast<float>(params.get("tess"));
    char label[96];
    f.beginRendering(true);
    f.bindGraphics(p[0]);
    setRect(k, -1, -1, 1, 0);
    k.patchBase = 0;
    setColor(k, 0.6f, 0.6f, 0.65f);
    f.push(k);
    std::snprintf(label, sizeof label, "patches in submission order (%u expensive TCS patches scattered)", params.u("spikes"));
    f.draw(label, patchCount() * 4);
    f.sync();
    setRect(k, -1, 0, 1, 1);
    k.patchBase = patchCount();
    setColor(k, 0.55f, 0.65f, 0.6f);
    f.push(k);
    f.draw("sync barrier \xe2\x86\x92 same patches sorted by TCS cost (expensive first)", patchCount() * 4);
    f.endRendering();
  }
  std::string drawStagesJson() const override { return R"([["VS","TCS","TES","FS"],["VS","TCS","TES","FS"]])"; }
};

/* 3. Syncs: draws that run freely vs the same draws separated by forced GPU syncs. */
class Syncs : public Workload {
 public:
  Syncs() {
    defineFrame(params, 1280, 720);
    params.define("draws", 4, "draws in each half of the frame");
    params.define("shading", 48, "fragment busy-loop iterations");
  }
  const char *name() const override { return "syncs"; }
  const char *summary() const override {
    return "syncs: free-running draws vs the same draws separated by full pipeline barriers";
  }
  std::vector<std::string> shaderFiles() const override { return {"quad.vert", "shade.frag"}; }
  std::vector<VkPipeline> pipelines(Context &ctx, const std::string &dir) const override {
    GraphicsPipelineDesc d;
    d.shaders = {"quad.vert", "shade.frag"};
    d.depthTest = false;
    return {ctx.graphics(dir, d)};
  }
  void record(Frame &f, const std::vector<VkPipeline> &p) const override {
    uint32_t n = std::max(1u, params.u("draws"));
    Knobs k;
    k.fsWork = params.u("shading");
    char label[96];
    f.beginRendering(true);
    f.bindGraphics(p[0]);
    for (uint32_t half = 0; half < 2; half++) {
      for (uint32_t i = 0; i < n; i++) {
        float x0 = -1 + 2.0f * i / n, x1 = -1 + 2.0f * (i + 1) / n;
        setRect(k, x0, half ? 0.0f : -1.0f, x1, half ? 1.0f : 0.0f);
        setColor(k, half ? 0.8f : 0.3f, 0.4f + 0.4f * i / n, half ? 0.3f : 0.8f);
        f.push(k);
        if (half) {
          f.sync();
          std::snprintf(label, sizeof label, "sync barrier \xe2\x86\x92 draw %u of %u", i + 1, n);
        } else {
          std::snprintf(label, sizeof label, "free-running draw %u of %u", i + 1, n);
        }
        f.draw(label, 6);
      }
    }
    f.endRendering();
  }
  std::string drawStagesJson() const override {
    std::string out = "[";
    for (uint32_t i = 0; i < 2 * std::max(1u, params.u("draws")); i++) out += std::string(i ? "," : "") + R"(["VS","FS"])";
    return out + "]";
  }
};

/* 4. A compute dispatch next to graphics work (with a geometry shader). */
class ComputeGraphics : public Workload {
 public:
  ComputeGraphics() {
    defineFrame(params, 1280, 720);
    params.define("groups", 2048, "compute workgroups of 64 invocations");
    params.define("csWork", 64, "compute busy-loop iterations");
    params.define("grid", 48, "grid cells across (rows = grid * 9 / 16)");
    params.define("gsWork", 16, "geometry-shader busy-loop iterations");
    params.define("shading", 16, "fragment busy-loop iterations");
  }
  const char *name() const override { return "compute-graphics"; }
  const char *summary() const override {
    return "compute beside graphics: a dispatch with no barrier before a VS+GS+FS draw, then a dispatch after a barrier";
  }
  std::vector<std::string> shaderFiles() const override { return {"particles.comp", "grid.vert", "shrink.geom", "shade.frag"}; }
  VkDeviceSize dataBytes() const override { return 16ull * 64 * std::max(1u, params.u("groups")); }
  std::vector<VkPipeline> pipelines(Context &ctx, const std::string &dir) const override {
    GraphicsPipelineDesc d;
    d.shaders = {"grid.vert", "shrink.geom", "shade.frag"};
    return {ctx.compute(dir, "particles.comp"), ctx.graphics(dir, d)};
  }
  void record(Frame &f, const std::vector<VkPipeline> &p) const override {
    uint32_t groups = std::max(1u, params.u("groups"));
    Knobs k;
    k.csWork = params.u("csWork");
    k.gsWork = params.u("gsWork");
    k.fsWork = params.u("shading");
    k.gridW = std::max(1u, params.u("grid")), k.gridH = std::max(1u, k.gridW * 9 / 16);
    setColor(k, 0.5f, 0.75f, 0.9f);
    f.bindCompute(p[0]);
    f.push(k);
    f.dispatch("compute: particle update (no barrier: may overlap the draw)", groups);
    f.beginRendering(true);
    f.bindGraphics(p[1]);
    f.push(k);
    f.draw("draw: grid with a geometry shader (VS+GS+FS)", k.gridW * k.gridH * 6);
    f.endRendering();
    f.sync();
    f.bindCompute(p[0]);
    f.push(k);
    f.dispatch("sync barrier \xe2\x86\x92 compute: particle update after the draw", groups);
  }
  std::string drawStagesJson() const override { return R"([["CS"],["VS","GS","FS"],["CS"]])"; }
};

/* A dispatch, a barrier, then a full-screen draw, both running `work` loop iterations (workloads 5 and 6). */
struct DispatchThenQuadShaders {
  const char *name, *summary, *compute, *fragment, *workText, *computeLabel, *drawLabel;
  uint32_t work, groups, bytesPerInvocation;
};

class DispatchThenQuad : public Workload {
 public:
  explicit DispatchThenQuad(const DispatchThenQuadShaders &s) : s_(s) {
    defineFrame(params, 64, 64);
    params.define("work", s.work, s.workText);
    params.define("groups", s.groups, "compute workgroups of 64 invocations");
  }
  const char *name() const override { return s_.name; }
  const char *summary() const override { return s_.summary; }
  std::vector<std::string> shaderFiles() const override { return {s_.compute, "quad.vert", s_.fragment}; }
  VkDeviceSize dataBytes() const override { return (VkDeviceSize)s_.bytesPerInvocation * 64 * std::max(1u, params.u("groups")); }
  std::vector<VkPipeline> pipelines(Context &ctx, const std::string &dir) const override {
    GraphicsPipelineDesc d;
    d.shaders = {"quad.vert", s_.fragment};
    d.depthTest = false;
    return {ctx.compute(dir, s_.compute), ctx.graphics(dir, d)};
  }
  void record(Frame &f, const std::vector<VkPipeline> &p) const override {
    Knobs k;
    k.csWork = params.u("work");
    k.fsWork = params.u("work");
    f.bindCompute(p[0]);
    f.push(k);
    f.dispatch(s_.computeLabel, std::max(1u, params.u("groups")));
    f.sync();
    f.beginRendering(true);
    f.bindGraphics(p[1]);
    f.push(k);
    f.draw(s_.drawLabel, 6);
    f.endRendering();
  }
  std::string drawStagesJson() const override { return R"([["CS"],["VS","FS"]])"; }

 private:
  DispatchThenQuadShaders s_;
};

/* 5. Busy loop: warp durations must grow with the work knob (for the tests). */
const DispatchThenQuadShaders kBusyLoop = {
    "busy-loop", "busy loop: a dispatch and a full-screen draw whose work grows with the work knob", "particles.comp", "shade.frag",
    "busy-loop iterations in every compute and fragment invocation", "busy loop: compute", "busy loop: full-screen fragments", 64, 32, 16};

/* 6. Divergence: a branch that exactly half the lanes of every warp take (the block profiles' known answer, for the tests). */
const DispatchThenQuadShaders kDivergence = {
    "divergence", "divergence: a dispatch and a full-screen draw whose branch half the lanes of every warp take (run with --blocks)",
    "divergence.comp", "divergence.frag", "loop iterations in the branch (odd local invocation indices, odd pixel columns)",
    "divergence: compute, odd invocations loop", "divergence: full-screen fragments, odd columns loop", 16, 4, 4};

}  // namespace

std::vector<std::unique_ptr<Workload>> allWorkloads() {
  std::vector<std::unique_ptr<Workload>> all;
  all.emplace_back(new AqtFrame());
  all.emplace_back(new TessStall());
  all.emplace_back(new Syncs());
  all.emplace_back(new ComputeGraphics());
  all.emplace_back(new DispatchThenQuad(kBusyLoop));
  all.emplace_back(new DispatchThenQuad(kDivergence));
  all.push_back(makeRayTracingWorkload());
  all.push_back(makeRayTracingReorderWorkload());
  all.push_back(makeMeshletWorkload());
  return all;
}

std::unique_ptr<Workload> findWorkload(const std::string &name) {
  for (auto &w : allWorkloads())
    if (name == w->name()) return std::move(w);
  return nullptr;
}

std::unique_ptr<Workload> requireWorkload(const std::string &name) {
  if (std::unique_ptr<Workload> w = findWorkload(name)) return w;
  std::string known;
  for (auto &w : allWorkloads()) known += std::string(known.empty() ? "" : ", ") + w->name();
  fatal("unknown workload \"%s\" (known: %s)", name.c_str(), known.c_str());
}
