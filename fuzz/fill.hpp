// Matrix contents for one fuzz case: the distribution class, sprinkled special values, and NaN in the padding
// between columns (a library that reads padding turns it into a wrong result).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "fuzz/contract.hpp"
#include "fuzz/fuzz_case.hpp"

namespace bf16x::fuzz {

template <typename T>
void fill_stored(T* buf, std::int64_t size, const Stored& s, std::int64_t ld, const Fill& f, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1), unit(0, 1);
  constexpr bool dbl = sizeof(T) == 8;
  constexpr int emin = dbl ? -1074 : -149, emax = dbl ? 1023 : 127;
  constexpr double wide = dbl ? 100 : 60;
  for (std::int64_t i = 0; i < size; ++i) buf[i] = std::numeric_limits<T>::quiet_NaN();
  if (size == 0 || s.rows <= 0 || s.cols <= 0) return;  // rows, cols <= size from here on
  std::vector<double> row_exp(std::size_t(s.rows)), col_exp(std::size_t(s.cols));
  for (double& e : row_exp) e = std::round(u(rng) * wide);
  for (double& e : col_exp) e = std::round(u(rng) * wide);
  const T constant = T(u(rng));
  T prev = 0;
  for (std::int64_t c = 0; c < s.cols; ++c)
    for (std::int64_t r = 0; r < s.rows; ++r) {
      double v = 0;
      switch (f.dist) {
        case 0:
          v = u(rng);
          break;
        case 1:
          v = u(rng) * std::exp2(std::round(u(rng) * 30));
          break;
        case 2:
          v = u(rng) * std::exp2(std::round(emin + unit(rng) * (emax - emin)));
          break;
        case 3:
          v = std::round(u(rng) * 8);
          break;
        case 4:
          v = u(rng) * std::exp2(row_exp[std::size_t(r)] + col_exp[std::size_t(c)]);
          break;
        case 5:
          v = (c % 2) ? -double(prev) * (1 + u(rng) * 0x1p-20) : u(rng);
          break;
        case 6:
          v = unit(rng) < 0.9 ? 0.0 : u(rng);
          break;
        default:
          v = double(constant);
          break;
      }
      T x = T(v);
      static constexpr double rates[4] = {0, 1.0 / 64, 1.0 / 8, 0.5};
      if (f.finite_rate && unit(rng) < rates[f.finite_rate]) x = special_value<T>(int(rng() % kFiniteSpecials));
      if (f.nonfinite == 2 && unit(rng) < 1.0 / 16) x = special_value<T>(kFiniteSpecials + int(rng() % 3));
      buf[r + c * ld] = x;
      prev = x;
    }
  if (f.nonfinite == 1) {
    const std::int64_t r = std::int64_t(rng() % std::uint64_t(s.rows)), c = std::int64_t(rng() % std::uint64_t(s.cols));
    buf[r + c * ld] = special_value<T>(kFiniteSpecials + int(rng() % 3));
  }
}

}  // namespace bf16x::fuzz
