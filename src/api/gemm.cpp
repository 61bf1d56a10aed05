// bf16x_sgemm / bf16x_dgemm: checks, layout normalisation (a row-major operand is the column-major transpose; a
// row-major C is written in place, so both layouts compute the same product in the same order), BLAS quick returns,
// mode and engine resolution, then the host BLAS or the emulation driver; stats and the verbose line for every call,
// rejected ones included.
#include <algorithm>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "api/caller_structs.hpp"
#include "api/checks.hpp"
#include "api/real_gemm.hpp"
#include "bf16x/bf16x.h"
#include "host/host_blas.hpp"
#include "method/guard.hpp"
#include "method/table.hpp"
#include "mode/records.hpp"
#include "planner/call_plan.hpp"
#include "report/verbose.hpp"
#include "settings/env.hpp"
#include "util/clock.hpp"

namespace bf16x::api {
namespace {

int flip(int t) { return t == BF16X_NO_TRANS ? BF16X_TRANS : BF16X_NO_TRANS; }

// C = beta * C, with beta == 0 setting C to zero without reading it (BLAS semantics for alpha == 0 or k == 0);
// beta == 1 leaves C untouched, as the reference BLAS does (a signalling NaN stays signalling).
template <typename T>
void scale_c(std::int64_t m, std::int64_t n, T beta, T* c, std::int64_t ldc, bool c_rows) {
  if (beta == T(1)) return;
  if (c_rows) std::swap(m, n);  // C^T, column-major
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) c[i + j * ldc] = beta == T(0) ? T(0) : beta * c[i + j * ldc];
}

}  // namespace

int check_options(const bf16x_options& o, bool is_double) {
  if (!bf16x_mode_name(o.mode)) return BF16X_ERR_MODE;
  if (!mode_fits(o.mode, is_double)) return BF16X_ERR_MODE;
  if (!bf16x_engine_name(o.engine)) return BF16X_ERR_OPTIONS;
  if (o.split != BF16X_SPLIT_SCALED && o.split != BF16X_SPLIT_PAPER) return BF16X_ERR_OPTIONS;
  if (o.block_k < 0 || o.block_k > 256 || o.block_k % 32 != 0) return BF16X_ERR_OPTIONS;
  if (!(o.auto_target >= 0.0)) return BF16X_ERR_OPTIONS;
  if (o.guard < BF16X_GUARD_DEFAULT || o.guard > BF16X_GUARD_OFF) return BF16X_ERR_OPTIONS;
  return BF16X_OK;
}

char trans_char(int t) { return t == BF16X_NO_TRANS ? 'N' : (t == BF16X_TRANS ? 'T' : 'C'); }

VerboseCall call_as_made(bool is_double, int layout, int transa, int transb, std::int64_t m, std::int64_t n,
                         std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  VerboseCall v;
  v.is_double = is_double;
  v.row_major = layout == BF16X_ROW_MAJOR;
  v.ta = trans_char(transa);
  v.tb = trans_char(transb);
  v.m = m, v.n = n, v.k = k, v.lda = lda, v.ldb = ldb, v.ldc = ldc;
  return v;
}

bf16x_options options_for_mode(int mode) {
  bf16x_options opt;
  bf16x_options_init(&opt);
  opt.mode = mode;
  return opt;
}

bf16x_options call_options(const bf16x_options* user, int& status) {
  // Every BF16X_* variable is read (and a refused value said) at the first call, whatever that call needs.
  (void)env();
  bf16x_options opt;
  status = read_options(user, opt);
  if (opt.stats) {
    bf16x_stats cleared{};
    cleared.engine = -1;
    write_stats(opt.stats, cleared);
  }
  return opt;
}

void report_call(const bf16x_options& opt, const Outcome& out, int st, double secs, VerboseCall v) {
  // fp64cr / fp32cr run TwoProd and FastTwoSum on the FMA units, no BF16 or INT8 engine (out.engine only chose the
  // tile sums' vector level, engine::Record::sums): no BF16X_ENGINE_* in the stats, "fma" on the verbose line (whose
  // kernels= names the ISA).
  const bool fma_units = mode::is(out.mode, mode::Method::correctly_rounded) && out.engine >= 0;
  if (opt.stats && st == BF16X_OK) {
    bf16x_stats s{};
    s.mode = out.mode;
    s.engine = fma_units ? -1 : out.engine;
    s.tile_loads = out.counters.tile_loads;
    s.tile_stores = out.counters.tile_stores;
    s.dot_products = out.counters.dot_products;
    s.micro_tiles = out.counters.micro_tiles;
    s.seconds_split = out.seconds_split;
    s.seconds_compute = out.engine >= 0 ? out.seconds_compute : secs;
    s.workspace_bytes = out.workspace_bytes;
    s.entries_repaired = out.repaired;
    s.seconds_guard = out.seconds_guard;
    s.guard = out.guard;
    s.seconds_scan = out.phases.scan;
    s.seconds_pack = out.phases.pack;
    s.seconds_products = out.phases.products;
    s.seconds_write = out.phases.write;
    s.bytes_scan = out.phases.bytes_scan;
    s.bytes_pack = out.phases.bytes_pack;
    s.bytes_write = out.phases.bytes_write;
    s.seconds_sums = out.phases.sums;
    write_stats(opt.stats, s);
  }
  if (!verbose_wanted()) return;
  v.mode = st == BF16X_OK ? bf16x_mode_name(out.mode) : "-";
  v.engine = st != BF16X_OK    ? "-"
             : fma_units       ? "fma"
             : out.engine >= 0 ? bf16x_engine_name(out.engine)
                               : host::library_name();
  v.why =
      out.why + (out.guard ? method::guard_why(out.guard, out.repaired, out.host_lines, out.levels) : std::string());
  v.repaired = out.repaired;
  v.threads = out.engine >= 0 ? bf16x_get_num_threads() : -1;
  v.status = st;
  v.seconds = secs;
  verbose_line(v);
}

// A checked call on column-major operand views (row-major operands already read as transposed) and a C in either
// layout: quick return, engine and mode, then the driver or the host GEMM. Returns the status; C is written only
// when it returns BF16X_OK.
template <typename T>
int run_gemm(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
             std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, bool c_rows,
             const bf16x_options& opt, Outcome& out, pack::OutputPart part, pack::LowerOperand a_lower) {
  constexpr bool is_double = std::is_same_v<T, double>;
  const bool whole = part == pack::OutputPart::all;
  if (alpha == T(0) || k == 0) {
    if (!whole) return method::kPartDeclined;
    scale_c(m, n, beta, c, ldc, c_rows);
    out.why = ",quick_return";
    return BF16X_OK;
  }
  CallPlan plan = plan_call(opt, is_double, m, n, k);
  if (plan.status != BF16X_OK) return plan.status;
  // A part: the modes whose method takes one (auto, which decides on the whole call's data and may choose the
  // host, has no row until it has chosen).
  if (const method::Row* r = method::row(plan.method); !whole && (!r || !r->parts)) return method::kPartDeclined;
  const method::Call<T> x{transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, c_rows, part, a_lower};
  if (plan.mode == BF16X_MODE_AUTO)
    if (const int st = settle_auto<T>(plan, x.opa(), x.opb()); st != BF16X_OK) return st;
  return method::run<T>(plan, x, out);
}

template int run_gemm(int, int, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t,
                      const float*, std::int64_t, float, float*, std::int64_t, bool, const bf16x_options&, Outcome&,
                      pack::OutputPart, pack::LowerOperand);
template int run_gemm(int, int, std::int64_t, std::int64_t, std::int64_t, double, const double*, std::int64_t,
                      const double*, std::int64_t, double, double*, std::int64_t, bool, const bf16x_options&, Outcome&,
                      pack::OutputPart, pack::LowerOperand);

namespace {

template <typename T>
int gemm(int layout, int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
         std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, const bf16x_options* user) {
  constexpr bool is_double = std::is_same_v<T, double>;
  int st_options;
  const bf16x_options opt = call_options(user, st_options);
  const bool timed = call_timed(opt);
  const double t0 = util::now_if(timed);
  Outcome out;
  int st = check_gemm_args({layout, transa, transb, m, n, k, lda, ldb, ldc}, a, b, c, alpha == T(0));
  if (st == BF16X_OK) st = st_options;
  if (st == BF16X_OK) st = check_options(opt, is_double);
  if (st == BF16X_OK && m != 0 && n != 0) {
    // A row-major A or B is its column-major transpose; C keeps its layout (the driver writes it in place), so
    // that both layouts compute the same product in the same order: the same bits.
    // No exception leaves the C API: the allocations that can throw (scale vectors, group plans) come before any
    // write to C, and none is made inside a parallel region.
    try {
      if (layout == BF16X_ROW_MAJOR)
        st = run_gemm<T>(flip(transa), flip(transb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, true, opt, out);
      else
        st = run_gemm<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, false, opt, out);
    } catch (const std::bad_alloc&) {
      st = BF16X_ERR_NOMEM;
    } catch (const std::length_error&) {
      st = BF16X_ERR_NOMEM;
    }
  }
  VerboseCall v = call_as_made(is_double, layout, transa, transb, m, n, k, lda, ldb, ldc);
  v.alpha = double(alpha);
  v.beta = double(beta);
  report_call(opt, out, st, util::now_if(timed) - t0, v);
  return st;
}

// The C entry points: no exception leaves them. Workspace and scale vectors are allocated before C is written, so
// an allocation failure leaves C untouched.
template <typename T>
int c_entry(int layout, int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
            std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, const bf16x_options* opt) {
  try {
    return gemm<T>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
  } catch (const std::bad_alloc&) {
    return BF16X_ERR_NOMEM;
  }
}

int workspace_bytes(int is_double, int layout, std::int64_t m, std::int64_t n, std::int64_t k,
                    const bf16x_options* user, std::uint64_t* bytes) {
  if (!bytes) return BF16X_ERR_NULL;
  *bytes = 0;
  bf16x_options opt;
  const int st_options = read_options(user, opt);
  if (layout != BF16X_ROW_MAJOR && layout != BF16X_COL_MAJOR) return BF16X_ERR_LAYOUT;
  if (m < 0) return BF16X_ERR_M;
  if (n < 0) return BF16X_ERR_N;
  if (k < 0) return BF16X_ERR_K;
  if (st_options != BF16X_OK) return st_options;
  if (const int so = check_options(opt, is_double != 0); so != BF16X_OK) return so;
  if (m == 0 || n == 0 || k == 0) return BF16X_OK;
  // The call's own plan: its refusals, its mode.
  const CallPlan plan = plan_call(opt, is_double != 0, m, n, k);
  if (plan.status != BF16X_OK) return plan.status;
  if (plan.method != mode::Method::automatic) {
    *bytes = method::row(plan.method)->workspace(plan, m, n, k);
    return BF16X_OK;
  }
  // Auto may choose the most accurate slice mode or the largest CRT mode (the most moduli): the larger of the two.
  method::Plan slices = plan, crt = plan;
  slices.mode = is_double ? BF16X_MODE_FP64X21 : BF16X_MODE_FP32X6;
  crt.mode = is_double ? BF16X_MODE_FP64C(BF16X_FP64C_MAX) : BF16X_MODE_FP32C(BF16X_FP32C_MAX);
  *bytes = std::max(method::slices_row().workspace(slices, m, n, k), method::crt_row().workspace(crt, m, n, k));
  return BF16X_OK;
}

}  // namespace
}  // namespace bf16x::api

extern "C" {

int bf16x_sgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                   float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                   int64_t ldc, const bf16x_options* opt) {
  return bf16x::api::c_entry<float>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
}

int bf16x_dgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                   double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                   int64_t ldc, const bf16x_options* opt) {
  return bf16x::api::c_entry<double>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
}

int bf16x_workspace_bytes(int is_double, bf16x_layout layout, int64_t m, int64_t n, int64_t k, const bf16x_options* opt,
                          uint64_t* bytes) {
  return bf16x::api::workspace_bytes(is_double, layout, m, n, k, opt, bytes);
}

int bf16x_sgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc, bf16x_mode mode) {
  const bf16x_options opt = bf16x::api::options_for_mode(mode);
  return bf16x_sgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

int bf16x_dgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                int64_t ldc, bf16x_mode mode) {
  const bf16x_options opt = bf16x::api::options_for_mode(mode);
  return bf16x_dgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

}  // extern "C"
