#include "driver/entry_repair.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "util/team.hpp"

namespace bf16x::driver {
namespace {

// sum_l a(i, l) col[l] in FP64: four partial sums over l mod 4, then (s0 + s1) + (s2 + s3) + the tail; each
// partial sum adds at most k/4 + 1 terms, so the error stays within gamma_k (|a||b|).
template <typename T>
double dot(const pack::MatrixView<T>& a, std::int64_t i, const double* col, std::int64_t k) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const std::int64_t k4 = k / 4 * 4;
  const T* p = a.trans ? a.data + i * a.ld : a.data + i;
  const std::int64_t st = a.trans ? 1 : a.ld;
  for (std::int64_t l = 0; l < k4; l += 4) {
    s0 += double(p[l * st]) * col[l];
    s1 += double(p[(l + 1) * st]) * col[l + 1];
    s2 += double(p[(l + 2) * st]) * col[l + 2];
    s3 += double(p[(l + 3) * st]) * col[l + 3];
  }
  double s = (s0 + s1) + (s2 + s3);
  for (std::int64_t l = k4; l < k; ++l) s += double(p[l * st]) * col[l];
  return s;
}

// The FP64 repair alpha s + beta c0 of an entry with dot product s, or false where only the exact value will do.
// FP32 operands never fail: their products are exact in FP64 and k of them stay far inside its range. FP64 ones
// fail where s or alpha s is not finite (an overflowing product or partial sum: Inf - Inf is NaN where the exact
// value may even be normal), where beta c0 overflows (c0 finite: the sum may not), and where |alpha| > 1 meets
// |s| < 2^-969: products below 2^-1022 round to the subnormal grid (2^-1075 each), which is within 2^-105 k of
// (|a||b|) only while |s| >= 2^-969, and a large alpha would carry the rest into a normal result.
template <typename T>
bool fp64_entry(double alpha, double s, double beta, T c0, double& v) {
  if constexpr (sizeof(T) == sizeof(float)) {
    v = beta == 0.0 ? alpha * s : alpha * s + beta * double(c0);
    return true;
  } else {
    const double as = alpha * s;
    if (!std::isfinite(as) || (std::fabs(alpha) > 1 && std::fabs(s) < 0x1p-969)) return false;
    if (beta == 0.0) {
      v = as;
      return true;
    }
    v = as + beta * c0;
    return std::isfinite(v) || !std::isfinite(c0);  // NaN or Inf in C0 propagates as in IEEE arithmetic
  }
}

}  // namespace

template <typename T>
std::vector<T> save_entries(const RepairArgs<T>& x, const std::vector<EntryIndex>& entries) {
  std::vector<T> c0;
  if (x.beta == T(0)) return c0;
  c0.reserve(entries.size());
  for (const EntryIndex& e : entries) c0.push_back(x.c_at(e.i, e.j));
  return c0;
}

template <typename T>
void repair_entries(const RepairArgs<T>& x, const std::vector<EntryIndex>& entries, const std::vector<T>& c0,
                    ExactEntry<T> exact) {
  if (entries.empty()) return;
  // Column groups: [starts[g], starts[g + 1]) share one column of op(B), widened once.
  std::vector<std::size_t> starts;
  for (std::size_t e = 0; e < entries.size(); ++e)
    if (e == 0 || entries[e].j != entries[e - 1].j) starts.push_back(e);
  starts.push_back(entries.size());
  const std::int64_t groups = std::int64_t(starts.size()) - 1, k = x.k;
  const int threads = int(std::min<std::int64_t>(omp_get_max_threads(), groups));
  std::vector<double> cols(std::size_t(threads) * std::size_t(k));
  const double alpha = double(x.alpha), beta = double(x.beta);
  const bool big = std::int64_t(entries.size()) * k > util::kTeamElements;
  // A share of the groups: its worksharing construct is orphaned here (util/team.hpp).
  const auto share = [&] {
    double* col = cols.data() + std::size_t(omp_get_thread_num()) * std::size_t(k);
    util::share_loop(groups, util::Schedule::dynamic, 1, [&](std::int64_t g) {
      const std::int64_t j = entries[starts[g]].j;
      for (std::int64_t l = 0; l < k; ++l) col[l] = double(x.b(l, j));
      for (std::size_t e = starts[g]; e < starts[g + 1]; ++e) {
        const std::int64_t i = entries[e].i;
        const T c = beta == 0.0 ? T(0) : c0[e];
        double v;
        if (fp64_entry<T>(alpha, dot(x.a, i, col, k), beta, c, v)) {
          x.c_at(i, j) = T(v);
        } else if (!std::isfinite(c)) {  // alpha (A B)_ij rounded on its own, then C0's NaN or Inf added
          x.c_at(i, j) = T(double(exact(x, i, j, T(0))) + beta * double(c));
        } else {
          x.c_at(i, j) = exact(x, i, j, c);
        }
      }
    });
  };
  util::on_team(big ? threads : 1, share);
}

template std::vector<float> save_entries(const RepairArgs<float>&, const std::vector<EntryIndex>&);
template std::vector<double> save_entries(const RepairArgs<double>&, const std::vector<EntryIndex>&);
template void repair_entries(const RepairArgs<float>&, const std::vector<EntryIndex>&, const std::vector<float>&,
                             ExactEntry<float>);
template void repair_entries(const RepairArgs<double>&, const std::vector<EntryIndex>&, const std::vector<double>&,
                             ExactEntry<double>);

}  // namespace bf16x::driver
