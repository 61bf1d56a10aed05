// The layer's own loops over independent columns (of a packed copy, of TRSM's right sides), on the call's threads
// unless the work is small: each column's operations are the same whichever thread runs it, so the split changes no
// bit.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "util/team.hpp"

namespace bf16x::level3 {

// A packed copy is worth a team from this many elements.
constexpr std::int64_t kParallelCopy = std::int64_t(1) << 16;

template <typename Body>
void for_columns(std::int64_t cols, bool small, Body body) {
  const int threads = int(std::min<std::int64_t>(omp_get_max_threads(), cols));
  if (!util::team_needed(threads) || small) {
    for (std::int64_t j = 0; j < cols; ++j) body(j);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t j = 0; j < cols; ++j) body(j);
}

}  // namespace bf16x::level3
