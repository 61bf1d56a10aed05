// A process whose environment a test sets: DGEMM and SGEMM with BF16X_MODE_DEFAULT (the environment's mode) on
// uniform [-1, 1] operands, each checked against the double-double reference. Prints one line per call:
//   <routine> m n k status=<s> mode=<mode that ran> eF=<error vs exact>
//   rejected status=<s>      (one call with lda < m first)
// `env_probe workspace` instead prints, per routine and shape, bf16x_workspace_bytes with NULL options (the
// environment's mode) next to what a call of that shape in that mode reported in its stats:
//   workspace <routine> m n k status=<s> bytes=<bf16x_workspace_bytes> stats=<stats.workspace_bytes> mode=<mode>
// `env_probe none` makes no call at all.
// The environment is read once per process, which is why this is a process of its own.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"

namespace {

template <typename T>
void run(std::int64_t m, std::int64_t n, std::int64_t k) {
  using namespace bf16x;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1, 1);
  check::Mat<T> a(m, k), b(k, n), c(m, n);
  for (T& x : a.v) x = T(u(rng));
  for (T& x : b.v) x = T(u(rng));
  bf16x_stats st{};
  bf16x_options o;
  bf16x_options_init(&o);
  o.stats = &st;
  int s;
  if constexpr (sizeof(T) == 8)
    s = bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0, a.data(), m, b.data(), k, 0.0,
                       c.data(), m, &o);
  else
    s = bf16x_sgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0f, a.data(), m, b.data(), k, 0.0f,
                       c.data(), m, &o);
  const check::Mat<double> r = check::exact_gemm(a, b);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < r.v.size(); ++i) {
    const double d = double(c.v[i]) - r.v[i];
    num += d * d;
    den += r.v[i] * r.v[i];
  }
  const char* mode = bf16x_mode_name(st.mode);
  std::printf("%s %lld %lld %lld status=%d mode=%s eF=%.3e\n", sizeof(T) == 8 ? "dgemm" : "sgemm", (long long)m,
              (long long)n, (long long)k, s, mode ? mode : "?", std::sqrt(num / den));
}

template <typename T>
void workspace(std::int64_t m, std::int64_t n, std::int64_t k) {
  using namespace bf16x;
  constexpr bool dbl = sizeof(T) == 8;
  std::uint64_t bytes = 0;
  const int s = bf16x_workspace_bytes(dbl, BF16X_COL_MAJOR, m, n, k, nullptr, &bytes);
  std::vector<T> a(std::size_t(m * k), T(0.5)), b(std::size_t(k * n), T(-0.25)), c(std::size_t(m * n), T(0));
  bf16x_stats st{};
  bf16x_options o;
  bf16x_options_init(&o);
  o.stats = &st;
  if constexpr (dbl)
    bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0, a.data(), m, b.data(), k, 0.0,
                   c.data(), m, &o);
  else
    bf16x_sgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0f, a.data(), m, b.data(), k, 0.0f,
                   c.data(), m, &o);
  const char* mode = bf16x_mode_name(st.mode);
  std::printf("workspace %s %lld %lld %lld status=%d bytes=%llu stats=%llu mode=%s\n", dbl ? "dgemm" : "sgemm",
              (long long)m, (long long)n, (long long)k, s, (unsigned long long)bytes,
              (unsigned long long)st.workspace_bytes, mode ? mode : "?");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "none") return 0;
  if (argc > 1 && std::string(argv[1]) == "workspace") {
    workspace<double>(128, 128, 128);
    workspace<double>(100, 90, 300);
    workspace<float>(128, 128, 128);
    workspace<float>(100, 90, 300);
    return 0;
  }
  // A rejected call (lda < m): status only, C untouched; logged like any other call with BF16X_VERBOSE.
  double x[4] = {1, 2, 3, 4};
  std::printf("rejected status=%d\n", bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 2, 2, 2, 1.0, x, 1,
                                                  x, 2, 0.0, x, 2, BF16X_MODE_DEFAULT));
  run<double>(128, 128, 128);
  run<double>(100, 90, 300);
  run<float>(128, 128, 128);
  run<float>(100, 90, 300);
  return 0;
}
