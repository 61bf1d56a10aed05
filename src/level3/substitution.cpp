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

// The one of four loops (float, double, complex float, complex double) for E.
template <typename E, typename F32, typename F64, typename C64, typename C128>
auto of_type(F32 f32, F64 f64, C64 c64, C128 c128) {
  if constexpr (std::is_same_v<E, float>)
    return f32;
  else if constexpr (std::is_same_v<E, double>)
    return f64;
  else if constexpr (std::is_same_v<E, bf16x_complex_float>)
    return c64;
  else
    return c128;
}

template <typename E>
SolveColumns<E> solve_of(const SubstitutionLoops& l) {
  return of_type<E>(l.solve_fp32, l.solve_fp64, l.solve_c64, l.solve_c128);
}

template <typename E>
SubtractProducts<E> subtract_of(const SubstitutionLoops& l) {
  return of_type<E>(l.subtract_fp32, l.subtract_fp64, l.subtract_c64, l.subtract_c128);
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

template <typename E>
void subtract_products(const Operand<E>& a, std::int64_t rows, std::int64_t cols, bool descending, const View<E>& x,
                       const View<E>& y, std::int64_t n) {
  if (rows <= 0 || cols <= 0 || n <= 0) return;
  // a(r, c) at a.x[r ra + c ca]
  const std::int64_t ra = a.transposed ? a.ld : 1, ca = a.transposed ? 1 : a.ld;
  // Rows in tasks of 512 (independent: their split changes no bit), on a team from a million multiply-adds (about
  // 100 us here; smaller updates ran slower on two threads than on one).
  constexpr std::int64_t kRows = 512, kTeamWork = std::int64_t(1) << 20;
  const SubtractProducts<E> subtract = subtract_of<E>(substitution_loops());
  util::for_each_index((rows + kRows - 1) / kRows, rows * cols * n, kTeamWork, [&](std::int64_t t) {
    const std::int64_t r0 = t * kRows;
    subtract(a.x + r0 * ra, ra, ca, a.conj, std::min(kRows, rows - r0), cols, descending, x.p, x.ld, y.p + r0, y.ld, n);
  });
}

template void substitute<float>(const float*, std::int64_t, bool, bool, const View<float>&, std::int64_t);
template void substitute<double>(const double*, std::int64_t, bool, bool, const View<double>&, std::int64_t);
template void substitute<bf16x_complex_float>(const bf16x_complex_float*, std::int64_t, bool, bool,
                                              const View<bf16x_complex_float>&, std::int64_t);
template void substitute<bf16x_complex_double>(const bf16x_complex_double*, std::int64_t, bool, bool,
                                               const View<bf16x_complex_double>&, std::int64_t);

#define BF16X_SUBTRACT_PRODUCTS(E)                                                                        \
  template void subtract_products<E>(const Operand<E>&, std::int64_t, std::int64_t, bool, const View<E>&, \
                                     const View<E>&, std::int64_t);
BF16X_SUBTRACT_PRODUCTS(float)
BF16X_SUBTRACT_PRODUCTS(double)
BF16X_SUBTRACT_PRODUCTS(bf16x_complex_float)
BF16X_SUBTRACT_PRODUCTS(bf16x_complex_double)
#undef BF16X_SUBTRACT_PRODUCTS

}  // namespace bf16x::level3
