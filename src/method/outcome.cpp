#include "method/outcome.hpp"

#include <algorithm>

namespace bf16x::method {

void merge_outcome(Outcome& total, const Outcome& one) {
  total.mode = one.mode;
  total.engine = one.engine;
  if (total.why.empty()) total.why = one.why;
  total.counters.add(one.counters);
  total.seconds_split += one.seconds_split;
  total.seconds_compute += one.seconds_compute;
  total.workspace_bytes = std::max(total.workspace_bytes, one.workspace_bytes);
  total.guard = std::max(total.guard, one.guard);  // the strongest step any product needed
  total.repaired += one.repaired;
  total.host_lines += one.host_lines;
  total.levels = std::max(total.levels, one.levels);
  total.seconds_guard += one.seconds_guard;
  total.phases.add(one.phases);
}

}  // namespace bf16x::method
