#include "method/guard.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include "bf16x/bf16x.h"
#include "cr/entry_rounding.hpp"
#include "engine/records.hpp"
#include "host/host_blas.hpp"
#include "mode/records.hpp"
#include "policy/direct_fill.hpp"
#include "policy/error_model.hpp"
#include "policy/fill_loops.hpp"
#include "util/pow2.hpp"

namespace bf16x::method {

bool guard_applies(int option, int mode, bool chosen_by_auto, bool scaled) {
  const mode::Record* r = mode::record(mode);
  if (!r || r->guard == mode::Guard::none || !scaled) return false;
  if (option == BF16X_GUARD_ON) return true;
  if (option == BF16X_GUARD_OFF) return false;
  return chosen_by_auto || r->guard == mode::Guard::on;
}

namespace {

// The fill ratio's bound from the products themselves for a tiny call, else from the two envelopes, whose read
// also gives the lines' scale exponents (into lines.ea, lines.eb; `scales` set); nonfinite on NaN or Inf (then
// nothing else is meaningful).
template <typename T>
double measured_fill(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m, std::int64_t n,
                     std::int64_t k, bool& nonfinite, GuardLines& lines, bool& scales) {
  if (double(m) * double(n) * double(k) <= policy::kDirectFillWork)
    return policy::direct_fill_ratio(a, b, m, n, k, nonfinite);
  const policy::FillEnvelope ea = policy::measure_fill(a, m, k, true, lines.ea.data());
  const policy::FillEnvelope eb =
      ea.nonfinite ? policy::FillEnvelope{} : policy::measure_fill(b, k, n, false, lines.eb.data());
  nonfinite = ea.nonfinite || eb.nonfinite;
  scales = !nonfinite;
  return nonfinite ? 0.0 : policy::fill_ratio(ea, eb);
}

}  // namespace

template <typename T>
GuardPlan plan_guard(const GuardRequest& g, const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m,
                     std::int64_t n, std::int64_t k) {
  GuardPlan p;
  // A call of under kHostWork multiply-adds goes to the host unmeasured: the envelope's two passes alone cost more
  // than the host's whole call (any emulation several times more), and the host's error, gamma_k (|A||B|)_ij, is
  // within the guard's target 4 k u (|A||B|)_ij. LAPACK makes millions of such calls (docs/performance.md). So does
  // an inner dimension of at most g.host_depth (GuardRequest).
  constexpr double kHostWork = 512;
  if (g.host && (double(m) * double(n) * double(k) < kHostWork || k <= g.host_depth)) {
    p.native = true;
    p.result = BF16X_GUARD_NATIVE;
    return p;
  }
  GuardLines lines(m, n);  // before any read of A or B (throws std::bad_alloc)
  const policy::EntryBound bound = policy::entry_bound(g.mode, k, g.block_k);
  const double tau = g.tau > 0 ? g.tau : policy::guard_target(g.is_double, k);
  const double fill = g.fill >= 0 ? g.fill : measured_fill(a, b, m, n, k, p.nonfinite, lines, p.scales);
  if (p.nonfinite) return p;
  if (g.fill >= 0 && std::ssize(g.ea) == m && std::ssize(g.eb) == n) {  // auto's fill pass measured them
    std::copy(g.ea.begin(), g.ea.end(), lines.ea.begin());
    std::copy(g.eb.begin(), g.eb.end(), lines.eb.begin());
    p.scales = true;
  }
  if (policy::envelope_proves(bound, k, fill, tau)) {
    p.result = BF16X_GUARD_ENVELOPE;
    if (p.scales) p.scan = std::move(lines);
    return p;
  }
  // Repairing more than 1/8 of the entries by dot products costs about what the host GEMM costs for all of them.
  const std::uint64_t entries = std::uint64_t(m) * std::uint64_t(n);
  const std::uint64_t limit = g.host ? entries / 8 : entries;
  // A call of under kTinyWork multiply-adds that the fill bound cannot prove goes to the host without the digit
  // product: that product's one 32 x 32 tile, 64 deep, is mostly padding then, costs more than the host's whole
  // call, and sends such calls there anyway but where it proves every entry (m n < 8: any unproved entry does).
  // The fill was measured here (fill < 0: the envelopes or the direct bound), so NaN/Inf has been seen.
  constexpr double kTinyWork = 8192;
  if (g.host && g.fill < 0 && double(entries) * double(k) < kTinyWork) {
    p.native = true;
    p.result = BF16X_GUARD_NATIVE;
    return p;
  }
  const engine::int8::Engine* engine = engine::int8_engine(g.int8_engine);
  if (!engine || !engine->available()) engine = engine::int8_engine(BF16X_ENGINE_REFERENCE);
  // The check goes on to half of the entries where the host can take some: host lines may bring them down to the
  // limit (method/guard_lines.hpp).
  const std::uint64_t collect = g.host ? entries / 2 : entries;
  GuardCheck c = check_entries(a, b, m, n, k, bound, tau, *engine, collect, lines);
  p.nonfinite = c.nonfinite;
  p.micro_tiles = c.micro_tiles;
  // The check scanned the lines (scan_lines): their exponents, whether or not the envelope measured them.
  p.scales = !c.nonfinite;
  p.scan = std::move(lines);
  if (!c.complete || (!c.nonfinite && !choose_host_lines(c.failing, m, n, limit, p.lines))) {
    p.native = p.unproved = true;
    p.result = BF16X_GUARD_NATIVE;
    return p;
  }
  p.result = BF16X_GUARD_ENTRIES;
  p.failing = std::move(c.failing);
  return p;
}

template GuardPlan plan_guard(const GuardRequest&, const pack::MatrixView<float>&, const pack::MatrixView<float>&,
                              std::int64_t, std::int64_t, std::int64_t);
template GuardPlan plan_guard(const GuardRequest&, const pack::MatrixView<double>&, const pack::MatrixView<double>&,
                              std::int64_t, std::int64_t, std::int64_t);

template <typename T>
T exact_entry(const driver::RepairArgs<T>& x, std::int64_t i, std::int64_t j, T c0) {
  const cr::Terms t{{double(x.alpha), 0}, {double(x.beta), 0}, x.k, sizeof(T) == sizeof(double)};
  const std::int64_t cols[2] = {j, j};
  const double c[2] = {double(c0), 0};
  return cr::round_exactly<T>(x.a, x.b, i, cols, t, c);
}

template float exact_entry(const driver::RepairArgs<float>&, std::int64_t, std::int64_t, float);
template double exact_entry(const driver::RepairArgs<double>&, std::int64_t, std::int64_t, double);

bool host_out_of_range(int amin, int amax, int bmin, int bmax, std::int64_t k, double abs_alpha, bool is_double) {
  int log2k = 0;
  while ((std::int64_t(1) << log2k) < k) ++log2k;
  const int emax = is_double ? 1024 : 128, emin = is_double ? -1022 : -126, digits = is_double ? 53 : 24;
  // |partial sums| < k 2^(ea_i + eb_j); products of lines whose largest entries lie this close to the subnormal
  // range lose bits that alpha would carry into the result.
  return amax + bmax + log2k >= emax - 1 || (abs_alpha > 1 && amin + bmin - 2 < emin + digits);
}

bool host_out_of_range(const std::vector<int>& ea, const std::vector<int>& eb, std::int64_t k, double abs_alpha,
                       bool is_double) {
  if (ea.empty() || eb.empty()) return false;
  // Zero lines read as exponent 0: on the safe side of both tests.
  const auto [amin, amax] = std::minmax_element(ea.begin(), ea.end());
  const auto [bmin, bmax] = std::minmax_element(eb.begin(), eb.end());
  return host_out_of_range(*amin, *amax, *bmin, *bmax, k, abs_alpha, is_double);
}

template <typename T>
bool host_range_clear(const T* a, std::int64_t lda, std::int64_t a_inner, std::int64_t a_outer, const T* b,
                      std::int64_t ldb, std::int64_t b_inner, std::int64_t b_outer, std::int64_t k, double abs_alpha) {
  if (abs_alpha > 1) return false;  // the underflow side needs the smallest line maxima: a per-line scan
  constexpr bool is_double = sizeof(T) == sizeof(double);
  constexpr int kBias = is_double ? 1023 : 127, kInf = is_double ? 0x7ff : 0xff;
  const policy::FillLoops& loops = policy::fill_loops();
  const auto field = [&](const T* x, std::int64_t ld, std::int64_t inner, std::int64_t outer) {
    if constexpr (is_double)
      return loops.max_field_fp64(x, ld, inner, outer);
    else
      return loops.max_field_fp32(x, ld, inner, outer);
  };
  const int fa = field(a, lda, a_inner, a_outer), fb = field(b, ldb, b_inner, b_outer);
  if (fa == kInf || fb == kInf) return false;  // NaN or Inf: the per-line scan sees it
  // The field's exponent + 1 bounds every entry (subnormals and zeros: by the smallest normal's).
  const int ea = std::max(fa, 1) - kBias + 1, eb = std::max(fb, 1) - kBias + 1;
  return !host_out_of_range(ea, ea, eb, eb, k, abs_alpha, is_double);
}

template bool host_range_clear(const float*, std::int64_t, std::int64_t, std::int64_t, const float*, std::int64_t,
                               std::int64_t, std::int64_t, std::int64_t, double);
template bool host_range_clear(const double*, std::int64_t, std::int64_t, std::int64_t, const double*, std::int64_t,
                               std::int64_t, std::int64_t, std::int64_t, double);

namespace {

// op(A) and op(B) scaled by their lines' exponents (FP64 operands; FP32 ones are widened unscaled), column-major
// a (m x k) and b (k x n), and the exponent of each line's smallest nonzero scaled entry (at_risk in host_scaled).
struct ScaledOperands {
  std::vector<double> a, b;
  std::vector<int> low_a, low_b;
};
template <typename T>
ScaledOperands scaled_operands(const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n,
                               const GuardLines& lines) {
  constexpr bool is_double = sizeof(T) == sizeof(double);
  const std::int64_t k = x.k;
  ScaledOperands r;
  std::vector<double>& a = r.a;
  std::vector<double>& b = r.b;
  a.resize(std::size_t(m) * std::size_t(k));
  b.resize(std::size_t(k) * std::size_t(n));
  std::vector<double> fa(std::size_t(m) * 2, 1.0), fb(std::size_t(n) * 2, 1.0);
  if constexpr (is_double) {
    for (std::int64_t i = 0; i < m; ++i) util::pow2_pair(-lines.ea[std::size_t(i)], fa[2 * i], fa[2 * i + 1]);
    for (std::int64_t j = 0; j < n; ++j) util::pow2_pair(-lines.eb[std::size_t(j)], fb[2 * j], fb[2 * j + 1]);
  }
  // The smallest nonzero magnitude of each line, unscaled: where two lines' smallest scaled entries multiply below
  // the normal range, the host's products lose bits the unscaled call keeps (at_risk).
  std::vector<double> small_a(std::size_t(m), HUGE_VAL), small_b(std::size_t(n), HUGE_VAL);
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t i = 0; i < m; ++i) {
      const double v = double(x.a(i, l));
      a[std::size_t(i + l * m)] = (v * fa[2 * i]) * fa[2 * i + 1];
      if (v != 0) small_a[std::size_t(i)] = std::min(small_a[std::size_t(i)], std::fabs(v));
    }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < k; ++l) {
      const double v = double(x.b(l, j));
      b[std::size_t(l + j * k)] = (v * fb[2 * j]) * fb[2 * j + 1];
      if (v != 0) small_b[std::size_t(j)] = std::min(small_b[std::size_t(j)], std::fabs(v));
    }
  // Entry (i, j) at risk: its smallest scaled product may fall below 2^-969, where it keeps fewer than 53 bits (or
  // none, flushed to zero); it is rounded from its exact value instead (exact_entry). The exponent of each line's
  // smallest scaled entry, once per line (a line without one, and FP32 operands widened to FP64, which are not
  // scaled and whose products stay far inside the range: never at risk).
  constexpr int kSafe = INT_MAX / 4;
  const auto low = [&](const std::vector<double>& small, const std::vector<int>& e) {
    std::vector<int> out(small.size(), kSafe);
    for (std::size_t x = 0; x < small.size() && is_double; ++x)
      if (small[x] != HUGE_VAL) out[x] = std::ilogb(small[x]) - e[x];
    return out;
  };
  r.low_a = low(small_a, lines.ea);
  r.low_b = low(small_b, lines.eb);
  return r;
}

}  // namespace

template <typename T>
bool host_scaled(const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n) {
  constexpr bool is_double = sizeof(T) == sizeof(double);
  const std::int64_t k = x.k;
  // A NaN or Inf alpha or beta leaves no range to keep: the host's IEEE classes.
  if (!std::isfinite(double(x.alpha)) || !std::isfinite(double(x.beta))) return false;
  // Where |alpha| <= 1 only overflow can reach the result, and the largest entries of A and B bound it: one read of
  // each (no per-line scan) clears almost every call, as auto's native choice of small calls needs.
  const auto rect = [](const pack::MatrixView<T>& v, std::int64_t rows, std::int64_t cols) {
    return std::pair{v.trans ? cols : rows, v.trans ? rows : cols};  // (inner, outer) in memory
  };
  const auto [ai, ao] = rect(x.a, m, k);
  const auto [bi, bo] = rect(x.b, k, n);
  if (host_range_clear(x.a.data, x.a.ld, ai, ao, x.b.data, x.b.ld, bi, bo, k, std::fabs(double(x.alpha)))) return false;
  GuardLines lines(m, n);
  if (scan_lines(x.a, x.b, m, n, k, lines)) return false;
  if (!host_out_of_range(lines.ea, lines.eb, k, std::fabs(double(x.alpha)), is_double)) return false;
  const ScaledOperands op = scaled_operands(x, m, n, lines);
  std::vector<double> p(std::size_t(m) * std::size_t(n));  // P^ = op(A)^ op(B)^, column-major
  const auto at_risk = [&](std::int64_t i, std::int64_t j) {
    return op.low_a[std::size_t(i)] + op.low_b[std::size_t(j)] < -969;
  };
  if (!host::dgemm(BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0, op.a.data(), m, op.b.data(), k, 0.0, p.data(), m))
    return false;
  int ealpha;
  const double am = std::frexp(double(x.alpha), &ealpha), beta = double(x.beta);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      const double pij = p[std::size_t(i + j * m)];
      const double v = is_double ? std::ldexp(am * pij, ealpha + lines.ea[std::size_t(i)] + lines.eb[std::size_t(j)])
                                 : double(x.alpha) * pij;
      T& c = x.c_at(i, j);
      if (!at_risk(i, j))
        c = beta == 0.0 ? T(v) : T(v + beta * double(c));
      else if (beta == 0.0 || std::isfinite(double(c)))
        c = exact_entry<T>(x, i, j, beta == 0.0 ? T(0) : c);
      else  // alpha (A B)_ij rounded on its own, then C0's NaN or Inf added (as the repair does)
        c = T(double(exact_entry<T>(x, i, j, T(0))) + beta * double(c));
    }
  return true;
}

template <typename T>
bool host_gemm_untransposed(std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const pack::MatrixView<T>& a,
                            const pack::MatrixView<T>& b, T beta, T* c, std::int64_t ldc) {
  std::vector<T> copy_a, copy_b;
  const auto plain = [](const pack::MatrixView<T>& v, std::int64_t rows, std::int64_t cols, std::vector<T>& copy) {
    if (!v.trans) return v;
    copy.resize(std::size_t(rows) * std::size_t(cols));
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) copy[std::size_t(i + j * rows)] = v(i, j);
    return pack::MatrixView<T>{copy.data(), std::max<std::int64_t>(rows, 1), false};
  };
  const pack::MatrixView<T> pa = plain(a, m, k, copy_a), pb = plain(b, k, n, copy_b);
  return host::gemm<T>(BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, alpha, pa.data, pa.ld, pb.data, pb.ld, beta, c, ldc);
}

template bool host_gemm_untransposed(std::int64_t, std::int64_t, std::int64_t, float, const pack::MatrixView<float>&,
                                     const pack::MatrixView<float>&, float, float*, std::int64_t);
template bool host_gemm_untransposed(std::int64_t, std::int64_t, std::int64_t, double, const pack::MatrixView<double>&,
                                     const pack::MatrixView<double>&, double, double*, std::int64_t);
template bool host_scaled(const driver::RepairArgs<float>&, std::int64_t, std::int64_t);
template bool host_scaled(const driver::RepairArgs<double>&, std::int64_t, std::int64_t);

namespace {

// alpha op(A') op(B') + beta C' on the host for the operands of one set of lines (C' packed column-major, rows x
// cols), in range as the guard's host GEMM (host_in_range): false where the host could not run it.
template <typename T>
bool host_part(const driver::RepairArgs<T>& x, std::int64_t rows, std::int64_t cols, const pack::MatrixView<T>& a,
               const pack::MatrixView<T>& b, T* c) {
  const driver::RepairArgs<T> part{x.k, x.alpha, a, b, x.beta, c, rows, false};
  return host_in_range<T>(part, rows, cols, [&] {
           return host_gemm_untransposed<T>(rows, cols, x.k, x.alpha, a, b, x.beta, c, rows) ? int(BF16X_OK)
                                                                                             : int(BF16X_ERR_NO_HOST);
         }) == BF16X_OK;
}

}  // namespace

template <typename T>
void run_host_lines(const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n, const HostLines& lines,
                    LineCopies<T>& p, std::vector<Entry>& failing, std::vector<T>& c0) {
  const std::int64_t r = std::int64_t(lines.rows.size()), s = std::int64_t(lines.cols.size());
  const bool read_c = x.beta != T(0);
  bool added = false;
  // The entry (i, j) of a set of lines from its packed C (or, where the host failed, to the repair with its C0).
  const auto put = [&](bool ran, std::int64_t i, std::int64_t j, T v) {
    if (ran) {
      x.c_at(i, j) = v;
    } else {
      failing.push_back({i, j});
      if (read_c) c0.push_back(v);
      added = true;
    }
  };
  if (r > 0) {
    const bool ran = host_part<T>(x, r, n, {p.a.data(), r, false}, x.b, p.ca.data());
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t q = 0; q < r; ++q) put(ran, lines.rows[std::size_t(q)], j, p.ca[std::size_t(q + j * r)]);
  }
  if (s > 0) {
    const bool ran = host_part<T>(x, m, s, x.a, {p.b.data(), x.k, false}, p.cb.data());
    for (std::int64_t q = 0; q < s; ++q)
      for (std::int64_t i = 0; i < m; ++i) put(ran, i, lines.cols[std::size_t(q)], p.cb[std::size_t(i + q * m)]);
  }
  if (!added) return;
  // Sorted by (j, i) with their C0, an entry in a failed row and a failed column once.
  std::vector<std::size_t> order(failing.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  const auto key = [&](std::size_t e) { return std::pair{failing[e].j, failing[e].i}; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  order.erase(std::unique(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) == key(b); }),
              order.end());
  std::vector<Entry> f;
  std::vector<T> c;
  for (std::size_t e : order) {
    f.push_back(failing[e]);
    if (read_c) c.push_back(c0[e]);
  }
  failing.swap(f);
  c0.swap(c);
}

template void run_host_lines(const driver::RepairArgs<float>&, std::int64_t, std::int64_t, const HostLines&,
                             LineCopies<float>&, std::vector<Entry>&, std::vector<float>&);
template void run_host_lines(const driver::RepairArgs<double>&, std::int64_t, std::int64_t, const HostLines&,
                             LineCopies<double>&, std::vector<Entry>&, std::vector<double>&);

std::string guard_why(int result, std::uint64_t repaired, std::uint64_t host_lines, int levels) {
  static const char* const names[] = {"none", "envelope", "entries", "native"};
  char why[96];
  if (result == BF16X_GUARD_ENTRIES && host_lines > 0)
    std::snprintf(why, sizeof why, ",guard=entries,repaired=%llu,host_lines=%llu",
                  static_cast<unsigned long long>(repaired), static_cast<unsigned long long>(host_lines));
  else if (result == BF16X_GUARD_ENTRIES)
    std::snprintf(why, sizeof why, ",guard=entries,repaired=%llu", static_cast<unsigned long long>(repaired));
  else
    std::snprintf(why, sizeof why, ",guard=%s", names[std::clamp(result, 0, 3)]);
  return levels > 1 ? why + std::string(",levels=") + std::to_string(levels) : std::string(why);
}

}  // namespace bf16x::method
