// The per-line operand scan (pack/line_scan.hpp) against its definition, a scalar walk over the values: per line of
// op(X) the largest magnitude and the smallest nonzero one (zeros of either sign do not count), and whether the line
// holds a NaN or Inf; along memory and across it, on the calling thread and shared among a team (every line once).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "pack/line_scan.hpp"

using namespace bf16x;

namespace {

// `count` lines of `len` entries, line r element l at x[r * sr + l * sl], random over a wide range with zeros of
// both signs and subnormals. Line 0 is all zeros, line 1 -0 but for one subnormal; where `special`, line 2 holds a
// NaN and line 3 an Inf. Entries outside the lines are NaN, so a read past a line shows.
template <typename T>
struct Operand {
  std::int64_t count, len, sr, sl;
  std::vector<T> x;
  T& at(std::int64_t r, std::int64_t l) { return x[std::size_t(r * sr + l * sl)]; }
};

template <typename T>
Operand<T> make_operand(std::int64_t count, std::int64_t len, bool along, bool special, unsigned seed) {
  Operand<T> op{count, len, along ? len + 3 : 1, along ? 1 : count + 5, {}};
  using L = std::numeric_limits<T>;
  op.x.assign(std::size_t(count * op.sr + len * op.sl + 1), L::quiet_NaN());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> m(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-140, 100), pick(0, 9);
  const T odd[] = {T(0), -T(0), L::denorm_min(), -3 * L::denorm_min()};
  for (std::int64_t r = 0; r < count; ++r)
    for (std::int64_t l = 0; l < len; ++l) {
      const int p = pick(rng);
      op.at(r, l) = r == 0 ? T(0) : r == 1 ? -T(0) : p < 4 ? odd[p] : T(std::ldexp(m(rng), e(rng)));
    }
  if (count > 1 && len > 0) op.at(1, len / 2) = -L::denorm_min();
  if (special && count > 3 && len > 0) op.at(2, len - 1) = L::quiet_NaN(), op.at(3, 0) = -L::infinity();
  return op;
}

struct Definition {
  double hi = 0, lo = std::numeric_limits<double>::infinity();
  bool nonfinite = false;
};
template <typename T>
Definition define(Operand<T>& op, std::int64_t r) {
  Definition d;
  for (std::int64_t l = 0; l < op.len; ++l) {
    const double v = std::fabs(double(op.at(r, l)));
    if (!std::isfinite(v)) d.nonfinite = true;
    d.hi = std::max(d.hi, v);
    if (v != 0) d.lo = std::min(d.lo, v);
  }
  return d;
}

// Line r's patterns against the definition: lo 0 where the line has no nonzero entry; of a line with a NaN or Inf,
// only that hi says so.
template <typename T>
void expect_line(Operand<T>& op, std::int64_t r, pack::Bits<T> hi, pack::Bits<T> lo, bool with_min) {
  const Definition d = define(op, r);
  ASSERT_EQ(pack::nonfinite<T>(hi), d.nonfinite) << "line " << r;
  if (d.nonfinite) return;
  EXPECT_EQ(pack::magnitude<T>(hi), d.hi) << "line " << r;
  if (with_min) {
    EXPECT_EQ(pack::magnitude<T>(lo), std::isinf(d.lo) ? 0.0 : d.lo) << "line " << r;
  }
}

template <typename T>
void check_block(std::int64_t count, std::int64_t len, bool along, bool special) {
  auto op = make_operand<T>(count, len, along, special, unsigned(count * 131 + len));
  for (bool with_min : {false, true}) {
    std::vector<pack::Bits<T>> hi(std::size_t(count) + 1, 5), lo(std::size_t(count) + 1, 5);
    pack::line_extremes(op.x.data(), op.sr, op.sl, count, len, hi.data(), with_min ? lo.data() : nullptr);
    for (std::int64_t r = 0; r < count; ++r) expect_line(op, r, hi[std::size_t(r)], lo[std::size_t(r)], with_min);
    EXPECT_EQ(hi[std::size_t(count)], 5u) << "written past the last line";
    EXPECT_EQ(lo[std::size_t(count)], 5u) << "written past the last line";
  }
}

template <typename T>
void check_shared(std::int64_t count, std::int64_t len, bool along, bool special, int threads) {
  auto op = make_operand<T>(count, len, along, special, unsigned(count * 71 + len));
  for (bool with_min : {false, true}) {
    const std::size_t lines = std::size_t(count);
    std::vector<pack::Bits<T>> hi(lines), lo(lines);
    std::vector<int> seen(lines, 0);
    bool nonfinite = false;
    const auto share = [&] {
      const bool mine = pack::scan_lines(op.x.data(), op.sr, op.sl, count, len, with_min,
                                         [&](std::int64_t r, pack::Bits<T> h, pack::Bits<T> l) {
                                           hi[std::size_t(r)] = h, lo[std::size_t(r)] = l;
#pragma omp atomic
                                           ++seen[std::size_t(r)];
                                         });
      if (mine) {
#pragma omp atomic write
        nonfinite = true;
      }
    };
    if (threads > 0) {
#pragma omp parallel num_threads(threads)
      share();
    } else {
      share();
    }
    bool any = false;
    for (std::int64_t r = 0; r < count; ++r) {
      ASSERT_EQ(seen[std::size_t(r)], 1) << "line " << r;
      expect_line(op, r, hi[std::size_t(r)], lo[std::size_t(r)], with_min);
      any = any || define(op, r).nonfinite;
    }
    EXPECT_EQ(nonfinite, any);
  }
}

TEST(LineScan, BlockGivesTheDefinition) {
  for (bool along : {true, false})
    for (bool special : {false, true})
      for (std::int64_t count : {0, 1, 2, 4, 7, 33, 256})
        for (std::int64_t len : {0, 1, 2, 5, 17, 70}) {
          SCOPED_TRACE(testing::Message() << (along ? "along" : "across") << ", " << count << " lines of " << len
                                          << (special ? ", NaN and Inf" : ""));
          check_block<float>(count, len, along, special);
          check_block<double>(count, len, along, special);
        }
}

// Across memory a team takes blocks of pack::kScanLines lines, along it single lines: counts over two blocks, a team
// of one and of three, and no team.
TEST(LineScan, SharedScanTakesEveryLineOnce) {
  for (bool along : {true, false})
    for (bool special : {false, true})
      for (std::int64_t count : {std::int64_t(0), std::int64_t(5), 2 * pack::kScanLines + 3})
        for (std::int64_t len : {0, 3, 19})
          for (int threads : {0, 1, 3}) {
            SCOPED_TRACE(testing::Message() << (along ? "along" : "across") << ", " << count << " lines of " << len
                                            << (special ? ", NaN and Inf" : "") << ", team " << threads);
            check_shared<float>(count, len, along, special, threads);
            check_shared<double>(count, len, along, special, threads);
          }
}

}  // namespace
