// The componentwise guard's cost (docs/performance.md, "The guard"): DGEMM in a mode with the guard on (default) and
// off, interleaved call by call on the same operands (alternating which runs first): medians of the times, of
// their paired ratio, and of the guard's own time in the guarded call (bf16x_stats.seconds_guard) and its share of
// that call (free of the noise between two calls). Uniform [-1, 1) operands, where the fill envelope proves every
// entry, unless --graded (entries 2^+-20 within rows: the digit product runs and entries are repaired) or
// --graded-k (op(A)'s columns 2^0 .. 2^-50 along k and op(B)'s rows the other way, every product about 2^-50 of its
// lines' largest: one level proves none, the FP64 CRT modes run their second level, the others the host GEMM).
// Usage: bf16x_guard_cost [--graded | --graded-k] [--reps R] MODE N [N...]
#include <bf16x/bf16x.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool graded = false, graded_k = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--graded"))
      graded = true;
    else if (!std::strcmp(argv[i], "--graded-k"))
      graded_k = true;
    else
      args.push_back(argv[i]);
  }
  if (args.size() < 2 || reps < 1) {
    std::fprintf(stderr, "usage: %s [--graded | --graded-k] [--reps R] MODE N [N...]\n", argv[0]);
    return 2;
  }
  const int mode = bf16x_mode_from_name(args[0].c_str());
  if (mode < 0) {
    std::fprintf(stderr, "unknown mode %s\n", args[0].c_str());
    return 2;
  }
  std::printf("mode,n,input,guard_on_ms,guard_off_ms,ratio,guard_ms,guard_share,guard,repaired\n");
  for (std::size_t s = 1; s < args.size(); ++s) {
    const long n = std::atol(args[s].c_str());
    std::mt19937_64 g(42);
    std::uniform_real_distribution<double> u(-1, 1), e(-20, 20);
    std::vector<double> a(std::size_t(n * n)), b(a.size()), c(a.size());
    for (auto* v : {&a, &b})
      for (double& x : *v) x = graded ? u(g) * std::exp2(e(g)) : u(g);
    for (long l = 0; l < n && graded_k; ++l) {  // column l of A, row l of B (both column-major)
      const double down = std::exp2(-50.0 * double(l) / double(std::max(n - 1, 1L)));
      for (long i = 0; i < n; ++i) a[std::size_t(i + l * n)] *= down;
      for (long j = 0; j < n; ++j) b[std::size_t(l + j * n)] *= std::exp2(-50.0) / down;
    }
    std::vector<double> on, off, guard_ms, share;
    bf16x_stats st;
    for (int r = 0; r < reps + 1; ++r)
      for (int q = 0; q < 2; ++q) {
        // Alternating which runs first, so that neither pays for the other's cache or clock state every time.
        const int guard = (q + r) % 2 ? BF16X_GUARD_OFF : BF16X_GUARD_DEFAULT;
        bf16x_stats_init(&st);
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = mode;
        o.guard = guard;
        o.stats = &st;
        const auto t0 = std::chrono::steady_clock::now();
        if (bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                           c.data(), n, &o) != BF16X_OK)
          return 1;
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) (guard == BF16X_GUARD_OFF ? off : on).push_back(ms);  // the first round warms up
        if (r > 0 && guard != BF16X_GUARD_OFF) {
          guard_ms.push_back(st.seconds_guard * 1e3);
          share.push_back(st.seconds_guard * 1e3 / ms);  // the guard's own time in the same call: no noise between
        }
      }
    // Paired: each round's on/off ratio (the two calls run back to back), then their median.
    std::vector<double> ratio;
    for (std::size_t r = 0; r < on.size(); ++r) ratio.push_back(on[r] / off[r]);
    bf16x_stats_init(&st);
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
    o.stats = &st;
    bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                   c.data(), n, &o);
    std::printf("%s,%ld,%s,%.1f,%.1f,%.4f,%.2f,%.4f,%d,%llu\n", args[0].c_str(), n,
                graded     ? "graded"
                : graded_k ? "graded_k"
                           : "uniform",
                median(on), median(off), median(ratio), median(guard_ms), median(share), st.guard,
                static_cast<unsigned long long>(st.entries_repaired));
    std::fflush(stdout);
  }
  return 0;
}
