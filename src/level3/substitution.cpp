#include "level3/substitution.hpp"

#include <algorithm>

#include "util/team.hpp"

namespace bf16x::level3 {
namespace {

// Columns [j0, j1) of B. A column-major B runs column by column (rows contiguous), a row-major one row by row
// (columns contiguous): the same operations on each element in the same order.
template <typename E>
void solve_columns(const E* __restrict d, std::int64_t s, bool lower, bool unit, const View<E>& b, std::int64_t j0,
                   std::int64_t j1) {
  if (!b.rows) {
    for (std::int64_t j = j0; j < j1; ++j) {  // the column stays in the L1 cache
      E* __restrict col = b.p + j * b.ld;
      for (std::int64_t q = 0; q < s; ++q) {
        const std::int64_t c = lower ? q : s - 1 - q, r0 = lower ? c + 1 : 0, r1 = lower ? s : c;
        if (!unit) col[c] = div(col[c], d[c + c * s]);
        const E x = col[c];
        const E* __restrict dc = d + c * s;
        for (std::int64_t r = r0; r < r1; ++r) col[r] = sub(col[r], mul(dc[r], x));
      }
    }
    return;
  }
  for (std::int64_t q = 0; q < s; ++q) {
    const std::int64_t c = lower ? q : s - 1 - q, r0 = lower ? c + 1 : 0, r1 = lower ? s : c;
    E* __restrict xr = b.p + c * b.ld;
    if (!unit)
      for (std::int64_t j = j0; j < j1; ++j) xr[j] = div(xr[j], d[c + c * s]);
    for (std::int64_t r = r0; r < r1; ++r) {
      E* __restrict row = b.p + r * b.ld;
      const E u = d[r + c * s];
      for (std::int64_t j = j0; j < j1; ++j) row[j] = sub(row[j], mul(u, xr[j]));
    }
  }
}

}  // namespace

template <typename E>
void substitute(const E* d, std::int64_t s, bool lower, bool unit, const View<E>& b, std::int64_t n) {
  constexpr std::int64_t kColumns = 64;  // per task: columns are independent, their split changes no bit
  const std::int64_t tasks = (n + kColumns - 1) / kColumns;
  util::for_each_index(tasks, s * n, 4095, [&](std::int64_t t) {
    solve_columns(d, s, lower, unit, b, t * kColumns, std::min(n, (t + 1) * kColumns));
  });
}

template void substitute<float>(const float*, std::int64_t, bool, bool, const View<float>&, std::int64_t);
template void substitute<double>(const double*, std::int64_t, bool, bool, const View<double>&, std::int64_t);
template void substitute<bf16x_complex_float>(const bf16x_complex_float*, std::int64_t, bool, bool,
                                              const View<bf16x_complex_float>&, std::int64_t);
template void substitute<bf16x_complex_double>(const bf16x_complex_double*, std::int64_t, bool, bool,
                                               const View<bf16x_complex_double>&, std::int64_t);

}  // namespace bf16x::level3
