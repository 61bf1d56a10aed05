// The size protocol of bf16x_options and bf16x_stats (bf16x.h, "Versioned structs"): the library reads no more of
// a caller's options, and writes no more of its stats, than the caller's `size` says; an older caller (the first
// version's size) and a newer one (a bigger struct, unknown bytes after the library's fields) both work; a size
// below the first version's is BF16X_ERR_OPTIONS with C untouched. Each caller's struct lives in a heap block of
// exactly its size followed by guard bytes: a build with ASan reports any access past `size`, every build sees
// writes into the guards.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "bf16x/bf16x.h"

namespace {

constexpr std::size_t kGuard = 64;
constexpr unsigned char kFill = 0xA5;

// `size` bytes a caller owns, then kGuard guard bytes in a separate heap block right after it in the test's view
// (ASan: the caller's block has no slack, so reading or writing one byte past it is reported).
struct CallerStruct {
  explicit CallerStruct(std::size_t n) : size(n), bytes(new unsigned char[n]), guard(kGuard, kFill) {
    std::memset(bytes.get(), kFill, n);
  }
  template <typename S>
  S* as() {
    return reinterpret_cast<S*>(bytes.get());
  }
  void set_size_field(std::size_t v) { std::memcpy(bytes.get(), &v, sizeof v); }
  bool tail_is_fill(std::size_t from) const {
    for (std::size_t i = from; i < size; ++i)
      if (bytes[i] != kFill) return false;
    return true;
  }
  std::size_t size;
  std::unique_ptr<unsigned char[]> bytes;
  std::vector<unsigned char> guard;
};

// Options of `size` bytes: the library's defaults for what fits, mode fp64x6 (which every CPU runs), stats as given.
CallerStruct options_of(std::size_t size, bf16x_stats* stats) {
  CallerStruct o(size);
  bf16x_options full;
  bf16x_options_init(&full);
  full.mode = BF16X_MODE_FP64X6;
  full.stats = stats;
  std::memcpy(o.bytes.get(), &full, std::min(size, sizeof full));
  o.set_size_field(size);
  return o;
}

struct Problem {
  static constexpr int n = 24;
  std::vector<double> a, b, c;
  Problem() : a(n * n), b(n * n), c(n * n, -7.0) {
    for (int i = 0; i < n * n; ++i) {
      a[i] = 0.25 * (i % 7) - 0.5;
      b[i] = 0.125 * (i % 5) + 1.0;
    }
  }
  int run(const void* opt) {
    return bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                          c.data(), n, static_cast<const bf16x_options*>(opt));
  }
};

// The result with the caller's struct at the library's own size.
std::vector<double> reference_c() {
  Problem p;
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_FP64X6;
  EXPECT_EQ(p.run(&o), BF16X_OK);
  return p.c;
}

TEST(Abi, FirstVersionSizesAreTheFieldsOfToday) {
  EXPECT_EQ(BF16X_OPTIONS_SIZE_1, offsetof(bf16x_options, complex_method) + sizeof(int));
  EXPECT_EQ(BF16X_STATS_SIZE_1, offsetof(bf16x_stats, workspace_bytes) + sizeof(std::uint64_t));
  // Version 2 appended the guard (bf16x_options.guard; bf16x_stats.entries_repaired, .guard) after them.
  EXPECT_EQ(BF16X_OPTIONS_SIZE_2, offsetof(bf16x_options, guard) + sizeof(int));
  EXPECT_EQ(offsetof(bf16x_options, guard), BF16X_OPTIONS_SIZE_1);
  EXPECT_EQ(BF16X_STATS_SIZE_2, offsetof(bf16x_stats, guard) + sizeof(int));
  EXPECT_EQ(offsetof(bf16x_stats, entries_repaired), BF16X_STATS_SIZE_1);
  EXPECT_LE(BF16X_OPTIONS_SIZE_2, sizeof(bf16x_options));
  EXPECT_LE(BF16X_STATS_SIZE_2, sizeof(bf16x_stats));
  // Version 3 appended the phases (bf16x_stats.seconds_scan .. bytes_write) after them.
  EXPECT_EQ(BF16X_STATS_SIZE_3, offsetof(bf16x_stats, bytes_write) + sizeof(std::uint64_t));
  EXPECT_EQ(offsetof(bf16x_stats, seconds_scan), (BF16X_STATS_SIZE_2 + 7) / 8 * 8);  // past the int guard's padding
  EXPECT_LE(BF16X_STATS_SIZE_3, sizeof(bf16x_stats));
  // Version 4 appended bf16x_stats.seconds_sums.
  EXPECT_EQ(BF16X_STATS_SIZE_4, offsetof(bf16x_stats, seconds_sums) + sizeof(double));
  EXPECT_EQ(offsetof(bf16x_stats, seconds_sums), BF16X_STATS_SIZE_3);
  EXPECT_LE(BF16X_STATS_SIZE_4, sizeof(bf16x_stats));
  EXPECT_EQ(offsetof(bf16x_options, size), 0u);
  EXPECT_EQ(offsetof(bf16x_stats, size), 0u);
  EXPECT_LE(BF16X_OPTIONS_SIZE_1, sizeof(bf16x_options));
  EXPECT_LE(BF16X_STATS_SIZE_1, sizeof(bf16x_stats));
}

TEST(Abi, CxxValueInitialisationIsInit) {
  const bf16x_stats st{};
  EXPECT_EQ(st.size, sizeof(bf16x_stats));
  const bf16x_options o{};
  bf16x_options init;
  std::memset(static_cast<void*>(&init), 0x5A, sizeof init);  // the bytes a C caller may leave
  ASSERT_EQ(bf16x_options_init(&init), BF16X_OK);
  EXPECT_EQ(o.size, sizeof(bf16x_options));
  EXPECT_EQ(init.size, sizeof(bf16x_options));
  EXPECT_EQ(o.mode, init.mode);
  EXPECT_EQ(o.engine, init.engine);
  EXPECT_EQ(o.split, init.split);
  EXPECT_EQ(o.block_k, init.block_k);
  EXPECT_EQ(o.auto_target, init.auto_target);
  EXPECT_EQ(o.stats, init.stats);
  EXPECT_EQ(o.complex_method, init.complex_method);
  EXPECT_EQ(o.guard, init.guard);
  EXPECT_EQ(o.guard, BF16X_GUARD_DEFAULT);
}

TEST(Abi, InitWritesExactlyTheSizeItIsGiven) {
  // An older caller: the first version's size; a newer one: 40 bytes more, which init zeroes (a later field's
  // default is 0).
  for (std::size_t size : {std::size_t(BF16X_OPTIONS_SIZE_1), sizeof(bf16x_options), sizeof(bf16x_options) + 40}) {
    CallerStruct o(size);
    ASSERT_EQ(bf16x_options_init_sized(o.as<bf16x_options>(), size), BF16X_OK) << size;
    std::size_t got;
    std::memcpy(&got, o.bytes.get(), sizeof got);
    EXPECT_EQ(got, size);
    for (std::size_t i = sizeof(bf16x_options); i < size; ++i) EXPECT_EQ(o.bytes[i], 0) << i;
    EXPECT_EQ(o.guard, std::vector<unsigned char>(kGuard, kFill));
  }
  for (std::size_t size : {std::size_t(BF16X_STATS_SIZE_1), sizeof(bf16x_stats) + 24}) {
    CallerStruct s(size);
    ASSERT_EQ(bf16x_stats_init_sized(s.as<bf16x_stats>(), size), BF16X_OK) << size;
    for (std::size_t i = sizeof(std::size_t); i < size; ++i) EXPECT_EQ(s.bytes[i], 0) << i;
  }
  // Below the first version: refused, nothing written.
  for (std::size_t size : {std::size_t(0), std::size_t(8), std::size_t(BF16X_OPTIONS_SIZE_1 - 1)}) {
    CallerStruct o(BF16X_OPTIONS_SIZE_1);
    EXPECT_EQ(bf16x_options_init_sized(o.as<bf16x_options>(), size), BF16X_ERR_OPTIONS) << size;
    EXPECT_TRUE(o.tail_is_fill(0));
  }
  CallerStruct s(BF16X_STATS_SIZE_1);
  EXPECT_EQ(bf16x_stats_init_sized(s.as<bf16x_stats>(), BF16X_STATS_SIZE_1 - 1), BF16X_ERR_OPTIONS);
  EXPECT_TRUE(s.tail_is_fill(0));
  EXPECT_EQ(bf16x_options_init_sized(nullptr, sizeof(bf16x_options)), BF16X_ERR_NULL);
  EXPECT_EQ(bf16x_stats_init_sized(nullptr, sizeof(bf16x_stats)), BF16X_ERR_NULL);
}

TEST(Abi, OlderAndNewerCallersGetTheSameProduct) {
  const std::vector<double> want = reference_c();
  for (std::size_t size : {std::size_t(BF16X_OPTIONS_SIZE_1), std::size_t(BF16X_OPTIONS_SIZE_2), sizeof(bf16x_options),
                           sizeof(bf16x_options) + 32}) {
    Problem p;
    CallerStruct o = options_of(size, nullptr);  // past the library's fields: kFill garbage it must ignore
    ASSERT_EQ(p.run(o.bytes.get()), BF16X_OK) << size;
    EXPECT_EQ(std::memcmp(p.c.data(), want.data(), want.size() * sizeof(double)), 0) << size;
    EXPECT_TRUE(o.tail_is_fill(sizeof(bf16x_options))) << "the library wrote into the caller's options";
    EXPECT_EQ(o.guard, std::vector<unsigned char>(kGuard, kFill));
  }
}

TEST(Abi, StatsAreWrittenUpToTheCallersSizeOnly) {
  for (std::size_t size :
       {std::size_t(BF16X_STATS_SIZE_1), std::size_t(BF16X_STATS_SIZE_2), std::size_t(BF16X_STATS_SIZE_3),
        std::size_t(BF16X_STATS_SIZE_4), sizeof(bf16x_stats) + 32}) {
    CallerStruct s(size);
    ASSERT_EQ(bf16x_stats_init_sized(s.as<bf16x_stats>(), size), BF16X_OK);
    std::memset(s.bytes.get() + sizeof(std::size_t), kFill, size - sizeof(std::size_t));
    Problem p;
    CallerStruct o = options_of(sizeof(bf16x_options), s.as<bf16x_stats>());
    ASSERT_EQ(p.run(o.bytes.get()), BF16X_OK) << size;
    bf16x_stats st;
    std::memcpy(static_cast<void*>(&st), s.bytes.get(), BF16X_STATS_SIZE_1);
    EXPECT_EQ(st.size, size);  // the caller's own field, never rewritten
    EXPECT_EQ(st.mode, BF16X_MODE_FP64X6);
    EXPECT_GE(st.engine, 0);
    EXPECT_GT(st.micro_tiles, 0u);
    // A newer caller's fields that this library does not know stay as they were.
    EXPECT_TRUE(s.tail_is_fill(sizeof(bf16x_stats))) << size;
    EXPECT_EQ(s.guard, std::vector<unsigned char>(kGuard, kFill));
  }
}

// Every entry point that takes options refuses a struct smaller than the first version, options or stats, before
// anything is written.
TEST(Abi, SizesBelowTheFirstVersionAreRefusedWithCUntouched) {
  struct Case {
    std::size_t opt_size, stats_size;
  };
  for (const Case cs : {Case{0, sizeof(bf16x_stats)}, Case{BF16X_OPTIONS_SIZE_1 - 1, sizeof(bf16x_stats)},
                        Case{sizeof(bf16x_options), 0}, Case{sizeof(bf16x_options), BF16X_STATS_SIZE_1 - 8}}) {
    CallerStruct s(std::max<std::size_t>(cs.stats_size, sizeof(std::size_t)));
    s.set_size_field(cs.stats_size);
    CallerStruct o = options_of(std::max<std::size_t>(cs.opt_size, sizeof(std::size_t)), s.as<bf16x_stats>());
    o.set_size_field(cs.opt_size);
    const auto* opt = o.as<const bf16x_options>();
    const int n = 8;
    std::vector<double> a(n * n, 1.0), c(2 * n * n, -7.0);
    std::vector<float> af(n * n, 1.0f), cf(2 * n * n, -7.0f);
    std::vector<bf16x_complex_double> az(n * n, {1, 1}), cz(n * n, {-7, -7});
    std::vector<bf16x_complex_float> ac(n * n, {1, 1}), cc(n * n, {-7, -7});
    const bf16x_complex_double one_z{1, 0}, zero_z{0, 0};
    const bf16x_complex_float one_c{1, 0}, zero_c{0, 0};
    const auto N = BF16X_NO_TRANS;
    const auto L = BF16X_COL_MAJOR;
    std::uint64_t bytes = 1;
    const std::vector<std::function<int()>> calls = {
        [&] { return bf16x_dgemm_ex(L, N, N, n, n, n, 1.0, a.data(), n, a.data(), n, 0.0, c.data(), n, opt); },
        [&] { return bf16x_sgemm_ex(L, N, N, n, n, n, 1.0f, af.data(), n, af.data(), n, 0.0f, cf.data(), n, opt); },
        [&] { return bf16x_zgemm_ex(L, N, N, n, n, n, one_z, az.data(), n, az.data(), n, zero_z, cz.data(), n, opt); },
        [&] { return bf16x_cgemm_ex(L, N, N, n, n, n, one_c, ac.data(), n, ac.data(), n, zero_c, cc.data(), n, opt); },
        [&] {
          return bf16x_dgemm_batch_strided(L, N, N, n, n, n, 1.0, a.data(), n, 0, a.data(), n, 0, 0.0, c.data(), n,
                                           n * n, 2, opt);
        },
        [&] {
          return bf16x_sgemm_batch_strided(L, N, N, n, n, n, 1.0f, af.data(), n, 0, af.data(), n, 0, 0.0f, cf.data(), n,
                                           n * n, 2, opt);
        },
        [&] {
          return bf16x_zgemm_batch_strided(L, N, N, n, n, n, one_z, az.data(), n, 0, az.data(), n, 0, zero_z, cz.data(),
                                           n, 0, 1, opt);
        },
        [&] {
          return bf16x_cgemm_batch_strided(L, N, N, n, n, n, one_c, ac.data(), n, 0, ac.data(), n, 0, zero_c, cc.data(),
                                           n, 0, 1, opt);
        },
        [&] { return bf16x_workspace_bytes(1, L, n, n, n, opt, &bytes); },
    };
    for (std::size_t i = 0; i < calls.size(); ++i)
      EXPECT_EQ(calls[i](), BF16X_ERR_OPTIONS)
          << "call " << i << ", options " << cs.opt_size << ", stats " << cs.stats_size;
    for (double x : c) ASSERT_EQ(x, -7.0);
    for (float x : cf) ASSERT_EQ(x, -7.0f);
    for (const auto& x : cz) ASSERT_TRUE(x.re == -7 && x.im == -7);
    for (const auto& x : cc) ASSERT_TRUE(x.re == -7 && x.im == -7);
    EXPECT_TRUE(s.tail_is_fill(sizeof(std::size_t))) << "stats written by a refused call";
  }
}

}  // namespace
