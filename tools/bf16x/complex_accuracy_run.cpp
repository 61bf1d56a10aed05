#include "complex_accuracy_run.hpp"

#include <algorithm>
#include <chrono>
#include <new>
#include <type_traits>

#include "bf16x/bf16x.h"
#include "check/complex_exact.hpp"
#include "host/host_blas.hpp"

namespace bf16x::cli {
namespace {

template <typename T>
using Cx = std::conditional_t<std::is_same_v<T, float>, bf16x_complex_float, bf16x_complex_double>;

// One untimed call, then the median of reps.
template <typename F>
double timed(int reps, F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < std::max(1, reps); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename T>
std::vector<Cx<T>> interleave(const check::CMat<T>& x) {
  std::vector<Cx<T>> v(x.re.v.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = {x.re.v[i], x.im.v[i]};
  return v;
}

template <typename T>
check::CMat<T> split(const std::vector<Cx<T>>& v, std::int64_t rows, std::int64_t cols) {
  check::CMat<T> x(rows, cols);
  for (std::size_t i = 0; i < v.size(); ++i) x.re.v[i] = v[i].re, x.im.v[i] = v[i].im;
  return x;
}

int method_id(const std::string& m) { return m == "3m" ? BF16X_COMPLEX_3M : BF16X_COMPLEX_4M; }

template <typename T>
int call(const bf16x_options& o, std::int64_t n, std::int64_t k, const Cx<T>* a, const Cx<T>* b, Cx<T>* c) {
  const Cx<T> one{1, 0}, zero{0, 0};
  if constexpr (std::is_same_v<T, float>)
    return bf16x_cgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, k, one, a, n, b, k, zero, c, n, &o);
  else
    return bf16x_zgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, k, one, a, n, b, k, zero, c, n, &o);
}

template <typename T>
void host_call(std::int64_t n, std::int64_t k, const Cx<T>* a, const Cx<T>* b, Cx<T>* c) {
  const T one[2] = {1, 0}, zero[2] = {0, 0};
  if constexpr (std::is_same_v<T, float>)
    host::cgemm(111, 111, n, n, k, one, &a->re, n, &b->re, k, zero, &c->re, n);
  else
    host::zgemm(111, 111, n, n, k, one, &a->re, n, &b->re, k, zero, &c->re, n);
}

template <typename T>
AccuracyReport run(const AccuracyConfig& cfg) {
  AccuracyReport rep;
  rep.cfg = cfg;
  rep.ran32 = std::is_same_v<T, float>;
  rep.ran64 = !rep.ran32;
  const std::int64_t n = cfg.n, k = cfg.k > 0 ? cfg.k : cfg.n;
  // Parts drawn as the real experiment draws A and B (which = 0, 1), imaginary parts from streams 2 and 3.
  check::CMat<T> a, b;
  a.re = check::make_input<T>(cfg.dist, n, k, cfg.seed, 0, cfg.emax, cfg.phi);
  a.im = check::make_input<T>(cfg.dist, n, k, cfg.seed, 2, cfg.emax, cfg.phi);
  b.re = check::make_input<T>(cfg.dist, k, n, cfg.seed, 1, cfg.emax, cfg.phi);
  b.im = check::make_input<T>(cfg.dist, k, n, cfg.seed, 3, cfg.emax, cfg.phi);
  const auto ai = interleave(a), bi = interleave(b);
  const check::CMat<double> exact = check::complex_exact_gemm(a, b);
  const check::Mat<double> absab = check::complex_abs_gemm(a, b);

  std::vector<Cx<T>> nat(std::size_t(n * n));
  const double t_native = timed(cfg.reps, [&] { host_call<T>(n, k, ai.data(), bi.data(), nat.data()); });
  const check::CMat<T> natc = split<T>(nat, n, n);
  (std::is_same_v<T, float> ? rep.native_sgemm_vs_exact : rep.native_dgemm_vs_exact) =
      check::complex_errors(natc, exact, absab);
  check::CMat<double> natd(n, n);
  for (std::size_t i = 0; i < nat.size(); ++i) natd.re.v[i] = natc.re.v[i], natd.im.v[i] = natc.im.v[i];

  for (const std::string& name : cfg.modes)
    for (const std::string& method : cfg.complex_methods) {
      // The host routine has no method: one row.
      const bool native = bf16x_mode_from_name(name.c_str()) == BF16X_MODE_NATIVE;
      if (native && method != cfg.complex_methods.front()) continue;
      ModeResult mr;
      mr.mode = native ? name : name + "/" + method;
      bf16x_options opt = mode_options(cfg, name);
      opt.complex_method = method_id(method);
      bf16x_stats st{};
      opt.stats = &st;
      try {  // the CLI's own buffers failing fail this row only (run_accuracy does the same)
        std::vector<Cx<T>> c(std::size_t(n * n));
        mr.seconds = timed(cfg.reps, [&] { mr.status = call<T>(opt, n, k, ai.data(), bi.data(), c.data()); });
        const check::CMat<T> cc = split<T>(c, n, n);
        mr.vs_native = check::complex_errors(cc, natd, absab);
        mr.vs_exact = check::complex_errors(cc, exact, absab);
      } catch (const std::bad_alloc&) {
        mr.status = BF16X_ERR_NOMEM;
        mr.error = "out of memory (the CLI's result buffer)";
      }
      if (mr.status == BF16X_OK) mr.error = ran_other_mode(opt.mode, st);
      mr.native_seconds = t_native;
      mr.engine = st.engine;
      mr.host = host_ran(st);
      rep.modes.push_back(mr);
    }
  return rep;
}

}  // namespace

AccuracyReport run_complex_accuracy(const AccuracyConfig& cfg) {
  return cfg.routine == "cgemm" ? run<float>(cfg) : run<double>(cfg);
}

}  // namespace bf16x::cli
