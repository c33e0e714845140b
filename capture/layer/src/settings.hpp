// The capture's settings, read once from the environment the CLI sets
// (capture/layer/CONTRACT.md).
#pragma once

#include <cstdint>
#include <string>

namespace wtl {

struct Settings {
  std::string socketPath;  // WARPTRACE_SOCKET; empty: nothing is traced
  std::string outputPath;  // WARPTRACE_OUTPUT
  std::string imagePath;   // WARPTRACE_IMAGE: the captured frame's presented image, as PPM
  uint64_t frame = 60;     // WARPTRACE_FRAME: 1-based present count
  bool submitMode = false; // WARPTRACE_SUBMITS given
  uint64_t firstSubmit = 0, lastSubmit = 0;
  std::string triggerPath;   // WARPTRACE_TRIGGER
  uint32_t stageMask = 0x3fff; // WARPTRACE_STAGES: bit = stage code (VS 0 .. CS 5, TASK 6, MESH 7, RAYGEN 8 .. CALLABLE 13: stages.hpp)
  std::string drawGlob;      // WARPTRACE_DRAWS as a label glob
  bool drawRange = false;    // WARPTRACE_DRAWS as A..B
  uint64_t firstDraw = 0, lastDraw = 0;
  uint32_t capacity = 0;     // WARPTRACE_CAPACITY (0: the host library's default)
  uint8_t sampleLog2[14] = {};  // WARPTRACE_SAMPLE ("FS=8,VS=4"): by stage code, one warp in 2^k records (wtSetSampling)
  // WARPTRACE_FS_ID: the fragment records' custom id: frag-coord (the default: the leader's pixel, read anyway for the
  // position), primitive-id (gl_PrimitiveID: 10% of a tessellated frame, 16% of a mesh-shader frame on the H200, even
  // in warps that record nothing) or none.
  std::string fsCustomId = "frag-coord";
  bool sampling = false;     // some stage is sampled: modules get the run-time sampling test ("sampling": "runtime")
  double sampleBudget = 0;   // WARPTRACE_SAMPLE_BUDGET (1 < B <= 100): the rates were chosen by `--budget B` (metadata, parameters); 0: by the user
  std::string positions;     // WARPTRACE_POSITIONS as given ("fs,cs", "fs,rgen,chit", "none"); empty: the instrumenter's default
  std::string positionJson;  // the same as the instrument request's "position" list (["FS", "CS"], ["FS", "RAYGEN", "CLOSEST_HIT"], [])
  bool blocks = false;       // WARPTRACE_BLOCKS=1: block profiles (the instrumenter's --blocks; shared-schema "Block profiles")
  uint32_t blockCells = 1u << 18;  // WARPTRACE_BLOCK_CELLS: cells of one copy of the block table (32 bytes each)
  bool blockRowsPerPipeline = false;  // WARPTRACE_BLOCK_ROWS=pipeline: one row per pipeline, not per draw
  bool rayEvents = false;    // WARPTRACE_RAY_EVENTS=1: ray events (the instrumenter's --ray-events; shared-schema "Ray events")
  uint32_t rayRows = 4;      // WARPTRACE_RAY_ROWS: trace-rays calls profiled per capture (one row each)
  uint32_t rayCells = 1u << 20;  // WARPTRACE_RAY_CELLS: cells per row (32 bytes each; a launch larger bins its pixels)
  std::string marks;         // WARPTRACE_MARKS as given ("trace,loops"): the instrumenter's --marks; empty: none
  std::string marksJson;     // the same as the instrument request's "marks" list (["trace", "loops"])
  bool timeOnly = false;     // WARPTRACE_TIME_ONLY=1: trace nothing, time the --submits range (the untraced baseline)
  double plainNs = 0;        // WARPTRACE_PLAIN_NS: that baseline's median GPU time, from earlier runs
  uint32_t plainRuns = 0;    // WARPTRACE_PLAIN_RUNS: how many runs it is the median of
  /** WARPTRACE_OFFSCREEN: 1 every window presents offscreen; 0 never; unset only where the device cannot present (offscreen.hpp). */
  enum class Offscreen { Auto, Always, Never } offscreen = Offscreen::Auto;
  std::string problems;      // settings that could not be read, reported once
};

const Settings &settings();

/** Glob match with * and ?, as the CLI documents for --draws. */
bool globMatch(const char *pattern, const char *text);

}  // namespace wtl
