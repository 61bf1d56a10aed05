// The layer's own loops over the columns of a packed copy, on the call's threads where the copy is large: copies
// only, so their split changes no bit.
#pragma once
#include <omp.h>

#include <cstdint>

#include "util/team.hpp"

namespace bf16x::level3 {

template <typename Body>
void for_columns(std::int64_t cols, std::int64_t rows, Body body) {
  const int threads = omp_get_max_threads();
  if (!util::team_needed(threads) || cols * rows < (std::int64_t(1) << 16)) {
    for (std::int64_t j = 0; j < cols; ++j) body(j);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t j = 0; j < cols; ++j) body(j);
}

}  // namespace bf16x::level3
