#pragma once

#include <string>
#include <vector>

#include "state.hpp"

namespace wtl {

/** Entries a draw's barriersBefore holds at most: the last says how many more there were ("+5 more"). */
static const size_t kMaxBarriersBefore = 8;

/** The draw metadata member `, "barriersBefore": [...]` for the barriers since the frame's previous draw; "" when none. */
std::string barriersBeforeJson(const std::vector<std::string> &barriers);

}  // namespace wtl
