#include "method/second_level.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#include "bf16x/bf16x.h"
#include "crt/crt_mode.hpp"
#include "crt/moduli.hpp"
#include "method/guard_check.hpp"
#include "policy/guard.hpp"
#include "util/clock.hpp"
#include "util/pow2.hpp"

namespace bf16x::method {
namespace {

constexpr double u = 0x1p-53;

// Whether the proof's relative bounds hold: no sum may overflow (alpha's product included), and every grid, the
// second level's scales 2^-t below the lines' and the reconstruction's 2^-2t below the products', stays normal.
// Zero lines (1-norm 0) have no products to bound.
bool in_range(const GuardLines& lines, int t, std::int64_t k, double alpha) {
  int amin = INT_MAX, amax = INT_MIN, bmin = INT_MAX, bmax = INT_MIN;
  for (std::size_t i = 0; i < lines.ea.size(); ++i)
    if (lines.na[i] != 0) amin = std::min(amin, lines.ea[i]), amax = std::max(amax, lines.ea[i]);
  for (std::size_t j = 0; j < lines.eb.size(); ++j)
    if (lines.nb[j] != 0) bmin = std::min(bmin, lines.eb[j]), bmax = std::max(bmax, lines.eb[j]);
  if (amin == INT_MAX || bmin == INT_MAX) return true;  // op(A) or op(B) zero: every entry is beta C0
  const int ealpha = std::ilogb(alpha), log2k = std::ilogb(double(k)) + 1;
  return amax + bmax + log2k + std::max(ealpha + 1, 0) + 2 <= 1023 &&
         amin + bmin - 2 * t - 8 + std::min(ealpha, 0) >= -1021 && amin - t >= -1021 && bmin - t >= -1021;
}

// v = hi + lo with hi = v truncated toward zero on the grid 2^(e - t) (|v| < 2^e): both exact, |hi| <= |v|, and hi
// and lo of the sign of v.
void split(double v, double up1, double up2, double down1, double down2, double& hi, double& lo) {
  hi = (std::trunc((v * up1) * up2) * down1) * down2;
  lo = v - hi;
}

// Entry states of the proof.
enum : std::uint8_t { kProved = 0, kUnproved = 1, kZeroCandidate = 2 };

}  // namespace

int second_level(const GuardRequest& g, const driver::RepairArgs<double>& x, std::int64_t m, std::int64_t n,
                 std::uint64_t limit, const GuardLines& lines, Outcome& out, const LevelProduct& product) {
  const std::int64_t k = x.k;
  if (!crt::is_fp64c(g.mode) || g.part != pack::OutputPart::all || x.alpha == 0 || m == 0 || n == 0 || k == 0)
    return kSecondLevelNotRun;
  if (double(m) * double(n) * double(k) < g.second_level_from) return kSecondLevelNotRun;  // (GuardRequest)
  const policy::EntryBound bound = policy::entry_bound(g.mode, k, g.block_k);
  const int t = policy::crt_sigma(g.mode, k);
  const double tau = g.tau > 0 ? g.tau : policy::guard_target(true, k);
  if (!bound.valid || t < 8 || tau <= bound.c_rel) return kSecondLevelNotRun;
  const double t0 = util::now_if(g.timed);
  double in_products = 0;
  try {
    if (!in_range(lines, t, k, double(x.alpha))) return kSecondLevelNotRun;
    const std::size_t mk = std::size_t(m) * std::size_t(k), kn = std::size_t(k) * std::size_t(n),
                      mn = std::size_t(m) * std::size_t(n);
    std::vector<double> a1(mk), a2(mk), b1(kn), b2(kn), g1(mn), g2(mn), g3(mn);
    std::vector<std::uint8_t> state(mn, kProved);
    // The splits, column-major: op(A)'s rows at 2^(ea_i - t), op(B)'s columns at 2^(eb_j - t).
    std::vector<double> fa(4 * std::size_t(m)), fb(4 * std::size_t(n));
    for (std::int64_t i = 0; i < m; ++i) {
      util::pow2_pair(t - lines.ea[std::size_t(i)], fa[4 * i], fa[4 * i + 1]);
      util::pow2_pair(lines.ea[std::size_t(i)] - t, fa[4 * i + 2], fa[4 * i + 3]);
    }
    for (std::int64_t j = 0; j < n; ++j) {
      util::pow2_pair(t - lines.eb[std::size_t(j)], fb[4 * j], fb[4 * j + 1]);
      util::pow2_pair(lines.eb[std::size_t(j)] - t, fb[4 * j + 2], fb[4 * j + 3]);
    }
    for (std::int64_t l = 0; l < k; ++l)
      for (std::int64_t i = 0; i < m; ++i) {
        const std::size_t e = std::size_t(i + l * m);
        split(x.a(i, l), fa[4 * i], fa[4 * i + 1], fa[4 * i + 2], fa[4 * i + 3], a1[e], a2[e]);
      }
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t l = 0; l < k; ++l) {
        const std::size_t e = std::size_t(l + j * k);
        split(x.b(l, j), fb[4 * j], fb[4 * j + 1], fb[4 * j + 2], fb[4 * j + 3], b1[e], b2[e]);
      }
    const auto run = [&](const std::vector<double>& a, const pack::MatrixView<double>& b, std::vector<double>& c) {
      const double p0 = util::now_if(g.timed);
      const pack::GemmArgs<double> y{m, n, k, 1.0, {a.data(), m, false}, b, 0.0, c.data(), m};
      const bool ok = product(y) == util::DriverStatus::ok;
      in_products += util::now_if(g.timed) - p0;
      return ok;
    };
    const pack::MatrixView<double> vb1{b1.data(), k, false}, vb2{b2.data(), k, false};
    // G1 = A1 B1, G2 = A1 B2, G3 = A2 B; then r = G2 + G3 (in g2) and P1 = |A1||B1| (in g3).
    if (!run(a1, vb1, g1) || !run(a1, vb2, g2) || !run(a2, x.b, g3)) return kSecondLevelNotRun;
    for (std::size_t e = 0; e < mn; ++e) g2[e] += g3[e];
    for (std::size_t e = 0; e < mk; ++e) a2[e] = std::fabs(a1[e]);
    for (std::size_t e = 0; e < kn; ++e) b2[e] = std::fabs(b1[e]);
    if (!run(a2, vb2, g3)) return kSecondLevelNotRun;
    // |G~ - AB|_ij <= S_ij es + c_rel P_ij: G1 and P1 only the exact reconstruction's S c_exact (their operands are
    // exact in the fixed point), G2 and G3 also the truncation, on scales 2^-t S with 1-norms of at most k; the
    // reconstructions' u |X| terms sum to at most (u + 2u^2) P <= c_rel P (docs/numerics.md, "Second level"). r and
    // the sum each round once. P_ij >= P1_ij >= (P1~ - S c_exact) / (1 + c_rel).
    const double c_exact = std::ldexp(1 + 8 * u, crt::crt_plan(crt::crt_moduli(g.mode)).g - 92 - 2 * t);
    const double es =
        (c_exact * (1 + std::ldexp(1.0, 1 - t)) + std::ldexp(1.0, 2 - t) * double(k) * bound.c_norm) * (1 + 16 * u);
    const double room = tau - bound.c_rel;
    bool zeros = false;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        const std::size_t e = std::size_t(i + j * m);
        const double r = g2[e], sum = g1[e] + r;
        g1[e] = sum;
        if (lines.na[std::size_t(i)] == 0 || lines.nb[std::size_t(j)] == 0) continue;  // no product: exact
        const double s = std::ldexp(1.0, lines.ea[std::size_t(i)] + lines.eb[std::size_t(j)]);
        const double err = s * es + u * (1 + 4 * u) * (std::fabs(r) + std::fabs(sum)) + 0x1p-1071;
        const double low = (g3[e] - s * c_exact) / (1 + bound.c_rel) * (1 - 4 * u);
        if (room * low * (1 - 2 * u) >= err) continue;
        state[e] = g3[e] == 0 && sum == 0 ? kZeroCandidate : kUnproved;
        zeros = zeros || state[e] == kZeroCandidate;
      }
    // An entry whose products are all zero is exact (zero residues): the count of nonzero pairs, an exact
    // integer product of the operands' patterns, tells them from entries whose products only truncated to zero.
    if (zeros) {
      for (std::int64_t l = 0; l < k; ++l)
        for (std::int64_t i = 0; i < m; ++i) a2[std::size_t(i + l * m)] = x.a(i, l) != 0 ? 1.0 : 0.0;
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t l = 0; l < k; ++l) b2[std::size_t(l + j * k)] = x.b(l, j) != 0 ? 1.0 : 0.0;
      if (!run(a2, vb2, g3)) return kSecondLevelNotRun;
      for (std::size_t e = 0; e < mn; ++e)
        if (state[e] == kZeroCandidate) state[e] = g3[e] == 0 ? kProved : kUnproved;
    }
    std::vector<Entry> failing;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i)
        if (state[std::size_t(i + j * m)] == kUnproved) failing.push_back({i, j});
    if (failing.size() > limit) return kSecondLevelNotRun;
    // The repair first (it may throw before it writes), then the proved entries, which cannot fail.
    const std::vector<double> c0 = driver::save_entries(x, failing);
    driver::repair_entries(x, failing, c0, &exact_entry<double>);
    const double alpha = double(x.alpha), beta = double(x.beta);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        const std::size_t e = std::size_t(i + j * m);
        if (state[e] != kProved) continue;
        double& c = x.c_at(i, j);
        c = beta == 0 ? alpha * g1[e] : std::fma(alpha, g1[e], beta * c);
      }
    out.guard = BF16X_GUARD_ENTRIES;
    out.repaired += failing.size();
    out.levels = 2;
  } catch (const std::bad_alloc&) {  // C untouched
    return kSecondLevelNotRun;
  }
  out.seconds_guard += util::now_if(g.timed) - t0 - in_products;
  return BF16X_OK;
}

}  // namespace bf16x::method
