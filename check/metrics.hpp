// Error measures of paper Section 7.3.
#pragma once
#include <vector>

#include "check/exact_gemm.hpp"

namespace bf16x::check {

struct ErrorStats {
  double eF = 0;                       // ||C - R||_F / ||R||_F
  double e_scaled = 0;                 // max_ij |C - R|_ij / (|A||B|)_ij over nonzero denominators
  std::int64_t zero_den = 0;           // entries with (|A||B|)_ij == 0, reported apart
  std::int64_t zero_den_mismatch = 0;  // ... of which C_ij != R_ij
  std::int64_t nonfinite = 0;          // non-finite C_ij where R_ij is finite
  double max_rel = 0;                  // max_ij |C - R|_ij / |R_ij| over R_ij != 0
  double median_rel = 0;               // median of the same
};

// Completes s from the per-entry relative errors (median and maximum; reorders rel) and the sums of squared
// errors (num) and squared reference entries (den): eF = sqrt(num / den), or sqrt(num) for a zero reference.
void summarise(ErrorStats& s, std::vector<double>& rel, long double num, long double den);

template <typename T>
ErrorStats errors(const Mat<T>& c, const Mat<double>& ref, const Mat<double>& absab);

}  // namespace bf16x::check
