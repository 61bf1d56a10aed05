// The level-3 routines of bf16x/level3.h: the reference BLAS argument checks of each routine, then the level-3
// layer (level3/operation.hpp) on the checked GEMM of the call's options, every matrix in the caller's layout. The
// output is copied before the first GEMM and put back if one fails midway, so that an error leaves it untouched.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/checks.hpp"
#include "api/real_gemm.hpp"
#include "bf16x/bf16x.h"
#include "level3/operation.hpp"
#include "method/table.hpp"
#include "mode/records.hpp"
#include "planner/call_plan.hpp"
#include "settings/runtime.hpp"
#include "util/clock.hpp"
#include "util/workspace.hpp"

namespace bf16x::api {
namespace {

using level3::from_real;
using level3::is_zero;
using level3::Operand;
using level3::Triangle;

template <typename E>
constexpr bool kDouble = std::is_same_v<E, double> || std::is_same_v<E, bf16x_complex_double>;

// The real GEMMs of a complex product by parts (level3::complex_triangle, complex_lower), each one's outcome kept in
// parts until the caller merges them (both ran) or drops them (declined: the complex GEMMs run instead).
template <typename R>
level3::PartGemm<R> part_gemm(const bf16x_options& opt, Outcome (&parts)[2], int& made) {
  return [&opt, &parts, &made](std::int64_t m, std::int64_t n, std::int64_t k, R alpha, const R* a, const R* b,
                               std::int64_t ldb, R beta, R* c, const level3::PartShape& shape) {
    const pack::OutputPart part = !shape.triangle ? pack::OutputPart::all
                                  : shape.lower   ? pack::OutputPart::lower
                                                  : pack::OutputPart::upper;
    return run_gemm<R>(
        BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, alpha, a, m, b, ldb, beta, c, m, false, opt, parts[made++], part,
        pack::LowerOperand{shape.lower_step > 0, shape.lower_shift, std::max<std::int64_t>(shape.lower_step, 1)});
  };
}

// `by_parts` (level3::complex_triangle or complex_lower) on part_gemm's real GEMMs, their outcomes merged into `into`
// unless it declined.
template <typename R, typename ByParts>
int run_by_parts(const bf16x_options& opt, Outcome& into, ByParts by_parts) {
  Outcome parts[2];
  int made = 0;
  const int st = by_parts(part_gemm<R>(opt, parts, made));
  if (st != level3::kDeclined)
    for (int q = 0; q < made; ++q) merge_outcome(into, parts[q]);
  return st;
}

// The checked GEMM of the call's options for the layer's blocks, their outcomes summed into out. (Each block is a
// GEMM call of its own: AUTO decides per block, on that block's shape and data.) The layer may call it from several
// threads at once (GEMMT's small pieces): the outcomes merge under a lock. The state lives in the caller's frame, so
// that the callable holds one reference (std::function keeps it without an allocation: LAPACK makes millions of
// tiny level-3 calls).
struct GemmState {
  const bf16x_options& opt;
  Outcome& out;
  std::mutex mu;
  bool emulated = false;
};
template <typename E>
level3::Gemm<E> checked_gemm(GemmState& s) {
  return [&s](std::int64_t m, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a, const Operand<E>& b, E beta,
              const level3::View<E>& c) {
    Outcome one;
    int st;
    if constexpr (level3::is_complex_v<E>) {
      using R = level3::real_t<E>;
      // TRMM's triangular panels by parts, whose real GEMMs skip the zero products; else the complex GEMM.
      st = !a.lower ? level3::kDeclined : run_by_parts<R>(s.opt, one, [&](const level3::PartGemm<R>& real) {
        return level3::complex_lower<E>(real, m, n, k, alpha, a, b, beta, c);
      });
      if (st == level3::kDeclined)
        st = run_complex_gemm<R>(m, n, k, alpha, a.x, a.ld, {a.transposed, a.conj}, b.x, b.ld, {b.transposed, b.conj},
                                 beta, c.p, c.ld, c.rows, s.opt, one);
    } else {
      st = run_gemm<E>(a.transposed ? BF16X_TRANS : BF16X_NO_TRANS, b.transposed ? BF16X_TRANS : BF16X_NO_TRANS, m, n,
                       k, alpha, a.x, a.ld, b.x, b.ld, beta, c.p, c.ld, c.rows, s.opt, one, pack::OutputPart::all,
                       pack::LowerOperand{a.lower, a.lower_shift});
    }
    // The call reports the emulated mode of its GEMMs where any ran emulated (out.guard says where the guard sent
    // some to the host), else native.
    const std::lock_guard<std::mutex> lock(s.mu);
    const int mode = s.out.mode, engine = s.out.engine;
    merge_outcome(s.out, one);
    if (one.mode == BF16X_MODE_NATIVE && s.emulated) s.out.mode = mode, s.out.engine = engine;
    s.emulated = s.emulated || one.mode != BF16X_MODE_NATIVE;
    return st;
  };
}

// The checked GEMM of the call's options on one triangle of C in one call (level3::TriangleGemm): its outcome merged
// into out where it ran; level3::kDeclined (nothing written, nothing merged) where the call's mode cannot take a
// triangle or the call needs the host GEMM. A complex call runs two real ones (level3::complex_triangle). Called
// once, before any other GEMM of the call.
template <typename E>
level3::TriangleGemm<E> checked_triangle(const bf16x_options& opt, Outcome& out) {
  static_assert(level3::kDeclined == method::kPartDeclined);
  if constexpr (level3::is_complex_v<E>) {
    using R = level3::real_t<E>;
    return [&opt, &out](Triangle t, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a, const Operand<E>& b,
                        E beta, const level3::View<E>& c) {
      return run_by_parts<R>(opt, out, [&](const level3::PartGemm<R>& real) {
        return level3::complex_triangle<E>(real, t, n, k, alpha, a, b, beta, c);
      });
    };
  } else {
    return [&opt, &out](Triangle t, std::int64_t n, std::int64_t k, E alpha, const Operand<E>& a, const Operand<E>& b,
                        E beta, const level3::View<E>& c) {
      Outcome one;
      const int st =
          run_gemm<E>(a.transposed ? BF16X_TRANS : BF16X_NO_TRANS, b.transposed ? BF16X_TRANS : BF16X_NO_TRANS, n, n, k,
                      alpha, a.x, a.ld, b.x, b.ld, beta, c.p, c.ld, c.rows, opt, one,
                      t.lower ? pack::OutputPart::lower : pack::OutputPart::upper);
      if (st != method::kPartDeclined) merge_outcome(out, one);
      return st;
    };
  }
}

// The memory of the output copies, one per thread whatever the element type.
util::Workspace& kept_space() {
  thread_local util::Workspace kept;
  return kept;
}

// What the routine may write of its output, as stored: the columns of the storage whole, or their part in the upper
// (rows 0..j of column j) or lower (rows j..) triangle of the storage.
enum class Part { whole, upper, lower };

// That part of the output, copied before the first GEMM and put back if the call fails. The copy lives in memory
// kept by the calling thread between calls (as the GEMM's workspace is): fresh pages for a 2048 x 2048 C fault in
// at a tenth of SYRK's time on a virtual machine.
template <typename E>
class OutputCopy {
 public:
  OutputCopy(E* p, std::int64_t along, std::int64_t across, std::int64_t ld, Part part)
      : p_(p), along_(along), across_(across), ld_(ld), part_(part), copy_(reserve(count())) {
    each([&](std::int64_t j, std::int64_t r0, std::int64_t rows, std::size_t at) {
      std::memcpy(&copy_[at], p + r0 + j * ld, sizeof(E) * std::size_t(rows));
    });
  }
  void restore() const {
    each([&](std::int64_t j, std::int64_t r0, std::int64_t rows, std::size_t at) {
      std::memcpy(p_ + r0 + j * ld_, &copy_[at], sizeof(E) * std::size_t(rows));
    });
  }

 private:
  // The rows [r0, r0 + rows) of column j that the part holds.
  std::pair<std::int64_t, std::int64_t> rows_of(std::int64_t j) const {
    if (part_ == Part::upper) return {0, std::min(j + 1, along_)};
    if (part_ == Part::lower) return {std::min(j, along_), along_ - std::min(j, along_)};
    return {0, along_};
  }
  // The elements of the part, in closed form (no loop over a column count that no memory could hold).
  unsigned __int128 count() const {
    using W = unsigned __int128;
    const W a = W(along_), n = W(across_);
    if (part_ == Part::whole) return a * n;
    const W d = std::min(a, n);  // the columns that cut the triangle: d (d + 1) / 2 elements beside the full ones
    const W tri = d * (d + 1) / 2;
    return part_ == Part::upper ? tri + (n - d) * a : d * a - (d * (d - 1) / 2);
  }
  template <typename F>
  void each(F f) const {
    std::size_t at = 0;
    for (std::int64_t j = 0; j < across_; ++j) {
      const auto [r0, rows] = rows_of(j);
      f(j, r0, rows, at);
      at += std::size_t(rows);
    }
  }

  static E* reserve(unsigned __int128 count) {
    util::Workspace& kept = kept_space();
    kept.release_if_large();  // what an earlier call left beyond the workspace's bound
    const unsigned __int128 bytes = count * sizeof(E);
    if (bytes > std::numeric_limits<std::size_t>::max() / 2) throw std::bad_alloc();
    void* p = kept.reserve(std::size_t(bytes));
    if (!p) throw std::bad_alloc();
    return static_cast<E*>(p);
  }

  E* p_;
  std::int64_t along_, across_, ld_;
  Part part_;
  E* copy_;
};

// One level-3 call as the caller made it: the GEMM shape its plan is made for (m x n output, inner k), the output
// matrix, and what the verbose line and the summary say of it.
struct Level3Call {
  const char* routine;
  std::string flags;
  double flops;  // real flops
  int layout;
  std::int64_t m, n, k, lda, ldb, ldc;
  Stored output;
  int uplo;  // the triangle of a square output that the routine writes (BF16X_UPPER, BF16X_LOWER); 0: all of it
  Level3Call(const char* routine, std::string flags, double flops, int layout, std::int64_t m, std::int64_t n,
             std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc, const Stored& output, int uplo = 0)
      : routine(routine),
        flags(std::move(flags)),
        flops(flops),
        layout(layout),
        m(m),
        n(n),
        k(k),
        lda(lda),
        ldb(ldb),
        ldc(ldc),
        output(output),
        uplo(uplo) {}
  // The part of the output as stored: a row-major upper triangle is the lower one of the storage's columns.
  Part part() const {
    if (uplo == 0) return Part::whole;
    return (uplo == BF16X_UPPER) == (layout == BF16X_COL_MAJOR) ? Part::upper : Part::lower;
  }
};

bool valid_layout(int l) { return l == BF16X_ROW_MAJOR || l == BF16X_COL_MAJOR; }
bool valid_uplo(int u) { return u == BF16X_UPPER || u == BF16X_LOWER; }
bool valid_side(int s) { return s == BF16X_LEFT || s == BF16X_RIGHT; }
bool valid_diag(int d) { return d == BF16X_NON_UNIT || d == BF16X_UNIT; }
char uplo_char(int u) { return u == BF16X_UPPER ? 'U' : 'L'; }
char side_char(int s) { return s == BF16X_LEFT ? 'L' : 'R'; }
char diag_char(int d) { return d == BF16X_UNIT ? 'U' : 'N'; }
double real_of(float x) { return x; }
double real_of(double x) { return x; }
double real_of(const bf16x_complex_float& x) { return x.re; }
double real_of(const bf16x_complex_double& x) { return x.re; }
double imag_of(float) { return 0; }
double imag_of(double) { return 0; }
double imag_of(const bf16x_complex_float& x) { return x.im; }
double imag_of(const bf16x_complex_double& x) { return x.im; }

// The frame of every level-3 entry: options, the plan's refusals, the run with the output kept, stats and verbose.
// `checked` is the routine's own argument status; body(gemm) runs the column-major operation.
template <typename E, typename Body>
int level3_call(const Level3Call& call, int checked, const bf16x_options* user, E* output, E alpha, E beta, Body body) {
  constexpr bool is_double = kDouble<E>;
  int st_options;
  const bf16x_options opt = call_options(user, st_options);
  const bool timed = call_timed(opt);
  const double t0 = util::now_if(timed);
  Outcome out;
  int st = checked;
  if (st == BF16X_OK) st = st_options;
  if (st == BF16X_OK) st = check_options(opt, is_double);
  if (st == BF16X_OK && call.m > 0 && call.n > 0) {
    const CallPlan plan = plan_call(opt, is_double, call.m, call.n, std::max<std::int64_t>(call.k, 1));
    st = plan.status;
    // What a call that runs no GEMM reports (a TRSM of one substitution block): the plan's mode and engine.
    out.mode = plan.mode;
    out.engine = plan.mode == BF16X_MODE_NATIVE ? -1 : plan.engine;
    std::optional<OutputCopy<E>> kept;
    if (st == BF16X_OK) try {
        const bool col = call.layout == BF16X_COL_MAJOR;
        kept.emplace(output, col ? call.output.rows : call.output.cols, col ? call.output.cols : call.output.rows,
                     call.output.ld, call.part());
        const ThreadScope threads;  // bf16x_set_num_threads, for the GEMMs and the layer's own loops
        // The GEMMs' method: whether they round every entry correctly (SYR2K then keeps each entry one GEMM), or
        // are fixed-point products (TRSM then updates a narrow B on the FMA units).
        GemmState state{opt, out, {}, false};
        st = body(checked_gemm<E>(state), checked_triangle<E>(opt, out), plan.method);
      } catch (const std::bad_alloc&) {
        st = BF16X_ERR_NOMEM;
      } catch (const std::length_error&) {
        st = BF16X_ERR_NOMEM;
      }
    if (st != BF16X_OK && kept) kept->restore();
  }
  VerboseCall v = call_as_made(is_double, call.layout, BF16X_NO_TRANS, BF16X_NO_TRANS, call.m, call.n, call.k, call.lda,
                               call.ldb, call.ldc);
  v.routine = call.routine;
  v.flags = call.flags;
  v.flops = call.flops * (level3::is_complex_v<E> ? 4 : 1);
  v.alpha = real_of(alpha);
  v.beta = real_of(beta);
  v.is_complex = level3::is_complex_v<E>;
  v.alpha_im = imag_of(alpha);
  v.beta_im = imag_of(beta);
  report_call(opt, out, st, util::now_if(timed) - t0, v);
  return st;
}

// op(X) of a matrix stored in `layout`: its column-major reading transposed where op and the layout differ.
template <typename E>
Operand<E> operand(int layout, const E* x, std::int64_t ld, int op) {
  return {x, ld, (op != BF16X_NO_TRANS) != (layout == BF16X_ROW_MAJOR), op == BF16X_CONJ_TRANS};
}
template <typename E>
level3::View<E> view(int layout, E* x, std::int64_t ld) {
  return {x, ld, layout == BF16X_ROW_MAJOR};
}

// The transposes a routine takes: every one for GEMMT, TRMM, TRSM and the real SYRK/SYR2K (where CONJ_TRANS reads
// as TRANS); NO_TRANS and TRANS for the complex symmetric ones; NO_TRANS and CONJ_TRANS for the Hermitian ones.
enum class Kind { real, symmetric, hermitian };

template <typename E>
Kind kind_of(bool hermitian) {
  return hermitian ? Kind::hermitian : level3::is_complex_v<E> ? Kind::symmetric : Kind::real;
}

bool trans_fits(Kind kind, int t) {
  if (kind == Kind::real) return valid_trans(t);
  return t == BF16X_NO_TRANS || t == (kind == Kind::hermitian ? BF16X_CONJ_TRANS : BF16X_TRANS);
}

// SYRK and HERK (two = false: C = alpha op(A) op(A)^T (^H) + beta C), SYR2K and HER2K (two: C = alpha op(A)
// op(B)^T + alpha op(B) op(A)^T + beta C, ^H and conj(alpha) for HER2K).
template <typename E>
int rank_update(int layout, int uplo, int trans, std::int64_t n, std::int64_t k, E alpha, const E* a, std::int64_t lda,
                const E* b, std::int64_t ldb, E beta, E* c, std::int64_t ldc, const bf16x_options* opt, bool hermitian,
                bool two) {
  const Kind kind = kind_of<E>(hermitian);
  const bool notrans = trans == BF16X_NO_TRANS;
  const std::int64_t rows = notrans ? n : k, cols = notrans ? k : n;  // A and B as stored
  const int st = FirstFailure{}(!valid_layout(layout), BF16X_ERR_LAYOUT)(!valid_uplo(uplo), BF16X_ERR_UPLO)(
                     !trans_fits(kind, trans), BF16X_ERR_TRANS_A)(n < 0, BF16X_ERR_N)(k < 0, BF16X_ERR_K)
                     .stored(layout, {rows, cols, lda, BF16X_ERR_LDA})
                     .stored(layout, two ? Stored{rows, cols, ldb, BF16X_ERR_LDB} : Stored{0, 0, 1, BF16X_ERR_LDB})
                     .stored(layout, {n, n, ldc, BF16X_ERR_LDC})(
                         n > 0 && (!c || (k > 0 && !is_zero(alpha) && (!a || (two && !b)))), BF16X_ERR_NULL)
                     .status();
  const char t = notrans ? 'N' : kind == Kind::hermitian ? 'C' : 'T';
  static constexpr const char* names[2][2] = {{"syrk", "syr2k"}, {"herk", "her2k"}};
  const Level3Call call(names[hermitian][two], std::string{uplo_char(uplo), ',', t},
                        (two ? 2.0 : 1.0) * double(n) * double(n) * double(k), layout, n, n, two ? 2 * k : k, lda,
                        two ? ldb : 0, ldc, Stored{n, n, ldc, BF16X_ERR_LDC}, uplo);
  return level3_call<E>(call, st, opt, c, alpha, beta,
                        [&](const level3::Gemm<E>& gemm, const level3::TriangleGemm<E>& whole, mode::Method method) {
                          const bool rounded = method == mode::Method::correctly_rounded;
                          const Triangle tri{uplo == BF16X_LOWER, false, hermitian};
                          const int partner = kind == Kind::hermitian ? BF16X_CONJ_TRANS : BF16X_TRANS;
                          const int ta = notrans ? BF16X_NO_TRANS : partner;
                          if (two)
                            return level3::syr2k<E>(gemm, tri, n, k, alpha, operand(layout, a, lda, ta),
                                                    operand(layout, b, ldb, ta), beta, view(layout, c, ldc), whole,
                                                    rounded);
                          // op(B) = op(A)^T (^H): the other transpose of the same A.
                          const int tb = notrans ? partner : BF16X_NO_TRANS;
                          return level3::gemmt<E>(gemm, tri, n, k, alpha, operand(layout, a, lda, ta),
                                                  operand(layout, a, lda, tb), beta, view(layout, c, ldc), whole);
                        });
}

// SYMM and HEMM: C = alpha A B + beta C (left) or alpha B A + beta C.
template <typename E>
int symmetric(int layout, int side, int uplo, std::int64_t m, std::int64_t n, E alpha, const E* a, std::int64_t lda,
              const E* b, std::int64_t ldb, E beta, E* c, std::int64_t ldc, const bf16x_options* opt, bool hermitian) {
  const std::int64_t ka = side == BF16X_LEFT ? m : n;
  const int st = FirstFailure{}(!valid_layout(layout), BF16X_ERR_LAYOUT)(!valid_side(side), BF16X_ERR_SIDE)(
                     !valid_uplo(uplo), BF16X_ERR_UPLO)(m < 0, BF16X_ERR_M)(n < 0, BF16X_ERR_N)
                     .stored(layout, {ka, ka, lda, BF16X_ERR_LDA})
                     .stored(layout, {m, n, ldb, BF16X_ERR_LDB})
                     .stored(layout, {m, n, ldc, BF16X_ERR_LDC})(
                         m > 0 && n > 0 && (!c || (!is_zero(alpha) && (!a || !b))), BF16X_ERR_NULL)
                     .status();
  const Level3Call call(hermitian ? "hemm" : "symm", std::string{side_char(side), ',', uplo_char(uplo)},
                        2.0 * double(m) * double(n) * double(ka), layout, m, n, ka, lda, ldb, ldc,
                        Stored{m, n, ldc, BF16X_ERR_LDC});
  return level3_call<E>(call, st, opt, c, alpha, beta, [&](const level3::Gemm<E>& gemm, const auto&, mode::Method) {
    const level3::Stored<E> sa{a, lda, layout == BF16X_ROW_MAJOR};
    return level3::symm<E>(gemm, side == BF16X_LEFT, Triangle{uplo == BF16X_LOWER, false, hermitian}, m, n, alpha, sa,
                           operand(layout, b, ldb, BF16X_NO_TRANS), beta, view(layout, c, ldc));
  });
}

// TRMM and TRSM: B = alpha op(A) B, alpha B op(A), or the solutions of op(A) X = alpha B, X op(A) = alpha B.
template <typename E>
int triangular(int layout, int side, int uplo, int trans, int diag, std::int64_t m, std::int64_t n, E alpha, const E* a,
               std::int64_t lda, E* b, std::int64_t ldb, const bf16x_options* opt, bool solve) {
  const std::int64_t ka = side == BF16X_LEFT ? m : n;
  const int st =
      FirstFailure{}(!valid_layout(layout), BF16X_ERR_LAYOUT)(!valid_side(side), BF16X_ERR_SIDE)(
          !valid_uplo(uplo), BF16X_ERR_UPLO)(!valid_trans(trans), BF16X_ERR_TRANS_A)(!valid_diag(diag), BF16X_ERR_DIAG)(
          m < 0, BF16X_ERR_M)(n < 0, BF16X_ERR_N)
          .stored(layout, {ka, ka, lda, BF16X_ERR_LDA})
          .stored(layout, {m, n, ldb, BF16X_ERR_LDB})(m > 0 && n > 0 && (!b || (!is_zero(alpha) && !a)), BF16X_ERR_NULL)
          .status();
  const Level3Call call(
      solve ? "trsm" : "trmm",
      std::string{side_char(side), ',', uplo_char(uplo), ',', trans_char(trans), ',', diag_char(diag)},
      double(m) * double(n) * double(ka), layout, m, n, ka, lda, ldb, ldb, Stored{m, n, ldb, BF16X_ERR_LDB});
  return level3_call<E>(
      call, st, opt, b, alpha, from_real<E>(0), [&](const level3::Gemm<E>& gemm, const auto&, mode::Method method) {
        const Triangle t{uplo == BF16X_LOWER, diag == BF16X_UNIT, false};
        const level3::Stored<E> sa{a, lda, layout == BF16X_ROW_MAJOR};
        const bool left = side == BF16X_LEFT;
        // A narrow B's updates on the FMA units where the method's GEMMs of a few columns cost far more than their
        // products (its row says: level3/operation.hpp).
        const method::Row* row = method::row(method);
        const bool fma_updates = row && row->narrow_solves_on_fma;
        return solve ? level3::trsm<E>(gemm, left, t, trans, m, n, alpha, sa, view(layout, b, ldb), fma_updates)
                     : level3::trmm<E>(gemm, left, t, trans, m, n, alpha, sa, view(layout, b, ldb));
      });
}

// GEMMT: C = alpha op(A) op(B) + beta C on C's stored triangle.
template <typename E>
int gemmt(int layout, int uplo, int transa, int transb, std::int64_t n, std::int64_t k, E alpha, const E* a,
          std::int64_t lda, const E* b, std::int64_t ldb, E beta, E* c, std::int64_t ldc, const bf16x_options* opt) {
  const bool na = transa == BF16X_NO_TRANS, nb = transb == BF16X_NO_TRANS;
  const int st = FirstFailure{}(!valid_layout(layout), BF16X_ERR_LAYOUT)(!valid_uplo(uplo), BF16X_ERR_UPLO)(
                     !valid_trans(transa), BF16X_ERR_TRANS_A)(!valid_trans(transb), BF16X_ERR_TRANS_B)(
                     n < 0, BF16X_ERR_N)(k < 0, BF16X_ERR_K)
                     .stored(layout, {na ? n : k, na ? k : n, lda, BF16X_ERR_LDA})
                     .stored(layout, {nb ? k : n, nb ? n : k, ldb, BF16X_ERR_LDB})
                     .stored(layout, {n, n, ldc, BF16X_ERR_LDC})(
                         n > 0 && (!c || (k > 0 && !is_zero(alpha) && (!a || !b))), BF16X_ERR_NULL)
                     .status();
  const Level3Call call("gemmt", std::string{uplo_char(uplo), ',', trans_char(transa), ',', trans_char(transb)},
                        double(n) * double(n) * double(k), layout, n, n, k, lda, ldb, ldc,
                        Stored{n, n, ldc, BF16X_ERR_LDC}, uplo);
  return level3_call<E>(call, st, opt, c, alpha, beta,
                        [&](const level3::Gemm<E>& gemm, const level3::TriangleGemm<E>& whole, mode::Method) {
                          return level3::gemmt<E>(gemm, Triangle{uplo == BF16X_LOWER}, n, k, alpha,
                                                  operand(layout, a, lda, transa), operand(layout, b, ldb, transb),
                                                  beta, view(layout, c, ldc), whole);
                        });
}

// A scalar of the routine's element type: s itself, or s + 0i for the real scalars of the Hermitian routines.
template <typename E, typename S>
E scalar(S s) {
  if constexpr (std::is_same_v<E, S>)
    return s;
  else
    return E{s, 0};
}

// Exceptions stop here: a throw past the frame (the verbose line) is an allocation failure.
template <typename F>
int no_throw(F f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return BF16X_ERR_NOMEM;
  }
}

}  // namespace
}  // namespace bf16x::api

// The entry points over the generic bodies above: one macro per argument list, the routine's own choices
// (Hermitian, two operands, solve) its arguments. S: the type of the scalars that are real for the Hermitian
// routines.
#define BF16X_RANK_K(P, E, NAME, S, HERM)                                                                              \
  int bf16x_##P##NAME##_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k, S alpha, \
                           const E* a, int64_t lda, S beta, E* c, int64_t ldc, const bf16x_options* opt) {             \
    return bf16x::api::no_throw([&] {                                                                                  \
      return bf16x::api::rank_update<E>(layout, uplo, trans, n, k, bf16x::api::scalar<E>(alpha), a, lda, nullptr, 0,   \
                                        bf16x::api::scalar<E>(beta), c, ldc, opt, HERM, false);                        \
    });                                                                                                                \
  }
#define BF16X_RANK_2K(P, E, NAME, S, HERM)                                                                             \
  int bf16x_##P##NAME##_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k, E alpha, \
                           const E* a, int64_t lda, const E* b, int64_t ldb, S beta, E* c, int64_t ldc,                \
                           const bf16x_options* opt) {                                                                 \
    return bf16x::api::no_throw([&] {                                                                                  \
      return bf16x::api::rank_update<E>(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, bf16x::api::scalar<E>(beta), \
                                        c, ldc, opt, HERM, true);                                                      \
    });                                                                                                                \
  }
#define BF16X_SYMMETRIC(P, E, NAME, HERM)                                                                        \
  int bf16x_##P##NAME##_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, int64_t m, int64_t n, E alpha, \
                           const E* a, int64_t lda, const E* b, int64_t ldb, E beta, E* c, int64_t ldc,          \
                           const bf16x_options* opt) {                                                           \
    return bf16x::api::no_throw([&] {                                                                            \
      return bf16x::api::symmetric<E>(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, opt, HERM); \
    });                                                                                                          \
  }
#define BF16X_TRIANGULAR(P, E, NAME, SOLVE)                                                                            \
  int bf16x_##P##NAME##_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,              \
                           bf16x_diag diag, int64_t m, int64_t n, E alpha, const E* a, int64_t lda, E* b, int64_t ldb, \
                           const bf16x_options* opt) {                                                                 \
    return bf16x::api::no_throw([&] {                                                                                  \
      return bf16x::api::triangular<E>(layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, opt, SOLVE);     \
    });                                                                                                                \
  }
#define BF16X_GEMMT(P, E)                                                                                          \
  int bf16x_##P##gemmt_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose transa, bf16x_transpose transb,    \
                          int64_t n, int64_t k, E alpha, const E* a, int64_t lda, const E* b, int64_t ldb, E beta, \
                          E* c, int64_t ldc, const bf16x_options* opt) {                                           \
    return bf16x::api::no_throw([&] {                                                                              \
      return bf16x::api::gemmt<E>(layout, uplo, transa, transb, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);   \
    });                                                                                                            \
  }
#define BF16X_LEVEL3(P, E)             \
  BF16X_RANK_K(P, E, syrk, E, false)   \
  BF16X_RANK_2K(P, E, syr2k, E, false) \
  BF16X_SYMMETRIC(P, E, symm, false)   \
  BF16X_TRIANGULAR(P, E, trmm, false)  \
  BF16X_TRIANGULAR(P, E, trsm, true)   \
  BF16X_GEMMT(P, E)
#define BF16X_HERMITIAN(P, E, R)      \
  BF16X_RANK_K(P, E, herk, R, true)   \
  BF16X_RANK_2K(P, E, her2k, R, true) \
  BF16X_SYMMETRIC(P, E, hemm, true)

extern "C" {
BF16X_LEVEL3(s, float)
BF16X_LEVEL3(d, double)
BF16X_LEVEL3(c, bf16x_complex_float)
BF16X_LEVEL3(z, bf16x_complex_double)
BF16X_HERMITIAN(c, bf16x_complex_float, float)
BF16X_HERMITIAN(z, bf16x_complex_double, double)
}  // extern "C"
