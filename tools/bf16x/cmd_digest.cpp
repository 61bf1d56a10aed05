// bf16x digest: one hash of C per call over a fixed sweep of modes, splits, guard settings, shapes, layouts,
// transposes, alpha/beta and thread counts. A change that must keep every result bit for bit (a faster phase) is
// checked by running two builds and comparing their outputs byte for byte:
//   bf16x digest > before.txt; (other build) bf16x digest > after.txt; cmp before.txt after.txt
// The inputs are graded (entries over many binades, by row and by column), signed and partly zero, so that the
// scaled split, the guard's proof and its repairs all take part. BF16X_DRIVER_MCNC=256,256 makes the larger shapes
// cross the accumulator panels too.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x_runtime.h"
#include "cli_checks.hpp"
#include "command.hpp"
#include "crt/crt_mode.hpp"

namespace bf16x::cli {
namespace {

struct Shape {
  std::int64_t m, n, k;
};

// Small, odd, skinny, deep, and some over the thread blocks and k-blocks (256 deep; fp32x6 64; the CRT modes 2048:
// 96 x 700 x 2100 takes two, with several blocks along a block row).
const Shape kShapes[] = {{1, 1, 1},       {4, 4, 4},    {33, 17, 65},    {64, 300, 129},   {130, 97, 513},
                         {257, 64, 1030}, {8, 8, 4096}, {300, 300, 300}, {600, 530, 1100}, {96, 700, 2100}};

struct Config {
  const char* mode;
  int split;
  int guard;
};

std::uint64_t fnv1a(const void* p, std::size_t bytes, std::uint64_t h = 1469598103934665603ull) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

// A deterministic entry: a sign, a mantissa and an exponent graded by row and column (16 binades each way), every
// 7th entry zero. `seed` separates A, B and C.
double entry(std::uint64_t seed, std::int64_t i, std::int64_t j) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + std::uint64_t(i) * 0xBF58476D1CE4E5B9ull +
                    std::uint64_t(j) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD39ull;
  x ^= x >> 28;
  if (x % 7 == 0) return 0.0;
  const double mant = 1.0 + double(x >> 11 & 0xFFFFF) / double(1 << 20);
  const int e = int(i % 16) - int(j % 16) + int(x >> 40 & 3);
  return ((x >> 63) ? -1.0 : 1.0) * std::ldexp(mant, e);
}

template <class T>
std::vector<T> matrix(std::uint64_t seed, std::int64_t rows, std::int64_t cols) {
  std::vector<T> v(std::size_t(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) v[std::size_t(i * cols + j)] = T(entry(seed, i, j));
  return v;
}

struct Variant {
  bf16x_layout layout;
  bf16x_transpose ta, tb;
  double alpha, beta;
  int threads;
};

// Four variants per shape, which between them take both layouts, all four transpose pairs, beta 0 and not, and
// the thread counts of `threads` in turn (shifted by the shape, so every count meets every variant).
Variant variant(int v, int s, const std::vector<int>& threads) {
  Variant r;
  r.layout = (v & 1) ? BF16X_COL_MAJOR : BF16X_ROW_MAJOR;
  r.ta = ((v >> 1) ^ (s & 1)) & 1 ? BF16X_TRANS : BF16X_NO_TRANS;
  r.tb = (v >> 1) & 1 ? BF16X_TRANS : BF16X_NO_TRANS;
  r.alpha = (v % 2) ? -0.75 : 1.0;
  r.beta = (v / 2 + s) % 2 ? 0.5 : 0.0;
  r.threads = threads[std::size_t(v + s) % threads.size()];
  return r;
}

// One call: prints its line and folds its hash into `all`; false (and a message on stderr) when the call fails.
template <class T>
bool run_one(const Config& c, int mode, int engine, const Shape& sh, int s, const Variant& v, std::uint64_t& all) {
  const std::int64_t m = sh.m, n = sh.n, k = sh.k;
  const bool row = v.layout == BF16X_ROW_MAJOR;
  const std::int64_t ar = v.ta == BF16X_NO_TRANS ? m : k, ac = v.ta == BF16X_NO_TRANS ? k : m;
  const std::int64_t br = v.tb == BF16X_NO_TRANS ? k : n, bc = v.tb == BF16X_NO_TRANS ? n : k;
  // Stored row by row in both layouts; a column-major call sees the transpose, with the leading dimension padded.
  const std::int64_t lda = (row ? ac : ar) + 3, ldb = (row ? bc : br) + 1, ldc = (row ? n : m) + 2;
  auto a = matrix<T>(11 + std::uint64_t(s), row ? ar : ac, lda);
  auto b = matrix<T>(23 + std::uint64_t(s), row ? br : bc, ldb);
  auto cm = matrix<T>(37 + std::uint64_t(s), row ? m : n, ldc);
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  o.engine = engine;
  o.split = c.split;
  o.guard = c.guard;
  bf16x_set_num_threads(v.threads);
  int rc;
  if constexpr (sizeof(T) == 4)
    rc = bf16x_sgemm_ex(v.layout, v.ta, v.tb, m, n, k, float(v.alpha), a.data(), lda, b.data(), ldb, float(v.beta),
                        cm.data(), ldc, &o);
  else
    rc = bf16x_dgemm_ex(v.layout, v.ta, v.tb, m, n, k, v.alpha, a.data(), lda, b.data(), ldb, v.beta, cm.data(), ldc,
                        &o);
  if (rc != BF16X_OK) {
    std::fprintf(stderr, "bf16x digest: %s %lldx%lldx%lld: %s\n", c.mode, (long long)m, (long long)n, (long long)k,
                 bf16x_status_string(rc));
    return false;
  }
  const std::uint64_t h = fnv1a(cm.data(), cm.size() * sizeof(T));
  all = fnv1a(&h, sizeof h, all);
  std::printf("%-8s %-6s %-4s %s %c%c %4lld %4lld %4lld %5.2f %4.2f t%d %016llx\n", c.mode,
              c.split == BF16X_SPLIT_PAPER ? "paper" : "scaled", c.guard == BF16X_GUARD_ON ? "on" : "off",
              row ? "row" : "col", v.ta == BF16X_TRANS ? 'T' : 'N', v.tb == BF16X_TRANS ? 'T' : 'N', (long long)m,
              (long long)n, (long long)k, v.alpha, v.beta, v.threads, (unsigned long long)h);
  return true;
}

struct Options {
  std::vector<int> threads{1, 2, 3};
  std::string engine = "auto", crt_engine = "auto";  // checked by the options' validators (cli_checks.hpp)
  bool slices = true, crt = true, cr = true;
};

void run(const Options& opt) {
  // Each engine option goes to the modes of its kind, as in accuracy and bench.
  const int engine = bf16x_engine_from_name(opt.engine.c_str());
  const int crt_engine = bf16x_engine_from_name(opt.crt_engine.c_str());
  std::vector<Config> configs;
  if (opt.slices) {
    for (int split : {BF16X_SPLIT_SCALED, BF16X_SPLIT_PAPER}) {
      configs.push_back({"fp32x6", split, BF16X_GUARD_OFF});
      for (const char* m : {"fp64x6", "fp64x10", "fp64x15", "fp64x21"})
        for (int g : {BF16X_GUARD_ON, BF16X_GUARD_OFF}) configs.push_back({m, split, g});
    }
  }
  if (opt.crt)
    for (const char* m : {"fp64c8", "fp64c12", "fp64c15", "fp64c20", "fp32c5", "fp32c8", "fp32c10"})
      for (int g : {BF16X_GUARD_ON, BF16X_GUARD_OFF}) configs.push_back({m, BF16X_SPLIT_SCALED, g});
  // The correctly rounded modes (no guard: every entry is its exact value's rounding) on the slice modes' engine
  // option, whose vector level picks their kernels.
  if (opt.cr)
    for (const char* m : {"fp64cr", "fp32cr"}) configs.push_back({m, BF16X_SPLIT_SCALED, BF16X_GUARD_OFF});
  std::uint64_t all = 1469598103934665603ull;
  int calls = 0, failed = 0;
  for (const auto& c : configs) {
    const int mode = bf16x_mode_from_name(c.mode);
    const bool single = std::string(c.mode).rfind("fp32", 0) == 0;
    // The paper split keeps unscaled slices: its inputs must stay in the BF16 exponent range, which these do.
    for (int s = 0; s < int(sizeof kShapes / sizeof kShapes[0]); ++s)
      for (int v = 0; v < 4; ++v) {
        const Variant var = variant(v, s, opt.threads);
        const int e = crt::is_crt_mode(mode) ? crt_engine : engine;
        const bool ok = single ? run_one<float>(c, mode, e, kShapes[s], s, var, all)
                               : run_one<double>(c, mode, e, kShapes[s], s, var, all);
        ++calls;
        failed += !ok;
      }
  }
  bf16x_set_num_threads(0);
  std::printf("all %d calls: %016llx\n", calls, (unsigned long long)all);
  if (failed) {
    std::fprintf(stderr, "bf16x digest: %d of %d calls failed\n", failed, calls);
    exit_code() = kExitRunFailure;
  }
}

const RegisterCommand reg("digest", "a hash of C for every call of a fixed sweep: compare two builds bit for bit",
                          [](CLI::App& app) {
                            static Options opt;
                            app.add_option("--threads", opt.threads, "thread counts the calls take in turn")
                                ->delimiter(',')
                                ->check(CLI::Range(1, 64));
                            app.add_option("--engine", opt.engine,
                                           "BF16 engine of the slice modes (one this CPU runs; auto: what the "
                                           "library picks)")
                                ->check(bf16_engine_check());
                            app.add_option("--crt-engine", opt.crt_engine,
                                           "INT8 engine of the CRT modes (one this CPU runs)")
                                ->check(int8_engine_check());
                            app.add_flag("!--no-slices", opt.slices, "leave out the slice modes");
                            app.add_flag("!--no-crt", opt.crt, "leave out the CRT modes");
                            app.add_flag("!--no-cr", opt.cr, "leave out the correctly rounded modes");
                            app.callback([] { run(opt); });
                          });

}  // namespace
}  // namespace bf16x::cli
