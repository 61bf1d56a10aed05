// Scale pass: one read of each operand for the per-row (A) / per-column (B) maximum magnitude and any NaN/Inf.
//
// Magnitudes are compared as integers: with the sign bit cleared, IEEE bit patterns order like the values they
// encode, and every NaN or Inf pattern lies above every finite one. So one unsigned max per line gives both the
// maximum (hence the scale exponent) and the non-finite test, and it vectorises without fast-math. The matrix is
// walked along its contiguous direction whichever way the maxima run.
#include <cstring>

#include "cpu/features.hpp"
#include "pack/panels.hpp"
#include "pack/scan_loops.hpp"
#include "split/slice_fp64.hpp"
#include "util/team.hpp"

namespace bf16x::pack {
namespace {

template <typename T>
struct Bits;
template <>
struct Bits<float> {
  using U = std::uint32_t;
  static constexpr U kInf = 0x7f800000u;
};
template <>
struct Bits<double> {
  using U = std::uint64_t;
  static constexpr U kInf = 0x7ff0000000000000ull;
};

template <typename T>
T from_bits(typename Bits<T>::U u) {
  T x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

std::uint32_t line_max(const float* x, std::int64_t len) { return scan_loops().line_max_fp32(x, len); }
std::uint64_t line_max(const double* x, std::int64_t len) { return scan_loops().line_max_fp64(x, len); }
void lane_max(const float* x, std::int64_t len, std::uint32_t* m) { scan_loops().lane_max_fp32(x, len, m); }
void lane_max(const double* x, std::int64_t len, std::uint64_t* m) { scan_loops().lane_max_fp64(x, len, m); }

// Maxima of `count` lines of op(X) that each run over `len` elements, shared among the threads of the region.
// Line r, element l sits at data[r * sr + l * sl]; exactly one of sr, sl is 1 (sl == 1 is checked first: it also
// covers ld == 1).
template <typename T>
void scan(const T* data, std::int64_t sr, std::int64_t sl, std::int64_t count, std::int64_t len, bool scaled, int* exp,
          bool& nonfinite) {
  using U = typename Bits<T>::U;
  bool bad = false;
  if (sl == 1) {
#pragma omp for schedule(static) nowait
    for (std::int64_t r = 0; r < count; ++r) {
      const U m = line_max(data + r * sr, len);
      bad = bad || m >= Bits<T>::kInf;
      exp[r] = scaled ? split::scale_exponent(double(from_bits<T>(m))) : 0;
    }
  } else {
    // Lines run across the contiguous direction: each thread keeps the maxima of a range of lines and walks
    // the matrix column by column over that range.
    constexpr std::int64_t kChunk = 1024;
    const std::int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp for schedule(static) nowait
    for (std::int64_t c = 0; c < chunks; ++c) {
      U m[kChunk] = {};
      const std::int64_t r0 = c * kChunk, n = std::min(kChunk, count - r0);
      for (std::int64_t l = 0; l < len; ++l) lane_max(data + r0 + l * sl, n, m);
      for (std::int64_t r = 0; r < n; ++r) {
        bad = bad || m[r] >= Bits<T>::kInf;
        exp[r0 + r] = scaled ? split::scale_exponent(double(from_bits<T>(m[r]))) : 0;
      }
    }
  }
  if (bad) {
#pragma omp atomic write
    nonfinite = true;
  }
}

// Row i of op(A), element l: a.data[i * si + l * sl]; column j of op(B), element l: b.data[j * sj + l * sl].
template <typename T>
void scan_a(const MatrixView<T>& a, std::int64_t m, std::int64_t k, bool scaled, int* exp, bool& nonfinite) {
  if (a.trans)
    scan(a.data, a.ld, std::int64_t(1), m, k, scaled, exp, nonfinite);
  else
    scan(a.data, std::int64_t(1), a.ld, m, k, scaled, exp, nonfinite);
}
template <typename T>
void scan_b(const MatrixView<T>& b, std::int64_t k, std::int64_t n, bool scaled, int* exp, bool& nonfinite) {
  if (b.trans)
    scan(b.data, std::int64_t(1), b.ld, n, k, scaled, exp, nonfinite);
  else
    scan(b.data, b.ld, std::int64_t(1), n, k, scaled, exp, nonfinite);
}

}  // namespace

const ScanLoops& scan_loops() {
  static const ScanLoops& loops = cpu::by_level(kScanLoopsGeneric, kScanLoopsAvx2, kScanLoopsAvx512);
  return loops;
}

// exp sized to the operand's lines and filled by `scan` (a team's share each), by a team only where the operand is
// large enough to pay for one.
template <typename Scan>
ScaleScan scan_in_team(std::int64_t lines, std::int64_t depth, std::vector<int>& exp, const Scan& scan) {
  exp.assign(std::size_t(lines), 0);
  bool nonfinite = false;
  util::on_team(lines * depth > util::kTeamElements ? omp_get_max_threads() : 1, [&] { scan(exp.data(), nonfinite); });
  return {nonfinite};
}

template <typename T>
ScaleScan scan_scales_a(const MatrixView<T>& a, std::int64_t m, std::int64_t k, bool scaled, std::vector<int>& exp) {
  return scan_in_team(m, k, exp, [&](int* e, bool& nonfinite) { scan_a(a, m, k, scaled, e, nonfinite); });
}
template <typename T>
ScaleScan scan_scales_b(const MatrixView<T>& b, std::int64_t k, std::int64_t n, bool scaled, std::vector<int>& exp) {
  return scan_in_team(n, k, exp, [&](int* e, bool& nonfinite) { scan_b(b, k, n, scaled, e, nonfinite); });
}
template <typename T>
void scan_scales_a_team(const MatrixView<T>& a, std::int64_t m, std::int64_t k, bool scaled, int* exp,
                        bool& nonfinite) {
  scan_a(a, m, k, scaled, exp, nonfinite);
}
template <typename T>
void scan_scales_b_team(const MatrixView<T>& b, std::int64_t k, std::int64_t n, bool scaled, int* exp,
                        bool& nonfinite) {
  scan_b(b, k, n, scaled, exp, nonfinite);
}

template ScaleScan scan_scales_a(const MatrixView<float>&, std::int64_t, std::int64_t, bool, std::vector<int>&);
template ScaleScan scan_scales_a(const MatrixView<double>&, std::int64_t, std::int64_t, bool, std::vector<int>&);
template ScaleScan scan_scales_b(const MatrixView<float>&, std::int64_t, std::int64_t, bool, std::vector<int>&);
template ScaleScan scan_scales_b(const MatrixView<double>&, std::int64_t, std::int64_t, bool, std::vector<int>&);

template void scan_scales_a_team(const MatrixView<float>&, std::int64_t, std::int64_t, bool, int*, bool&);
template void scan_scales_a_team(const MatrixView<double>&, std::int64_t, std::int64_t, bool, int*, bool&);
template void scan_scales_b_team(const MatrixView<float>&, std::int64_t, std::int64_t, bool, int*, bool&);
template void scan_scales_b_team(const MatrixView<double>&, std::int64_t, std::int64_t, bool, int*, bool&);

}  // namespace bf16x::pack
