// The C API's status contract: every invalid argument gives its status and leaves C untouched; quick returns
// follow BLAS (m or n = 0: nothing; alpha = 0 or k = 0: C = beta C, beta = 0 without reading C); names round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x.hpp"

namespace {

struct Call {
  int layout = BF16X_COL_MAJOR, ta = BF16X_NO_TRANS, tb = BF16X_NO_TRANS;
  std::int64_t m = 4, n = 3, k = 5, lda = 4, ldb = 5, ldc = 4;
  int mode = BF16X_MODE_FP64X6;
  const double* a;
  const double* b;
  double* c;
  int run() const {
    return bf16x_dgemm(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, 1.0, a, lda, b, ldb,
                       0.5, c, ldc, bf16x_mode(mode));
  }
};

}  // namespace

TEST(Api, InvalidArgumentsReturnStatusAndLeaveCUntouched) {
  std::vector<double> a(100, 1.0), b(100, 1.0), c(100, 7.0);
  const std::vector<double> c_before = c;
  Call base{};
  base.a = a.data();
  base.b = b.data();
  base.c = c.data();
  ASSERT_EQ(base.run(), BF16X_OK);  // the base call is valid
  c = c_before;
  struct Case {
    const char* what;
    void (*mutate)(Call&);
    int status;
  };
  const Case cases[] = {
      {"layout", [](Call& x) { x.layout = 100; }, BF16X_ERR_LAYOUT},
      {"transa", [](Call& x) { x.ta = 'N'; }, BF16X_ERR_TRANS_A},
      {"transb", [](Call& x) { x.tb = 0; }, BF16X_ERR_TRANS_B},
      {"m", [](Call& x) { x.m = -1; }, BF16X_ERR_M},
      {"n", [](Call& x) { x.n = -1; }, BF16X_ERR_N},
      {"k", [](Call& x) { x.k = -1; }, BF16X_ERR_K},
      {"lda", [](Call& x) { x.lda = 3; }, BF16X_ERR_LDA},
      {"lda transposed",
       [](Call& x) {
         x.ta = BF16X_TRANS;
         x.lda = 4;
       },
       BF16X_ERR_LDA},
      {"ldb", [](Call& x) { x.ldb = 4; }, BF16X_ERR_LDB},
      {"ldc", [](Call& x) { x.ldc = 3; }, BF16X_ERR_LDC},
      {"ldc row-major",
       [](Call& x) {
         x.layout = BF16X_ROW_MAJOR;
         x.lda = 5;
         x.ldb = 3;
         x.ldc = 2;
       },
       BF16X_ERR_LDC},
      {"null C", [](Call& x) { x.c = nullptr; }, BF16X_ERR_NULL},
      {"null A", [](Call& x) { x.a = nullptr; }, BF16X_ERR_NULL},
      {"mode for sgemm", [](Call& x) { x.mode = BF16X_MODE_FP32X6; }, BF16X_ERR_MODE},
      {"mode out of range", [](Call& x) { x.mode = 99; }, BF16X_ERR_MODE},
      {"size overflow",
       [](Call& x) {
         x.m = std::int64_t(1) << 40;
         x.n = std::int64_t(1) << 40;
         x.lda = x.ldc = x.m;
       },
       BF16X_ERR_SIZE},
  };
  for (const Case& cs : cases) {
    Call x = base;
    cs.mutate(x);
    EXPECT_EQ(x.run(), cs.status) << cs.what;
    EXPECT_EQ(std::memcmp(c.data(), c_before.data(), c.size() * sizeof(double)), 0) << cs.what << ": C was written";
    EXPECT_STRNE(bf16x_status_string(cs.status), "unknown status");
  }
}

TEST(Api, QuickReturnsFollowBlas) {
  std::vector<double> a(16, NAN), b(16, NAN), c(16, 3.0);
  // alpha = 0: A and B are not read (they hold NaN), C = beta C.
  ASSERT_EQ(bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 4, 4, 4, 0.0, a.data(), 4, b.data(), 4, 2.0,
                        c.data(), 4, BF16X_MODE_FP64X21),
            BF16X_OK);
  for (double v : c) EXPECT_EQ(v, 6.0);
  // k = 0 and beta = 0: C = 0 even where it held NaN.
  std::fill(c.begin(), c.end(), NAN);
  ASSERT_EQ(bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 4, 4, 0, 1.0, a.data(), 4, b.data(), 1, 0.0,
                        c.data(), 4, BF16X_MODE_FP64X21),
            BF16X_OK);
  for (double v : c) EXPECT_EQ(v, 0.0);
  // m = 0: nothing is touched, NULL pointers are fine.
  EXPECT_EQ(bf16x_sgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 0, 4, 4, 1.f, nullptr, 1, nullptr, 4, 0.f,
                        nullptr, 1, BF16X_MODE_FP32X6),
            BF16X_OK);
}

// alpha = 0 or k = 0 with beta = 1: the reference BLAS returns before touching C, so C keeps its bits exactly;
// a signalling NaN stays signalling (1 * sNaN would quieten it) and -0 stays -0.
template <typename T, typename Bits>
void expect_untouched_with_beta_one(int mode) {
  std::vector<T> a(16, T(NAN)), b(16, T(NAN)), c(16);
  const Bits snan = sizeof(T) == 8 ? Bits(0x7ff0000000000001ull) : Bits(0x7f800001u);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = T(0.25) * T(i) - T(1);
  std::memcpy(&c[3], &snan, sizeof snan);
  c[5] = T(-0.0);
  const std::vector<T> before = c;
  for (int k : {4, 0}) {
    const T alpha = k == 0 ? T(1) : T(0);
    int st;
    if constexpr (sizeof(T) == 8)
      st = bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 4, 4, k, alpha, a.data(), 4, b.data(), 4, 1.0,
                       c.data(), 4, bf16x_mode(mode));
    else
      st = bf16x_sgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 4, 4, k, alpha, a.data(), 4, b.data(), 4, 1.0f,
                       c.data(), 4, bf16x_mode(mode));
    ASSERT_EQ(st, BF16X_OK);
    EXPECT_EQ(std::memcmp(c.data(), before.data(), c.size() * sizeof(T)), 0) << "k = " << k;
  }
}

TEST(Api, QuickReturnWithBetaOneLeavesCBitForBit) {
  for (int mode : {BF16X_MODE_NATIVE, BF16X_MODE_AUTO, BF16X_MODE_FP64X6, BF16X_MODE_FP64X21})
    expect_untouched_with_beta_one<double, std::uint64_t>(mode);
  for (int mode : {BF16X_MODE_NATIVE, BF16X_MODE_AUTO, BF16X_MODE_FP32X6})
    expect_untouched_with_beta_one<float, std::uint32_t>(mode);
}

TEST(Api, NonFiniteInputsTakeTheHostPathAndKeepIeeeClasses) {
  // A NaN and an Inf in A: rows 0 and 1 of C must be NaN / Inf exactly as the host GEMM gives them.
  const std::int64_t n = 8;
  std::vector<double> a(n * n, 0.5), b(n * n, 0.25), c(n * n, 0.0);
  a[0] = NAN;
  a[1] = INFINITY;
  ASSERT_EQ(bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                        c.data(), n, BF16X_MODE_FP64X6),
            BF16X_OK);
  for (std::int64_t j = 0; j < n; ++j) {
    EXPECT_TRUE(std::isnan(c[0 + j * n]));
    EXPECT_EQ(c[1 + j * n], INFINITY);
    EXPECT_EQ(c[2 + j * n], 0.5 * 0.25 * n);
  }
}

TEST(Api, NamesRoundTrip) {
  for (int m = BF16X_MODE_DEFAULT; m <= BF16X_MODE_AUTO; ++m) EXPECT_EQ(bf16x_mode_from_name(bf16x_mode_name(m)), m);
  for (int e = BF16X_ENGINE_AUTO; e <= BF16X_ENGINE_AVX2; ++e)
    EXPECT_EQ(bf16x_engine_from_name(bf16x_engine_name(e)), e);
  EXPECT_EQ(bf16x_mode_from_name("fp64x7"), -1);
  EXPECT_EQ(bf16x_engine_available(BF16X_ENGINE_REFERENCE), 1);
  EXPECT_GT(bf16x_engine_selected(), 0);
}

TEST(Api, StatsReportTheModeAndEngineThatRan) {
  std::vector<double> a(64 * 64, 0.5), b(64 * 64, 0.5), c(64 * 64, 0.0);
  bf16x_stats st{};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_FP64X10;
  o.engine = BF16X_ENGINE_REFERENCE;
  o.stats = &st;
  ASSERT_EQ(bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 64, 64, 64, 1.0, a.data(), 64, b.data(), 64,
                           0.0, c.data(), 64, &o),
            BF16X_OK);
  EXPECT_EQ(st.mode, BF16X_MODE_FP64X10);
  EXPECT_EQ(st.engine, BF16X_ENGINE_REFERENCE);
  EXPECT_EQ(st.micro_tiles, 4u);                // (64/32)^2 micro-tiles, one k-block
  EXPECT_EQ(st.dot_products, 4u * 10 * 2 * 4);  // micro-tiles x products x k-chunks x 4 quadrants
  o.mode = BF16X_MODE_NATIVE;
  ASSERT_EQ(bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 64, 64, 64, 1.0, a.data(), 64, b.data(), 64,
                           0.0, c.data(), 64, &o),
            BF16X_OK);
  EXPECT_EQ(st.mode, BF16X_MODE_NATIVE);
  EXPECT_EQ(st.engine, -1);
}

// Versions 3 and 4 of the stats: the phases lie inside the call, and each O(n^2) phase's bytes are what it must move
// (docs/performance.md, "Phases"): the scan reads A and B, the pack reads them and writes at least one BF16 slice
// (INT8 residue per modulus) of each, the write writes C (and reads it where beta != 0; the CRT modes write and read
// one residue byte per modulus, and with more than one k-block (k > 2048) read one int32 sum per modulus first). The
// tile operations of a CRT call: TDPBSSD (16 x 16 x 64) per 32 x 32 tile and 64 of k, over the bound product and the
// N residue products.
TEST(Api, StatsPhasesAndTheirBytes) {
  constexpr std::int64_t m = 100, n = 90;
  // The phases are the first thread's: on a team, its dynamic share of these few blocks may be none (seen under
  // ASan), and its sums then 0. One thread does all the work.
  ASSERT_EQ(bf16x_set_num_threads(1), BF16X_OK);
  struct Restore {
    ~Restore() { bf16x_set_num_threads(0); }
  } restore;
  for (const std::int64_t k : {300, 2100})
    for (const int mode : {BF16X_MODE_FP64X10, BF16X_MODE_FP64C(8)})
      for (const double beta : {0.0, 0.5}) {
        std::vector<double> a(m * k), b(k * n), c(m * n, 1.0);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(double(i));
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(double(i));
        const double ab = double(m * k + k * n);
        bf16x_stats st{};
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = mode;
        o.guard = BF16X_GUARD_OFF;
        o.stats = &st;
        const auto t0 = std::chrono::steady_clock::now();
        ASSERT_EQ(bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0, a.data(), m, b.data(),
                                 k, beta, c.data(), m, &o),
                  BF16X_OK);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        SCOPED_TRACE(bf16x_mode_name(mode));
        for (double s : {st.seconds_scan, st.seconds_pack, st.seconds_products, st.seconds_write}) EXPECT_GE(s, 0.0);
        EXPECT_GT(st.seconds_products, 0.0);
        EXPECT_LE(st.seconds_scan + st.seconds_pack + st.seconds_products + st.seconds_write, wall);
        const bool crt = mode != BF16X_MODE_FP64X10;
        // Version 4: the sums outside the engine are part of the products phase. fp64x10 widens its group sums at
        // every k-block; this CRT call's int32 sums never need a reduction between k-blocks (2100 of k).
        EXPECT_GE(st.seconds_sums, 0.0);
        EXPECT_LE(st.seconds_sums, st.seconds_products);
        if (!crt) {
          EXPECT_GT(st.seconds_sums, 0.0);
        }
        const double moduli = crt ? 8 : 0;
        const double c_bytes = double(m * n) * 8 * (beta != 0 ? 2 : 1);
        EXPECT_EQ(double(st.bytes_write), c_bytes + double(m * n) * (k > 2048 ? 6 : 2) * moduli);
        EXPECT_GE(double(st.bytes_pack), ab * 8 + ab * (crt ? moduli : 2));
        if (crt) {
          EXPECT_GE(double(st.bytes_scan), ab * 8 * 2);  // the scan and the bound product's loads
          const std::uint64_t tiles = ((m + 31) / 32) * ((n + 31) / 32) * ((k + 63) / 64) * 4;
          EXPECT_EQ(st.dot_products, tiles * (8 + 1));
        } else {
          EXPECT_EQ(double(st.bytes_scan), ab * 8);
        }
      }
}

// A guarded call's driver takes each line's scale exponent from the guard's envelope pass, which read the operands
// already, instead of scanning them again: its scan reads nothing then (bytes_scan one read of A and B less than
// the same call unguarded, where the CRT's bound product still loads them), and C has the same bits, the exponents
// being the scan's own (ErrorModel.FillPassGivesTheEnvelopeOfItsDefinition holds them to it). Both layouts of
// op(A), the slice and the CRT drivers, 1 and 2 threads.
TEST(Api, GuardedCallsTakeTheScaleExponentsOfTheGuardsRead) {
  constexpr std::int64_t m = 100, n = 90, k = 300;
  const double ab = double(m * k + k * n);
  std::vector<double> a(m * k), b(k * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(double(i)) * std::ldexp(1.0, int(i % 7));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(double(i));
  for (const int threads : {1, 2}) {
    ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
    for (const int mode : {BF16X_MODE_FP64X21, BF16X_MODE_FP64C(15)})
      for (const bf16x_transpose ta : {BF16X_NO_TRANS, BF16X_TRANS}) {
        SCOPED_TRACE(std::string(bf16x_mode_name(mode)) + (ta == BF16X_TRANS ? " A^T" : "") + " threads " +
                     std::to_string(threads));
        std::vector<double> c[2];
        bf16x_stats st[2];
        for (const int guard : {0, 1}) {
          c[guard].assign(m * n, 0.0);
          bf16x_stats_init(&st[guard]);
          bf16x_options o;
          bf16x_options_init(&o);
          o.mode = mode;
          o.guard = guard ? BF16X_GUARD_ON : BF16X_GUARD_OFF;
          o.stats = &st[guard];
          ASSERT_EQ(bf16x_dgemm_ex(BF16X_COL_MAJOR, ta, BF16X_NO_TRANS, m, n, k, 1.0, a.data(),
                                   ta == BF16X_TRANS ? k : m, b.data(), k, 0.0, c[guard].data(), m, &o),
                    BF16X_OK);
        }
        ASSERT_EQ(st[1].guard, BF16X_GUARD_ENVELOPE);
        EXPECT_EQ(double(st[0].bytes_scan) - double(st[1].bytes_scan), ab * 8);
        EXPECT_EQ(c[0], c[1]);
      }
  }
  ASSERT_EQ(bf16x_set_num_threads(0), BF16X_OK);
}

TEST(Api, CppWrapperThrowsOnErrorAndComputes) {
  std::vector<double> a(9, 1.0), b(9, 2.0), c(9, 0.0);
  bf16x::dgemm(bf16x::Layout::col_major, bf16x::Op::none, bf16x::Op::none, 3, 3, 3, 1.0, a.data(), 3, b.data(), 3, 0.0,
               c.data(), 3, bf16x::Mode::fp64x21);
  for (double v : c) EXPECT_EQ(v, 6.0);
  EXPECT_THROW(bf16x::dgemm(bf16x::Layout::col_major, bf16x::Op::none, bf16x::Op::none, 3, 3, 3, 1.0, a.data(), 2,
                            b.data(), 3, 0.0, c.data(), 3, bf16x::Mode::fp64x21),
               bf16x::Error);
}

// Every mode of the C API has its bf16x::Mode enumerator, named as the mode is (default_mode and automatic for
// "default" and "auto"), with the same value; found by asking the library for every value's name, so a C mode
// added without its C++ enumerator fails here.
TEST(Api, CppModeHasEveryCMode) {
  // clang-format off
#define BF16X_CXX_MODE(m) {bf16x::Mode::m, #m}
  const std::pair<bf16x::Mode, std::string> cxx[] = {
      {bf16x::Mode::default_mode, "default"}, {bf16x::Mode::automatic, "auto"},
      BF16X_CXX_MODE(native),  BF16X_CXX_MODE(fp32x6),  BF16X_CXX_MODE(fp64x6),  BF16X_CXX_MODE(fp64x10),
      BF16X_CXX_MODE(fp64x15), BF16X_CXX_MODE(fp64x21), BF16X_CXX_MODE(fp64cr),  BF16X_CXX_MODE(fp32cr),
      BF16X_CXX_MODE(fp64c8),  BF16X_CXX_MODE(fp64c9),  BF16X_CXX_MODE(fp64c10), BF16X_CXX_MODE(fp64c11),
      BF16X_CXX_MODE(fp64c12), BF16X_CXX_MODE(fp64c13), BF16X_CXX_MODE(fp64c14), BF16X_CXX_MODE(fp64c15),
      BF16X_CXX_MODE(fp64c16), BF16X_CXX_MODE(fp64c17), BF16X_CXX_MODE(fp64c18), BF16X_CXX_MODE(fp64c19),
      BF16X_CXX_MODE(fp64c20), BF16X_CXX_MODE(fp32c5),  BF16X_CXX_MODE(fp32c6),  BF16X_CXX_MODE(fp32c7),
      BF16X_CXX_MODE(fp32c8),  BF16X_CXX_MODE(fp32c9),  BF16X_CXX_MODE(fp32c10), BF16X_CXX_MODE(fp32x3)};
#undef BF16X_CXX_MODE
  // clang-format on
  int c_modes = 0;
  for (int v = -16; v < 1024; ++v) {
    const char* name = bf16x_mode_name(v);
    if (!name) continue;
    ++c_modes;
    const auto it = std::find_if(std::begin(cxx), std::end(cxx), [&](const auto& e) { return e.second == name; });
    ASSERT_NE(it, std::end(cxx)) << "C mode " << name << " (" << v << ") has no bf16x::Mode enumerator";
    EXPECT_EQ(static_cast<int>(it->first), v) << name;
  }
  EXPECT_EQ(c_modes, static_cast<int>(std::size(cxx)));  // and no C++ enumerator without its C mode
  // The CRT and correctly rounded modes run through the wrapper.
  std::vector<double> a(9, 1.0), b(9, 2.0), c(9, 0.0);
  for (bf16x::Mode m : {bf16x::Mode::fp64c15, bf16x::Mode::fp64cr}) {
    bf16x::dgemm(bf16x::Layout::col_major, bf16x::Op::none, bf16x::Op::none, 3, 3, 3, 1.0, a.data(), 3, b.data(), 3,
                 0.0, c.data(), 3, m);
    for (double x : c) EXPECT_EQ(x, 6.0);
  }
}
