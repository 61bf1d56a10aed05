#include "check/inputs.hpp"

#include <cmath>
#include <random>

namespace bf16x::check {

bool parse_dist(const std::string& s, Dist& d) {
  if (s == "uniform")
    d = Dist::uniform;
  else if (s == "loguniform")
    d = Dist::loguniform;
  else if (s == "cancel")
    d = Dist::cancel;
  else if (s == "phi")
    d = Dist::phi;
  else
    return false;
  return true;
}

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::uniform:
      return "uniform";
    case Dist::loguniform:
      return "loguniform";
    case Dist::cancel:
      return "cancel";
    case Dist::phi:
      return "phi";
  }
  return "?";
}

template <typename T>
Mat<T> make_input(Dist d, std::int64_t rows, std::int64_t cols, std::uint64_t seed, int which, int emax, double phi) {
  Mat<T> m(rows, cols);
  std::mt19937_64 rng(seed * 2654435761ull + std::uint64_t(which) * 0x9e3779b97f4a7c15ull + 12345);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  switch (d) {
    case Dist::uniform:
      for (auto& x : m.v) x = T(u(rng));
      break;
    case Dist::loguniform:
      for (auto& x : m.v) {
        const double e = u(rng) * emax;
        x = T((u(rng) < 0 ? -1.0 : 1.0) * std::exp2(e));
      }
      break;
    case Dist::phi: {
      std::normal_distribution<double> nd(0.0, 1.0);
      for (auto& x : m.v) {
        const double v = 0.5 * (u(rng) + 1.0) - 0.5;  // U - 0.5, U uniform in [0, 1)
        x = T(v * std::exp(phi * nd(rng)));
      }
      break;
    }
    case Dist::cancel:
      // A has entries of alternating sign along k, B entries of one sign: for even k the +-1 parts cancel and
      // sum_l a_il b_lj is a sum of k terms of size 1e-4 with random signs, about 1e-4 sqrt(2/(3k)) of
      // (|A||B|)_ij (5e-6 at k = 256): errors bounded relative to |A||B| show as large relative errors in eF.
      for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = 0; i < rows; ++i) {
          const double sign = (which == 0 && (j % 2)) ? -1.0 : 1.0;
          m(i, j) = T(sign * (1.0 + 1e-4 * u(rng)));
        }
      break;
  }
  return m;
}

template Mat<float> make_input(Dist, std::int64_t, std::int64_t, std::uint64_t, int, int, double);
template Mat<double> make_input(Dist, std::int64_t, std::int64_t, std::uint64_t, int, int, double);

}  // namespace bf16x::check
