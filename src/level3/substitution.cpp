#include "level3/substitution.hpp"

#include <algorithm>
#include <type_traits>

#include "cpu/features.hpp"
#include "level3/blocking.hpp"
#include "level3/substitution_loops.hpp"
#include "util/team.hpp"

namespace bf16x::level3 {

static_assert(kSolveBlock <= kSubstitutionRows, "TRSM's diagonal blocks fit the substitution loops' block");

const SubstitutionLoops& substitution_loops() {
  static const SubstitutionLoops& loops =
      cpu::by_level(kSubstitutionLoopsGeneric, kSubstitutionLoopsAvx2, kSubstitutionLoopsAvx512);
  return loops;
}

namespace {

template <typename E>
SolveColumns<E> solve_of(const SubstitutionLoops& loops) {
  if constexpr (std::is_same_v<E, float>)
    return loops.solve_fp32;
  else if constexpr (std::is_same_v<E, double>)
    return loops.solve_fp64;
  else if constexpr (std::is_same_v<E, bf16x_complex_float>)
    return loops.solve_c64;
  else
    return loops.solve_c128;
}

}  // namespace

template <typename E>
void substitute(const E* d, std::int64_t s, bool lower, bool unit, const View<E>& b, std::int64_t n) {
  constexpr std::int64_t kColumns = 64;  // per task: columns are independent, their split changes no bit
  const std::int64_t tasks = (n + kColumns - 1) / kColumns;
  const SolveColumns<E> solve = solve_of<E>(substitution_loops());
  util::for_each_index(tasks, s * n, 4095, [&](std::int64_t t) {
    solve(d, s, lower, unit, b.p, b.ld, b.rows, t * kColumns, std::min(n, (t + 1) * kColumns));
  });
}

template void substitute<float>(const float*, std::int64_t, bool, bool, const View<float>&, std::int64_t);
template void substitute<double>(const double*, std::int64_t, bool, bool, const View<double>&, std::int64_t);
template void substitute<bf16x_complex_float>(const bf16x_complex_float*, std::int64_t, bool, bool,
                                              const View<bf16x_complex_float>&, std::int64_t);
template void substitute<bf16x_complex_double>(const bf16x_complex_double*, std::int64_t, bool, bool,
                                               const View<bf16x_complex_double>&, std::int64_t);

}  // namespace bf16x::level3
