// Scale pass: one read of each operand (pack/line_scan.hpp) for the per-row (A) / per-column (B) maximum magnitude
// and any NaN/Inf.
#include "cpu/features.hpp"
#include "pack/line_scan.hpp"
#include "pack/panels.hpp"
#include "pack/scan_loops.hpp"
#include "split/slice_fp64.hpp"
#include "util/team.hpp"

namespace bf16x::pack {
namespace {

// The exponents of `count` lines of op(X) that each run over `len` elements, shared among the threads of the region.
// Line r, element l sits at data[r * sr + l * sl] (line_extremes).
template <typename T>
void scan(const T* data, std::int64_t sr, std::int64_t sl, std::int64_t count, std::int64_t len, bool scaled, int* exp,
          bool& nonfinite) {
  const bool bad = scan_lines(data, sr, sl, count, len, false, [exp, scaled](std::int64_t r, Bits<T> hi, Bits<T>) {
    exp[r] = scaled ? split::scale_exponent(magnitude<T>(hi)) : 0;
  });
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
