// Independent references for C = op(A) op(B) (column-major, no alpha/beta): double-double dot products
// (TwoProd by FMA, TwoSum accumulation), relative error about k * 2^-104 -- far below any mode's error, so the
// emulation error and the host GEMM's own rounding error can be told apart. Also |A||B| for e_scaled.
#pragma once
#include <cstdint>
#include <vector>

namespace bf16x::check {

template <typename T>
struct Mat {  // column-major, ld = rows
  std::int64_t rows = 0, cols = 0;
  std::vector<T> v;
  Mat() = default;
  Mat(std::int64_t r, std::int64_t c) : rows(r), cols(c), v(std::size_t(r * c)) {}
  T& operator()(std::int64_t i, std::int64_t j) { return v[std::size_t(i + j * rows)]; }
  const T& operator()(std::int64_t i, std::int64_t j) const { return v[std::size_t(i + j * rows)]; }
  T* data() { return v.data(); }
  const T* data() const { return v.data(); }
};

// Exact-enough product, rounded once to double. Inputs are widened to double exactly.
template <typename T>
Mat<double> exact_gemm(const Mat<T>& a, const Mat<T>& b);

// |A| |B| in double (for e_scaled = max |C - Cref|_ij / (|A||B|)_ij).
template <typename T>
Mat<double> abs_gemm(const Mat<T>& a, const Mat<T>& b);

}  // namespace bf16x::check
