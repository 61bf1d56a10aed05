// bf16x_?gemm_batch_strided: every argument checked once, before any item runs, so that an error writes no C; then
// each item is the single call bf16x_?gemm_ex on it, which gives it the single call's bits. Small items run in
// parallel over the batch (the driver has little to share out inside one), larger ones one after another, each on
// the single call's threads.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "api/caller_structs.hpp"
#include "api/checks.hpp"
#include "api/real_gemm.hpp"
#include "bf16x/bf16x.h"
#include "settings/runtime.hpp"

namespace bf16x::api {
namespace {

// Items of fewer multiply-adds than this (128^3) run in parallel over the batch.
constexpr std::int64_t kSmallItem = std::int64_t(1) << 21;

template <typename T>
struct Single;
template <>
struct Single<float> {
  static constexpr bool is_double = false;
  static constexpr auto call = bf16x_sgemm_ex;
  static bool zero(float x) { return x == 0.0f; }
};
template <>
struct Single<double> {
  static constexpr bool is_double = true;
  static constexpr auto call = bf16x_dgemm_ex;
  static bool zero(double x) { return x == 0.0; }
};
template <>
struct Single<bf16x_complex_float> {
  static constexpr bool is_double = false;
  static constexpr auto call = bf16x_cgemm_ex;
  static bool zero(const bf16x_complex_float& x) { return x.re == 0.0f && x.im == 0.0f; }
};
template <>
struct Single<bf16x_complex_double> {
  static constexpr bool is_double = true;
  static constexpr auto call = bf16x_zgemm_ex;
  static bool zero(const bf16x_complex_double& x) { return x.re == 0.0 && x.im == 0.0; }
};

template <typename T>
struct Batch {
  int layout, ta, tb;
  std::int64_t m, n, k;
  T alpha;
  const T* a;
  std::int64_t lda, stride_a;
  const T* b;
  std::int64_t ldb, stride_b;
  T beta;
  T* c;
  std::int64_t ldc, stride_c, count;
};

// Elements a stored matrix of `lines` lines of `len` elements at leading dimension ld spans.
std::int64_t extent(std::int64_t len, std::int64_t lines, std::int64_t ld) {
  return len == 0 || lines == 0 ? 0 : ld * (lines - 1) + len;
}

// stride * (count - 1) + one item's extent, in bytes, fits in int64 (the single call's checks bound the extent).
bool span_fits(std::int64_t stride, std::int64_t item, std::int64_t count, std::int64_t bytes) {
  std::int64_t t;
  return !__builtin_mul_overflow(stride, count - 1, &t) && !__builtin_add_overflow(t, item, &t) &&
         !__builtin_mul_overflow(t, bytes, &t);
}

// The batch's own rules, after the single call's: strides and count.
template <typename T>
int check_batch(const Batch<T>& bt) {
  if (bt.stride_a < 0) return BF16X_ERR_LDA;
  if (bt.stride_b < 0) return BF16X_ERR_LDB;
  if (bt.stride_c < 0) return BF16X_ERR_LDC;
  if (bt.count < 0) return BF16X_ERR_SIZE;
  if (bt.count <= 1) return BF16X_OK;
  // Stored shapes (the rows here run along the leading dimension), as check_gemm_args reads them.
  const bool col = bt.layout == BF16X_COL_MAJOR;
  const bool ta = bt.ta != BF16X_NO_TRANS, tb = bt.tb != BF16X_NO_TRANS;
  const std::int64_t a_len = col != ta ? bt.m : bt.k, a_lines = col != ta ? bt.k : bt.m;
  const std::int64_t b_len = col != tb ? bt.k : bt.n, b_lines = col != tb ? bt.n : bt.k;
  const std::int64_t c_len = col ? bt.m : bt.n, c_lines = col ? bt.n : bt.m;
  const std::int64_t c_item = extent(c_len, c_lines, bt.ldc);
  // C items are written concurrently: no two may share an element.
  if (bt.stride_c < c_item) return BF16X_ERR_LDC;
  if (!span_fits(bt.stride_a, extent(a_len, a_lines, bt.lda), bt.count, sizeof(T)) ||
      !span_fits(bt.stride_b, extent(b_len, b_lines, bt.ldb), bt.count, sizeof(T)) ||
      !span_fits(bt.stride_c, c_item, bt.count, sizeof(T)))
    return BF16X_ERR_SIZE;
  return BF16X_OK;
}

template <typename T>
int batch_gemm(const Batch<T>& bt, const bf16x_options* user) {
  int st_options;
  const bf16x_options opt = call_options(user, st_options);  // the caller's stats cleared, as by a single call
  int st = check_gemm_args({bt.layout, bt.ta, bt.tb, bt.m, bt.n, bt.k, bt.lda, bt.ldb, bt.ldc}, bt.a, bt.b, bt.c,
                           Single<T>::zero(bt.alpha));
  if (st == BF16X_OK) st = check_batch(bt);
  if (st == BF16X_OK) st = st_options;
  if (st == BF16X_OK) st = check_options(opt, Single<T>::is_double);
  if (st != BF16X_OK || bt.count == 0 || bt.m == 0 || bt.n == 0) return st;

  // Items report into their own stats; the caller's get the sum.
  std::vector<bf16x_stats> stats(opt.stats ? std::size_t(bt.count) : 0);
  const auto item = [&](std::int64_t i) {
    bf16x_options o = opt;
    o.stats = opt.stats ? &stats[std::size_t(i)] : nullptr;
    return Single<T>::call(bf16x_layout(bt.layout), bf16x_transpose(bt.ta), bf16x_transpose(bt.tb), bt.m, bt.n, bt.k,
                           bt.alpha, bt.a + i * bt.stride_a, bt.lda, bt.b + i * bt.stride_b, bt.ldb, bt.beta,
                           bt.c + i * bt.stride_c, bt.ldc, &o);
  };
  std::int64_t work;
  const bool small = !__builtin_mul_overflow(bt.m * bt.n, bt.k, &work) && work < kSmallItem;
  if (bt.count > 1 && small) {
    std::atomic<int> first_error{BF16X_OK};
    const ThreadScope threads;  // bf16x_set_num_threads / BF16X_NUM_THREADS for the batch's region
#pragma omp parallel for schedule(dynamic, 8)
    for (std::int64_t i = 0; i < bt.count; ++i) {
      if (first_error.load(std::memory_order_relaxed) != BF16X_OK) continue;
      if (const int s = item(i); s != BF16X_OK) {
        int expected = BF16X_OK;
        first_error.compare_exchange_strong(expected, s);
      }
    }
    st = first_error.load();
  } else {
    for (std::int64_t i = 0; i < bt.count && st == BF16X_OK; ++i) st = item(i);
  }
  if (opt.stats && st == BF16X_OK) {
    bf16x_stats sum{};
    sum.mode = stats[0].mode;
    sum.engine = stats[0].engine;
    for (const bf16x_stats& s : stats) add_stats(sum, s);
    write_stats(opt.stats, sum);
  }
  return st;
}

}  // namespace
}  // namespace bf16x::api

// One strided-batch entry per element type (declared in bf16x/bf16x.h, which fixes each signature): the arguments in
// one call record, the batch run by batch_gemm.
#define BF16X_BATCH_STRIDED(name, T)                                                                              \
  int name(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,  \
           T alpha, const T* a, int64_t lda, int64_t stride_a, const T* b, int64_t ldb, int64_t stride_b, T beta, \
           T* c, int64_t ldc, int64_t stride_c, int64_t batch_count, const bf16x_options* opt) {                  \
    return bf16x::api::batch_gemm<T>({layout, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, \
                                      beta, c, ldc, stride_c, batch_count},                                       \
                                     opt);                                                                        \
  }

extern "C" {

BF16X_BATCH_STRIDED(bf16x_sgemm_batch_strided, float)
BF16X_BATCH_STRIDED(bf16x_dgemm_batch_strided, double)
BF16X_BATCH_STRIDED(bf16x_cgemm_batch_strided, bf16x_complex_float)
BF16X_BATCH_STRIDED(bf16x_zgemm_batch_strided, bf16x_complex_double)

}  // extern "C"
