#include "check/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace bf16x::check {

void summarise(ErrorStats& s, std::vector<double>& rel, long double num, long double den) {
  if (!rel.empty()) {
    auto mid = rel.begin() + std::ptrdiff_t(rel.size() / 2);
    std::nth_element(rel.begin(), mid, rel.end());
    s.median_rel = *mid;
    s.max_rel = *std::max_element(rel.begin(), rel.end());
  }
  s.eF = den > 0 ? double(std::sqrt(num / den)) : double(std::sqrt(num));
}

template <typename T>
ErrorStats errors(const Mat<T>& c, const Mat<double>& ref, const Mat<double>& absab) {
  ErrorStats s;
  long double num = 0, den = 0;
  std::vector<double> rel;
  rel.reserve(ref.v.size());
  for (std::size_t i = 0; i < ref.v.size(); ++i) {
    const double ci = double(c.v[i]), ri = ref.v[i];
    if (!std::isfinite(ci) && std::isfinite(ri)) {
      ++s.nonfinite;
      continue;
    }
    const double d = ci - ri;
    num += (long double)d * d;
    if (ri != 0) rel.push_back(std::fabs(d) / std::fabs(ri));
    den += (long double)ri * ri;
    if (absab.v[i] > 0) {
      const double e = std::fabs(d) / absab.v[i];
      if (e > s.e_scaled) s.e_scaled = e;
    } else {
      ++s.zero_den;
      if (d != 0) ++s.zero_den_mismatch;
    }
  }
  summarise(s, rel, num, den);
  return s;
}

template ErrorStats errors(const Mat<float>&, const Mat<double>&, const Mat<double>&);
template ErrorStats errors(const Mat<double>&, const Mat<double>&, const Mat<double>&);

}  // namespace bf16x::check
