// The captured frame's draw list: each submitted command buffer's recorded
// events walked in submission order (secondaries where they run), giving each
// draw its index and label, and the frame its nested regions.
#include <algorithm>
#include <cstdio>

#include "frame_draws.hpp"

#include "barriers.hpp"
#include "command_buffers.hpp"
#include "hooks.hpp"
#include "tracer_glue.hpp"

namespace wtl {

/** The draw id of a slot whose draw is not traced: the instrumented wrapper writes no record for it (CONTRACT.md). */

void pushRegion(CaptureState &c, const std::string &label, const char *source) {
  int32_t parent = c.regionStack.empty() ? -1 : c.regionStack.back();
  c.regionStack.push_back((int32_t)c.regions.size());
  c.regions.push_back({label, parent, source});
}

/** A draw's target member for its metadata: the render area of the pass it lies in (none: unknown). */
static std::string targetJson(VkExtent2D area) {
  if (area.width == 0 || area.height == 0) return "";
  return ", \"target\": {\"width\": " + std::to_string(area.width) + ", \"height\": " + std::to_string(area.height) + "}";
}

/**
 * Numbers the draws of one command buffer (and the secondaries it runs) in
 * submission order; `area` is the render area of the pass open where it runs
 * (a secondary inside a render pass draws to its caller's).
 */
static void walkEvents(DeviceState *device, CommandState *cs, std::vector<uint32_t> &slots, std::vector<uint32_t> &values, int depth,
                       VkExtent2D area) {
  CaptureState &c = device->capture;
  for (const RecordedEvent &e : cs->events) {
    switch (e.kind) {
      case RecordedEvent::BeginLabel: pushRegion(c, e.text, "debug-label"); break;
      case RecordedEvent::EndLabel:
        if (!c.regionStack.empty()) c.regionStack.pop_back();
        break;
      case RecordedEvent::EndPass:
        if (!c.regionStack.empty()) c.regionStack.pop_back();
        area = VkExtent2D{};
        break;
      case RecordedEvent::InsertLabel: c.pendingLabel = e.text; break;
      case RecordedEvent::Barrier: c.pendingBarriers.push_back(e.text); break;
      case RecordedEvent::BeginPass: {
        // RenderDoc's names for passes without labels.
        char name[96];
        if (e.colorTargets == UINT32_MAX) snprintf(name, sizeof name, "Render Pass #%u", ++c.colourPasses);
        else if (e.colorTargets > 0)
          snprintf(name, sizeof name, "Colour Pass #%u (%u Target%s%s)", ++c.colourPasses, e.colorTargets, e.colorTargets == 1 ? "" : "s",
                   e.depthTarget ? " + Depth" : "");
        else snprintf(name, sizeof name, "Depth-only Pass #%u", ++c.depthPasses);
        pushRegion(c, name, "render-pass");
        area = e.renderArea;
        break;
      }
      case RecordedEvent::Draw: {
        uint64_t frameIndex = c.frameDraws++;
        const Settings &s = settings();
        if (s.drawRange && (frameIndex < s.firstDraw || frameIndex > s.lastDraw)) {
          // Outside --draws A..B: its slot reads the no-draw id, so its warps write no record (the instrumenter skips them).
          slots.push_back(e.slot);
          values.push_back(kNoDrawId);
          c.skippedDraws++;
          c.pendingLabel.clear();
          c.pendingBarriers.clear();
          break;
        }
        uint32_t index = (uint32_t)c.draws.size();
        std::string extra = "\"call\": " + jsonString(e.text) + ", \"pipeline\": " + jsonString(e.pipeline) + ", \"region\": " +
                            (c.regionStack.empty() ? std::string("null") : std::to_string(c.regionStack.back())) + ", \"params\": {" +
                            e.params + "}" + (e.drawKind == WT_KIND_DRAW ? targetJson(area) : e.drawKind == WT_KIND_TRACE_RAYS ? targetJson(e.launch) : std::string()) +
                            (e.untraced.empty() ? std::string() : ", \"untraced\": " + jsonString(e.untraced)) +
                            (e.unprofiled.empty() ? std::string() : ", \"unprofiled\": " + jsonString(e.unprofiled)) +
                            barriersBeforeJson(c.pendingBarriers);
        std::string label = c.pendingLabel.empty() ? e.label : c.pendingLabel;
        // With a range the trace's draw k is not the frame's draw k: the label keeps the frame's number.
        if (s.drawRange) label = "#" + std::to_string(frameIndex) + " " + label;
        c.draws.push_back({e.slot, e.endQuery, label, e.drawKind, extra, e.launchSize, e.unprofiledWhy});
        c.pendingLabel.clear();
        c.pendingBarriers.clear();
        slots.push_back(e.slot);
        // An untraced draw runs the app's pipeline, which reads no draw id: its slot holds the no-draw id all the same.
        values.push_back(e.untraced.empty() ? index : kNoDrawId);
        // Block profiles: the draw's row of the table (or one shared by its pipeline's draws), in its slot's draw-id block.
        if (e.untraced.empty() && e.blockRow) giveBlockRow(device, e.slot, *e.blockRow, e.blockShareKey, e.blockStageOffsets.get());
        if (e.untraced.empty() && device->rayEvents && e.drawKind == WT_KIND_TRACE_RAYS) giveRayRow(device, e.slot);
        break;
      }
      case RecordedEvent::Execute:
        if (!e.secondary || e.secondary->generation != e.secondaryGeneration || depth >= 4) break;
        if (!c.walked.insert(e.secondary).second) {
          // Its draws hold one slot each: the warps of both runs land in the first run's draws.
          c.notTraced.push_back("a secondary command buffer run twice in the capture: its draws' warps of both runs are merged");
          break;
        }
        walkEvents(device, e.secondary, slots, values, depth + 1, area);
        break;
    }
  }
  if (cs->untracedDraws) {
    c.untracedDraws += cs->untracedDraws;
    if (!cs->untracedWhy.empty()) c.notTraced.push_back(std::to_string(cs->untracedDraws) + " draw(s): " + cs->untracedWhy);
  }
}

void numberDraws(DeviceState *device, CommandState *cs, std::vector<uint32_t> &slots, std::vector<uint32_t> &values) {
  walkEvents(device, cs, slots, values, 0, VkExtent2D{});
}

void noteUnprofiledDraws(DeviceState *device) {
  // Per reason, in the order the frame first met it: one note however many draws share it.
  std::vector<std::pair<std::string, uint32_t>> counted;
  for (const FrameDraw &d : device->capture.draws) {
    if (d.unprofiledWhy.empty()) continue;
    auto it = std::find_if(counted.begin(), counted.end(), [&](const auto &e) { return e.first == d.unprofiledWhy; });
    if (it == counted.end()) counted.push_back({d.unprofiledWhy, 1});
    else it->second++;
  }
  for (const auto &[why, draws] : counted)
    reportNote(device, "blocks", why + ": " + std::to_string(draws) + " traced draw" + (draws == 1 ? "" : "s") + " of the capture without one");
}

}  // namespace wtl
