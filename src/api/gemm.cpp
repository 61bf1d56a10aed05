// bf16x_sgemm / bf16x_dgemm: checks, layout normalisation (row-major C = A B is column-major C^T = B^T A^T),
// BLAS quick returns, mode and engine resolution, then the host BLAS or the emulation driver.
#include <chrono>
#include <new>
#include <cstdio>
#include <type_traits>

#include "api/checks.hpp"
#include "api/env.hpp"
#include "api/mode_policy.hpp"
#include "bf16x/bf16x.h"
#include "crt/crt_driver.hpp"
#include "crt/crt_mode.hpp"
#include "crt/crt_model.hpp"
#include "driver/gemm_driver.hpp"
#include "engine/registry.hpp"
#include "host/host_blas.hpp"

namespace bf16x::api {
namespace {

template <typename T>
bool host_gemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
               const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  if constexpr (std::is_same_v<T, float>)
    return host::sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    return host::dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// C = beta * C, with beta == 0 setting C to zero without reading it (BLAS semantics for alpha == 0 or k == 0).
template <typename T>
void scale_c(std::int64_t m, std::int64_t n, T beta, T* c, std::int64_t ldc) {
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) c[i + j * ldc] = beta == T(0) ? T(0) : beta * c[i + j * ldc];
}

bool mode_fits(int mode, bool is_double) {
  if (mode == BF16X_MODE_DEFAULT || mode == BF16X_MODE_NATIVE || mode == BF16X_MODE_AUTO) return true;
  if (crt::is_crt_mode(mode)) return crt::is_fp64c(mode) == is_double;
  return is_double ? (mode >= BF16X_MODE_FP64X6 && mode <= BF16X_MODE_FP64X21) : mode == BF16X_MODE_FP32X6;
}

int check_options(const bf16x_options& o, bool is_double) {
  if (!bf16x_mode_name(o.mode)) return BF16X_ERR_MODE;
  if (!mode_fits(o.mode, is_double)) return BF16X_ERR_MODE;
  if (!bf16x_engine_name(o.engine)) return BF16X_ERR_OPTIONS;
  if (o.split != BF16X_SPLIT_SCALED && o.split != BF16X_SPLIT_PAPER) return BF16X_ERR_OPTIONS;
  if (o.block_k < 0 || o.block_k > 256 || o.block_k % 32 != 0) return BF16X_ERR_OPTIONS;
  if (!(o.auto_target >= 0.0)) return BF16X_ERR_OPTIONS;
  return BF16X_OK;
}

const char* trans_char(int t) { return t == BF16X_NO_TRANS ? "N" : (t == BF16X_TRANS ? "T" : "C"); }

// A CRT mode (fp64c<N>, fp32c<N>): the INT8 engine, the CRT driver, the host GEMM for NaN/Inf inputs.
template <typename T>
int gemm_crt_mode(int mode, const bf16x_options& opt, int transa, int transb, std::int64_t m, std::int64_t n,
                  std::int64_t k, T alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c,
                  std::int64_t ldc) {
  const auto t0 = std::chrono::steady_clock::now();
  int engine_id = crt::resolve_int8_engine(opt.engine);
  if (engine_id < 0) return BF16X_ERR_ENGINE;
  crt::CrtConfig cfg;
  cfg.moduli = crt::crt_moduli(mode);
  cfg.engine = crt::int8_engine(engine_id);
  const crt::CrtArgs<T> args{m, n, k, alpha, a, lda, transa != BF16X_NO_TRANS, b, ldb, transb != BF16X_NO_TRANS,
                             beta, c, ldc};
  bool done = false;
  switch (crt::gemm_crt(args, cfg)) {
    case crt::CrtStatus::ok: done = true; break;
    case crt::CrtStatus::no_memory: return BF16X_ERR_NOMEM;
    case crt::CrtStatus::nonfinite_input: break;  // NaN/Inf: the host GEMM classifies them exactly
  }
  if (!done) {
    if (!host_gemm<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return BF16X_ERR_ENGINE;
    engine_id = -1;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (opt.stats) {
    opt.stats->mode = done ? mode : BF16X_MODE_NATIVE;
    opt.stats->engine = engine_id;
    opt.stats->micro_tiles = cfg.micro_tiles;
    opt.stats->seconds_split = cfg.seconds_scale;
    opt.stats->seconds_compute = done ? cfg.seconds_products : secs;
  }
  if (env().verbose)
    std::fprintf(stderr, "BF16X_VERBOSE,%cgemm,%s,%s,%lld,%lld,%lld,mode=%s,engine=%s%s,time_ms=%.3f\n",
                 std::is_same_v<T, double> ? 'd' : 's', trans_char(transa), trans_char(transb), (long long)m,
                 (long long)n, (long long)k, done ? bf16x_mode_name(mode) : "native",
                 done ? bf16x_engine_name(engine_id) : host::library_name(), done ? "" : ",fallback=nonfinite",
                 secs * 1e3);
  return BF16X_OK;
}

template <typename T>
int gemm(int layout, int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
         std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, const bf16x_options* user) {
  constexpr bool is_double = std::is_same_v<T, double>;
  bf16x_options opt;
  bf16x_options_init(&opt);
  if (user) opt = *user;
  if (opt.stats) *opt.stats = bf16x_stats{};
  if (opt.stats) opt.stats->engine = -1;
  const int st = check_gemm_args({layout, transa, transb, m, n, k, lda, ldb, ldc}, a, b, c, alpha == T(0));
  if (st != BF16X_OK) return st;
  if (const int so = check_options(opt, is_double); so != BF16X_OK) return so;
  if (m == 0 || n == 0) return BF16X_OK;

  // Row-major: swap the roles of A and B.
  if (layout == BF16X_ROW_MAJOR) {
    std::swap(m, n);
    std::swap(a, b);
    std::swap(lda, ldb);
    std::swap(transa, transb);
  }
  if (alpha == T(0) || k == 0) {
    scale_c(m, n, beta, c, ldc);
    if (opt.stats) opt.stats->mode = BF16X_MODE_NATIVE;
    return BF16X_OK;
  }
  // CRT modes run on their own INT8 engines and driver.
  if (const int rm = resolve_mode({opt.mode, is_double, m, n, k, -1, opt.auto_target}); crt::is_crt_mode(rm))
    return gemm_crt_mode<T>(rm, opt, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);

  const auto t0 = std::chrono::steady_clock::now();
  int engine_id = engine::resolve_engine(opt.engine);
  if (engine_id < 0 && opt.engine != BF16X_ENGINE_AUTO) {
    // An explicitly requested engine that cannot run here is an error only if emulation is asked for.
    const int probe = resolve_mode({opt.mode, is_double, m, n, k, -1, opt.auto_target});
    if (probe != BF16X_MODE_NATIVE) return BF16X_ERR_ENGINE;
  }
  const bool ta = transa != BF16X_NO_TRANS, tb = transb != BF16X_NO_TRANS;
  const bool scaled = opt.split == BF16X_SPLIT_SCALED && env().split == BF16X_SPLIT_SCALED;
  const ModeRequest req{opt.mode, is_double, m, n, k, engine_id, opt.auto_target, opt.block_k, scaled};
  int mode = resolve_mode(req);
  const int requested = opt.mode == BF16X_MODE_DEFAULT ? (is_double ? env().dgemm_mode : env().sgemm_mode) : opt.mode;
  AutoChoice autoc;
  if (mode == BF16X_MODE_AUTO) {
    // Only where the cost model lets emulation win: one pass over A and B decides the number of products.
    autoc = choose_auto<T>(req, {a, lda, ta}, {b, ldb, tb});
    mode = autoc.mode;
    if (crt::is_crt_mode(mode)) {  // auto chose a CRT mode: its INT8 engine for the resolved one
      bf16x_options o = opt;
      o.engine = crt::int8_engine_for(engine_id);
      return gemm_crt_mode<T>(mode, o, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    }
  }
  const char* ran = "native";
  driver::DriverConfig cfg{};
  engine::EngineCounters counters;

  bool done = false;
  if (mode != BF16X_MODE_NATIVE) {
    cfg.scheme = split::scheme_for_mode(mode);
    cfg.engine = engine::engine_info(engine_id);
    cfg.scaled = scaled;
    cfg.fuse_diagonals = opt.fuse_diagonals != 0;
    cfg.block_k = opt.block_k;
    cfg.counters = opt.stats ? &counters : nullptr;
    const driver::GemmArgs<T> args{m, n, k, alpha, {a, lda, ta}, {b, ldb, tb}, beta, c, ldc};
    switch (driver::gemm_emulated(args, cfg)) {
      case driver::DriverStatus::ok:
        done = true;
        ran = bf16x_mode_name(mode);
        break;
      case driver::DriverStatus::no_memory: return BF16X_ERR_NOMEM;
      case driver::DriverStatus::nonfinite_input: break;  // NaN/Inf: the host GEMM classifies them exactly
    }
  }
  if (!done) {
    if (!host_gemm<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return BF16X_ERR_ENGINE;
    engine_id = -1;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (opt.stats) {
    opt.stats->mode = done ? mode : BF16X_MODE_NATIVE;
    opt.stats->engine = engine_id;
    opt.stats->tile_loads = counters.tile_loads;
    opt.stats->tile_stores = counters.tile_stores;
    opt.stats->dot_products = counters.dot_products;
    opt.stats->micro_tiles = counters.micro_tiles;
    opt.stats->seconds_split = cfg.seconds_split;
    opt.stats->seconds_compute = done ? cfg.seconds_compute : secs;
  }
  if (env().verbose) {
    char why[128] = "";
    if (!done && (mode != BF16X_MODE_NATIVE || autoc.nonfinite))
      std::snprintf(why, sizeof why, ",fallback=nonfinite");
    else if (autoc.measured)
      std::snprintf(why, sizeof why, ",auto_fill=%.3g,auto_predicted=%.3g,auto_target=%.3g", autoc.fill_ratio,
                    autoc.predicted, autoc.target);
    else if (requested == BF16X_MODE_AUTO)
      std::snprintf(why, sizeof why, ",auto=cost_model");
    std::fprintf(stderr, "BF16X_VERBOSE,%cgemm,%s,%s,%lld,%lld,%lld,mode=%s,engine=%s%s,time_ms=%.3f\n",
                 is_double ? 'd' : 's', trans_char(transa), trans_char(transb), (long long)m, (long long)n,
                 (long long)k, ran, done ? bf16x_engine_name(engine_id) : host::library_name(), why, secs * 1e3);
  }
  return BF16X_OK;
}

}  // namespace
}  // namespace bf16x::api

extern "C" {

void bf16x_options_init(bf16x_options* opt) {
  if (!opt) return;
  *opt = bf16x_options{};
  opt->mode = BF16X_MODE_DEFAULT;
  opt->engine = BF16X_ENGINE_AUTO;
  opt->split = BF16X_SPLIT_SCALED;
}

int bf16x_sgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n,
                   int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   float* c, int64_t ldc, const bf16x_options* opt) {
  // Workspace and scale vectors are allocated before C is written: an allocation failure leaves C untouched.
  try {
    return bf16x::api::gemm<float>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
  } catch (const std::bad_alloc&) {
    return BF16X_ERR_NOMEM;
  }
}

int bf16x_dgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n,
                   int64_t k, double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                   double* c, int64_t ldc, const bf16x_options* opt) {
  // Workspace and scale vectors are allocated before C is written: an allocation failure leaves C untouched.
  try {
    return bf16x::api::gemm<double>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
  } catch (const std::bad_alloc&) {
    return BF16X_ERR_NOMEM;
  }
}

int bf16x_sgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc, bf16x_mode mode) {
  bf16x_options opt;
  bf16x_options_init(&opt);
  opt.mode = mode;
  return bf16x_sgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

int bf16x_dgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                int64_t ldc, bf16x_mode mode) {
  bf16x_options opt;
  bf16x_options_init(&opt);
  opt.mode = mode;
  return bf16x_dgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

}  // extern "C"
