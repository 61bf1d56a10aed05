// Size safety of the C API: shapes whose element or byte extents leave int64 are refused with BF16X_ERR_SIZE
// before any operand is touched; leading dimensions whose products with k or n pass 2^31 and 2^32 index correctly
// (64-bit arithmetic throughout); a workspace that cannot be allocated gives BF16X_ERR_NOMEM with C untouched; the
// workspace a call needs is bounded whatever m, n, k are; and the per-thread workspace never holds more than the
// largest call needed.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include "bf16x/bf16x.h"
#include "driver/blocking.hpp"
#include "driver/gemm_driver.hpp"
#include "gemm_fixture.hpp"
#include "split/scheme.hpp"
#include "support/address_space_limit.hpp"
#include "util/workspace.hpp"

// The allocation-failure test needs failed allocations to return NULL instead of ending the process.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace {

constexpr std::int64_t kOne = 1;

// An anonymous mapping that reserves no memory: only the pages a test writes (or the library reads) get backed.
class Mapping {
 public:
  explicit Mapping(std::size_t bytes, int prot = PROT_READ | PROT_WRITE) : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ptr_ = p == MAP_FAILED ? nullptr : p;
  }
  ~Mapping() {
    if (ptr_) munmap(ptr_, bytes_);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  bool ok() const { return ptr_ != nullptr; }

 private:
  void* ptr_;
  std::size_t bytes_;
};

struct Shape {
  int layout, ta, tb;
  std::int64_t m, n, k, lda, ldb, ldc;
};

template <typename T>
int call(const Shape& s, const T* a, const T* b, T* c, int mode) {
  if constexpr (sizeof(T) == 8)
    return bf16x_dgemm(bf16x_layout(s.layout), bf16x_transpose(s.ta), bf16x_transpose(s.tb), s.m, s.n, s.k, 1.0, a,
                       s.lda, b, s.ldb, 0.5, c, s.ldc, bf16x_mode(mode));
  else
    return bf16x_sgemm(bf16x_layout(s.layout), bf16x_transpose(s.ta), bf16x_transpose(s.tb), s.m, s.n, s.k, 1.0f, a,
                       s.lda, b, s.ldb, 0.5f, c, s.ldc, bf16x_mode(mode));
}

// Stored extents along and across the leading dimension (CBLAS: row-major stores the transpose).
struct Stored {
  std::int64_t rows, cols;
};
Stored stored_a(const Shape& s) {
  const bool t = s.ta != BF16X_NO_TRANS, col = s.layout == BF16X_COL_MAJOR;
  return col ? Stored{t ? s.k : s.m, t ? s.m : s.k} : Stored{t ? s.m : s.k, t ? s.k : s.m};
}
Stored stored_b(const Shape& s) {
  const bool t = s.tb != BF16X_NO_TRANS, col = s.layout == BF16X_COL_MAJOR;
  return col ? Stored{t ? s.n : s.k, t ? s.k : s.n} : Stored{t ? s.k : s.n, t ? s.n : s.k};
}
Stored stored_c(const Shape& s) { return s.layout == BF16X_COL_MAJOR ? Stored{s.m, s.n} : Stored{s.n, s.m}; }

template <typename T>
void expect_refused_untouched(const Shape& s, const char* what) {
  // A and B on a page that faults on any access; C on a read-only page: reading A/B or writing C kills the test.
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  Mapping none(page, PROT_NONE), cpage(page);
  ASSERT_TRUE(none.ok() && cpage.ok());
  T* c = cpage.as<T>();
  for (std::size_t i = 0; i < page / sizeof(T); ++i) c[i] = T(i);
  ASSERT_EQ(mprotect(c, page, PROT_READ), 0);
  for (int mode : {BF16X_MODE_NATIVE, sizeof(T) == 8 ? BF16X_MODE_FP64X21 : BF16X_MODE_FP32X6, BF16X_MODE_AUTO,
                   BF16X_MODE_DEFAULT})
    EXPECT_EQ(call<T>(s, none.as<T>(), none.as<T>(), c, mode), BF16X_ERR_SIZE) << what << ", mode " << mode;
  for (std::size_t i = 0; i < page / sizeof(T); ++i) ASSERT_EQ(c[i], T(i)) << what;
}

}  // namespace

TEST(SizeSafety, OverflowingExtentsAreRefusedBeforeAnyAccess) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  const int col = BF16X_COL_MAJOR, row = BF16X_ROW_MAJOR, N = BF16X_NO_TRANS, T = BF16X_TRANS;
  struct Case {
    const char* what;
    Shape s;
  };
  const Case cases[] = {
      // m*n = 2^64: C's extent (n-1)*ldc + m overflows.
      {"m*n", {col, N, N, kOne << 32, kOne << 32, 1, kOne << 32, 1, kOne << 32}},
      // lda*k = 2^64 with m = 2: A's extent overflows although m*k fits.
      {"lda*k", {col, N, N, 2, 2, kOne << 32, kOne << 32, kOne << 32, 2}},
      // (k-1)*lda: row-major A (m x k stored by rows of lda >= k).
      {"row-major lda*(m-1)", {row, N, N, kOne << 40, 2, kOne << 30, kOne << 30, 2, 2}},
      // k*n through a transposed B: ldb*(k-1) with ldb >= n.
      {"ldb*k transposed", {col, N, T, 2, kOne << 33, kOne << 33, 2, kOne << 33, 2}},
      // Elements fit int64, bytes do not: 2^61 doubles (or 2^62 floats) of A.
      {"bytes of A", {col, N, N, kOne << 62, 1, 1, kOne << 62, 1, kOne << 62}},
      // The leading dimension itself near the top of int64.
      {"ldc = INT64_MAX", {col, N, N, 2, 2, 2, 2, 2, big}},
      {"lda = INT64_MAX transposed", {row, T, N, 3, 3, 3, big, 3, 3}},
      // k = INT64_MAX with a one-column A.
      {"k = INT64_MAX", {col, T, N, 1, 1, big, big, big, 1}},
  };
  for (const Case& cs : cases) {
    expect_refused_untouched<double>(cs.s, cs.what);
    expect_refused_untouched<float>(cs.s, cs.what);
  }
}

// An empty product whose k is within 64 of INT64_MAX: every operand is empty, yet the size arithmetic (padding of k)
// must not overflow (UBSan reports it in the sanitizer run); the call quick-returns or refuses the size.
TEST(SizeSafety, EmptyProductWithHugeKIsNotAnOverflow) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  for (std::int64_t k : {big - 63, big}) {
    const int st = bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 0, 0, k, 1.0, nullptr, 1, nullptr, big,
                               0.0, nullptr, 1, BF16X_MODE_FP64X6);
    EXPECT_TRUE(st == BF16X_OK || st == BF16X_ERR_SIZE) << st;
  }
}

// A level-3 call keeps a copy of the part of its output it writes (put back if it fails midway): for an output no
// memory could hold (n = 2^31, 2^33: 2^61 to 2^65 elements) the copy's size must not wrap around, and the call
// returns BF16X_ERR_NOMEM (or BF16X_ERR_SIZE) before it reads or writes anything (the buffers here are one element).
TEST(SizeSafety, Level3OutputsNoMemoryCouldHoldAreRefusedBeforeAnyAccess) {
  // (The n x n C of SYRK and GEMMT: A (n x 1, lda n; 1 x n row-major) is not read before the copy either.)
  double a = 1, c = 2;
  for (std::int64_t n : {std::int64_t(1) << 31, std::int64_t(1) << 33}) {
    const int syrk =
        bf16x_dsyrk_ex(BF16X_COL_MAJOR, BF16X_LOWER, BF16X_NO_TRANS, n, 1, 1.0, &a, n, 0.0, &c, n, nullptr);
    EXPECT_TRUE(syrk == BF16X_ERR_NOMEM || syrk == BF16X_ERR_SIZE) << syrk;
    const int gemmt = bf16x_dgemmt_ex(BF16X_ROW_MAJOR, BF16X_UPPER, BF16X_NO_TRANS, BF16X_TRANS, n, 1, 1.0, &a, 1, &a,
                                      1, 1.0, &c, n, nullptr);
    EXPECT_TRUE(gemmt == BF16X_ERR_NOMEM || gemmt == BF16X_ERR_SIZE) << gemmt;
    EXPECT_EQ(c, 2.0);
  }
}

// Leading dimensions of 2^31+5, 2^32+3 and 2^32+7: lda*k, ldb*n and ldc*n pass 32-bit (signed and unsigned)
// indexing. The matrices sit in sparse mappings (16 to 32 GiB reserved, a few pages touched); entries are small
// integers, so every emulated mode is exact here (slices exact, k = 2 products exact in FP32): C must equal
// alpha*A*B + beta*C exactly, and the entry after each column of C (padding) must stay as it was.
TEST(SizeSafety, LeadingDimensionsBeyond32BitsIndexCorrectly) {
  const std::int64_t l1 = (kOne << 31) + 5, l2 = (kOne << 32) + 3, l3 = (kOne << 32) + 7;
  const Shape shapes[] = {
      {BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 3, 2, 2, l1, l2, l3},
      {BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, 2, 3, 2, l2, l1, l3},
      {BF16X_COL_MAJOR, BF16X_TRANS, BF16X_CONJ_TRANS, 2, 2, 3, l3, l2, l1},
  };
  for (const Shape& s : shapes) {
    const Stored sa = stored_a(s), sb = stored_b(s), sc = stored_c(s);
    const std::int64_t ea = (sa.cols - 1) * s.lda + sa.rows, eb = (sb.cols - 1) * s.ldb + sb.rows;
    const std::int64_t ec = (sc.cols - 1) * s.ldc + sc.rows + 1;  // + the padding entry after the last column
    Mapping ma(std::size_t(ea) * 8), mb(std::size_t(eb) * 8), mc(std::size_t(ec) * 8);
    ASSERT_TRUE(ma.ok() && mb.ok() && mc.ok()) << "cannot reserve sparse mappings (vm.overcommit_memory = 2?)";
    for (int dbl = 0; dbl < 2; ++dbl)
      for (int mode :
           dbl ? std::vector<int>{BF16X_MODE_FP64X6, BF16X_MODE_FP64X21} : std::vector<int>{BF16X_MODE_FP32X6})
        for (int engine : {BF16X_ENGINE_AUTO, BF16X_ENGINE_REFERENCE}) {
          // op(X)(i, j) of a stored matrix at flip ? (j, i) : (i, j).
          auto at = [](std::int64_t r, std::int64_t c, std::int64_t ld) { return r + c * ld; };
          const bool col = s.layout == BF16X_COL_MAJOR;
          const bool fa = col == (s.ta != BF16X_NO_TRANS), fb = col == (s.tb != BF16X_NO_TRANS);
          auto ia = [&](std::int64_t i, std::int64_t l) { return fa ? at(l, i, s.lda) : at(i, l, s.lda); };
          auto ib = [&](std::int64_t l, std::int64_t j) { return fb ? at(j, l, s.ldb) : at(l, j, s.ldb); };
          auto ic = [&](std::int64_t i, std::int64_t j) { return col ? at(i, j, s.ldc) : at(j, i, s.ldc); };
          auto run = [&](auto* a, auto* b, auto* c) {
            using T = std::remove_pointer_t<decltype(a)>;
            for (std::int64_t i = 0; i < s.m; ++i)
              for (std::int64_t l = 0; l < s.k; ++l) a[ia(i, l)] = T((i + 2 * l) % 7 - 3);
            for (std::int64_t l = 0; l < s.k; ++l)
              for (std::int64_t j = 0; j < s.n; ++j) b[ib(l, j)] = T((3 * l + j) % 5 - 2);
            for (std::int64_t j = 0; j < sc.cols; ++j) c[at(sc.rows, j, s.ldc)] = T(-99);  // padding
            for (std::int64_t i = 0; i < s.m; ++i)
              for (std::int64_t j = 0; j < s.n; ++j) c[ic(i, j)] = T(i - j);
            bf16x_options o;
            bf16x_options_init(&o);
            o.mode = mode;
            o.engine = engine;
            int st;
            if constexpr (sizeof(T) == 8)
              st = bf16x_dgemm_ex(bf16x_layout(s.layout), bf16x_transpose(s.ta), bf16x_transpose(s.tb), s.m, s.n, s.k,
                                  2.0, a, s.lda, b, s.ldb, 0.5, c, s.ldc, &o);
            else
              st = bf16x_sgemm_ex(bf16x_layout(s.layout), bf16x_transpose(s.ta), bf16x_transpose(s.tb), s.m, s.n, s.k,
                                  2.0f, a, s.lda, b, s.ldb, 0.5f, c, s.ldc, &o);
            ASSERT_EQ(st, BF16X_OK) << bf16x_mode_name(mode);
            for (std::int64_t i = 0; i < s.m; ++i)
              for (std::int64_t j = 0; j < s.n; ++j) {
                double want = 0.5 * double(i - j);
                for (std::int64_t l = 0; l < s.k; ++l) want += 2.0 * double(a[ia(i, l)]) * double(b[ib(l, j)]);
                ASSERT_EQ(double(c[ic(i, j)]), want) << bf16x_mode_name(mode) << " (" << i << "," << j << ")";
              }
            for (std::int64_t j = 0; j < sc.cols; ++j) ASSERT_EQ(c[at(sc.rows, j, s.ldc)], T(-99)) << "padding written";
          };
          if (dbl)
            run(ma.as<double>(), mb.as<double>(), mc.as<double>());
          else
            run(ma.as<float>(), mb.as<float>(), mc.as<float>());
        }
  }
}

using bf16x::test::AddressSpaceLimit;

// A 4096 x 4096 product with k = 1: the accumulator panel alone (2048 x 2048 FP64, or its FP32 equivalent) needs
// over 24 MiB while A and B take 64 KiB. C sits in a sparse mapping that is reserved before the limit and never
// touched (reads see zero pages), so the address space can be capped 16 MiB above its current size (more than the
// call's small allocations, less than the workspace even where the C library keeps up to 64 MiB of freed heap):
// the call must say BF16X_ERR_NOMEM and leave C as it was (all zero; alpha A B is not); with the limit lifted the
// library works again.
TEST(SizeSafety, WorkspaceAllocationFailureReturnsNoMemAndLeavesCUntouched) {
  const std::int64_t m = 4096, n = 4096;
  std::vector<double> a(std::size_t(m), 0.5), b(std::size_t(n), 0.25);
  std::vector<float> af(std::size_t(m), 0.5f), bf(std::size_t(n), 0.25f);
  Mapping cmap(std::size_t(m * n) * sizeof(double));
  ASSERT_TRUE(cmap.ok()) << "cannot reserve a sparse mapping (vm.overcommit_memory = 2?)";
  for (int mode : {BF16X_MODE_FP64X21, BF16X_MODE_FP32X6}) {
    const bool dbl = mode != BF16X_MODE_FP32X6;
    // Warm-up on another shape: the library's one-time state exists before the limit.
    bf16x::test::Problem<double> warm(70, 70, 40, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 1);
    ASSERT_EQ(warm.run(dbl ? mode : BF16X_MODE_FP64X6), BF16X_OK);
    bf16x::test::Problem<float> warmf(70, 70, 40, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 1);
    ASSERT_EQ(warmf.run(BF16X_MODE_FP32X6), BF16X_OK);
    const std::size_t need = bf16x::driver::workspace_bytes(m, n, 1, *bf16x::split::scheme_for_mode(mode), 0,
                                                            omp_get_max_threads(), dbl, false);
    ASSERT_GT(need, std::size_t(24) << 20);
    ASSERT_LT(bf16x::util::thread_workspace().capacity(), std::size_t(16) << 20) << "the call must allocate";
    int st;
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
    // The driver's own allocation: the guard (on by default for fp64x21) would send a k = 1 call to the host GEMM.
    o.guard = BF16X_GUARD_OFF;
    // The call's team of every thread, started last: the warm-ups run on one thread (too little work for more) and
    // libgomp lets the threads a smaller team leaves go; one it had to create under the limit would fail, and
    // libgomp ends the process then.
    int started = 0;
#pragma omp parallel num_threads(omp_get_max_threads()) reduction(+ : started)
    started += 1;
    ASSERT_EQ(started, omp_get_max_threads());
    {
      const AddressSpaceLimit limit(std::size_t(16) << 20);
      ASSERT_TRUE(limit.ok());
      st = dbl ? bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, 1, 1.0, a.data(), m, b.data(), 1,
                                0.0, cmap.as<double>(), m, &o)
               : bf16x_sgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, 1, 1.0f, af.data(), m, bf.data(),
                                1, 0.0f, cmap.as<float>(), m, &o);
    }
    EXPECT_EQ(st, BF16X_ERR_NOMEM) << bf16x_mode_name(mode);
    const auto* bytes = cmap.as<const unsigned char>();
    const std::size_t cbytes = std::size_t(m * n) * (dbl ? sizeof(double) : sizeof(float));
    std::size_t written = 0;
    for (std::size_t i = 0; i < cbytes; ++i) written += bytes[i] != 0;
    EXPECT_EQ(written, 0u) << "C written on ERR_NOMEM";
    bf16x::test::Problem<double> after(64, 64, 64, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 2);
    EXPECT_EQ(after.run(BF16X_MODE_FP64X21), BF16X_OK);
  }
}

// The workspace is bounded by the block sizes, the slices and the thread count: every shape, however large m, n or
// k, needs at most what one full accumulator panel with full packed panels needs (the 2048-row panel of a large
// square call), and that is well under 64 MiB. The C API and the stats of a call report the same number.
TEST(SizeSafety, WorkspaceIsBoundedIndependentlyOfTheShape) {
  const std::int64_t big = kOne << 40;
  const int threads = omp_get_max_threads();
  struct Case {
    int mode;
    bool dbl;
  };
  const Case cases[] = {{BF16X_MODE_FP32X6, false},
                        {BF16X_MODE_FP64X6, true},
                        {BF16X_MODE_FP64X10, true},
                        {BF16X_MODE_FP64X15, true},
                        {BF16X_MODE_FP64X21, true}};
  for (const Case& cs : cases)
    for (int fuse = 0; fuse < 2; ++fuse)
      for (int bk : {0, 96}) {
        const bf16x::split::Scheme& s = *bf16x::split::scheme_for_mode(cs.mode);
        auto bytes = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
          return bf16x::driver::workspace_bytes(m, n, k, s, bk, threads, cs.dbl, fuse != 0);
        };
        const std::size_t bound = bytes(big, big, big);
        EXPECT_LT(bound, std::size_t(64) << 20) << bf16x_mode_name(cs.mode);
        EXPECT_EQ(bytes(16384, 16384, 16384), bound) << bf16x_mode_name(cs.mode);
        for (std::int64_t m : {kOne, kOne << 5, kOne << 11, kOne * 8199, kOne << 33})
          for (std::int64_t n : {kOne, kOne * 33, kOne << 12, kOne << 31})
            for (std::int64_t k : {kOne, kOne * 300, kOne << 20, kOne << 36})
              EXPECT_LE(bytes(m, n, k), bound) << bf16x_mode_name(cs.mode) << " " << m << "x" << n << "x" << k;
        // Growing k beyond one panel depth, m beyond one panel's rows or n beyond its columns adds nothing.
        EXPECT_EQ(bytes(8192, 32, 8192), bytes(8192, 32, kOne << 30));
        EXPECT_EQ(bytes(8192, 8192, 8192), bytes(kOne << 30, kOne << 30, 8192));
      }
  // The C API and a call's stats agree with the driver.
  uint64_t api = 0;
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_FP64X21;
  o.engine = BF16X_ENGINE_REFERENCE;
  ASSERT_EQ(bf16x_workspace_bytes(1, BF16X_COL_MAJOR, 70, 50, 300, &o, &api), BF16X_OK);
  EXPECT_EQ(api, bf16x::driver::workspace_bytes(70, 50, 300, *bf16x::split::scheme_for_mode(BF16X_MODE_FP64X21), 0,
                                                threads, true, false));
  bf16x::test::Problem<double> p(70, 50, 300, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 3);
  bf16x_stats st{};
  ASSERT_EQ(p.run(BF16X_MODE_FP64X21, BF16X_ENGINE_REFERENCE, &st), BF16X_OK);
  EXPECT_EQ(st.workspace_bytes, api);
  o.mode = BF16X_MODE_NATIVE;
  ASSERT_EQ(bf16x_workspace_bytes(1, BF16X_COL_MAJOR, 70, 50, 300, &o, &api), BF16X_OK);
  EXPECT_EQ(api, 0u);
  o.mode = BF16X_MODE_FP64X6;
  EXPECT_EQ(bf16x_workspace_bytes(0, BF16X_COL_MAJOR, 70, 50, 300, &o, &api), BF16X_ERR_MODE);
  EXPECT_EQ(bf16x_workspace_bytes(1, BF16X_COL_MAJOR, -1, 50, 300, &o, &api), BF16X_ERR_M);
}

// The panel loops (jc over NC, ic over MC, pc over KC) change where the operands are packed, not the arithmetic:
// with panels of 256 x 256 (2 x 3 panels and two k windows here) every mode and option gives C bit for bit as
// with one panel.
TEST(SizeSafety, PanelSizesDoNotChangeResults) {
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (int tr = 0; tr < 2; ++tr)
      for (int variant = 0; variant < 4; ++variant)
        for (int mode : {BF16X_MODE_FP32X6, BF16X_MODE_FP64X6, BF16X_MODE_FP64X21}) {
          if (variant == 1 && mode == BF16X_MODE_FP32X6) continue;
          const int ta = tr ? BF16X_TRANS : BF16X_NO_TRANS, tb = tr ? BF16X_NO_TRANS : BF16X_TRANS;
          bf16x_options o;
          bf16x_options_init(&o);
          o.mode = mode;
          o.fuse_diagonals = variant == 1;
          o.block_k = variant == 2 ? 96 : 0;
          o.split = variant == 3 ? BF16X_SPLIT_PAPER : BF16X_SPLIT_SCALED;
          auto run = [&](auto& p, std::int64_t mc, std::int64_t nc) {
            bf16x::driver::set_panel_override(mc, nc);
            p.c.assign(p.c.size(), 0);
            for (std::int64_t i = 0; i < p.m; ++i)
              for (std::int64_t j = 0; j < p.n; ++j) p.c[p.at(p.layout, i, j, p.ldc)] = decltype(p.alpha)(p.c0(i, j));
            p.alpha = decltype(p.alpha)(-1.5);
            p.beta = decltype(p.alpha)(0.75);
            int st;
            if constexpr (sizeof(p.alpha) == 8)
              st = bf16x_dgemm_ex(bf16x_layout(p.layout), bf16x_transpose(p.ta), bf16x_transpose(p.tb), p.m, p.n, p.k,
                                  p.alpha, p.a.data(), p.lda, p.b.data(), p.ldb, p.beta, p.c.data(), p.ldc, &o);
            else
              st = bf16x_sgemm_ex(bf16x_layout(p.layout), bf16x_transpose(p.ta), bf16x_transpose(p.tb), p.m, p.n, p.k,
                                  p.alpha, p.a.data(), p.lda, p.b.data(), p.ldb, p.beta, p.c.data(), p.ldc, &o);
            bf16x::driver::set_panel_override(0, 0);
            EXPECT_EQ(st, BF16X_OK);
            return p.c;
          };
          auto check = [&](auto& p) {
            const auto one = run(p, 0, 0);
            EXPECT_EQ(run(p, 256, 256), one) << bf16x_mode_name(mode) << " variant " << variant;
            EXPECT_EQ(run(p, 512, 256), one) << bf16x_mode_name(mode) << " variant " << variant;
          };
          const std::uint64_t seed = std::uint64_t(layout * 16 + tr * 4 + variant);
          if (mode == BF16X_MODE_FP32X6) {
            bf16x::test::Problem<float> p(300, 530, 400, layout, ta, tb, seed, 3, -6, 6);
            check(p);
          } else {
            bf16x::test::Problem<double> p(300, 530, 400, layout, ta, tb, seed, 3, -6, 6);
            check(p);
          }
        }
}

// Many calls of varying shapes and modes on one thread: the workspace never holds more than the largest request
// so far (rounded to 64 bytes) and allocates only when a call needs more than it holds, so repeated calls do not
// reallocate and the memory held is bounded by the largest call, not by the number of calls.
TEST(SizeSafety, WorkspaceStaysBoundedAcrossCallsOfVaryingSizes) {
  namespace drv = bf16x::driver;
  // On a fresh thread, so the workspace starts empty whatever ran before.
  std::thread([] {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::int64_t> dim(1, 160);
    const int modes[] = {BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21,
                         BF16X_MODE_FP32X6};
    std::size_t largest = 0, growths = 0;
    const std::size_t allocations0 = bf16x::util::workspace_allocations();
    for (int call = 0; call < 120; ++call) {
      const std::int64_t m = dim(rng), n = dim(rng), k = dim(rng) * (call % 4 + 1);
      const int mode = modes[call % 5];
      const bool dbl = mode != BF16X_MODE_FP32X6;
      const std::size_t need =
          (drv::workspace_bytes(m, n, k, *bf16x::split::scheme_for_mode(mode), 0, omp_get_max_threads(), dbl, false) +
           63) /
          64 * 64;
      if (need > largest) {
        largest = need;
        ++growths;
      }
      int st;
      if (dbl) {
        bf16x::test::Problem<double> p(m, n, k, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, std::uint64_t(call));
        st = p.run(mode);
      } else {
        bf16x::test::Problem<float> p(m, n, k, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, std::uint64_t(call));
        st = p.run(mode);
      }
      ASSERT_EQ(st, BF16X_OK);
      ASSERT_LE(bf16x::util::thread_workspace().capacity(), largest) << "call " << call;
    }
    // Other threads of this process do not call the library meanwhile, so the count is this thread's.
    EXPECT_LE(bf16x::util::workspace_allocations() - allocations0, growths);
    EXPECT_GT(bf16x::util::thread_workspace().capacity(), 0u);
  }).join();
}

// The retention rule itself: a workspace above kRetainBytes is released after its call (address space only: the
// memory is never touched).
TEST(SizeSafety, WorkspaceAboveTheRetainLimitIsReleased) {
  bf16x::util::Workspace ws;
  ASSERT_NE(ws.reserve(bf16x::util::Workspace::kRetainBytes + 64), nullptr);
  ws.release_if_large();
  EXPECT_EQ(ws.capacity(), 0u);
  ASSERT_NE(ws.reserve(1 << 20), nullptr);
  ws.release_if_large();
  EXPECT_EQ(ws.capacity(), std::size_t(1) << 20);
}
