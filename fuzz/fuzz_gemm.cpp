// libFuzzer target over the C API (bf16x_sgemm / bf16x_dgemm and their _ex forms).
//
// Every input decodes to one call (fuzz/fuzz_case.hpp). The status must be the one the contract gives
// (fuzz/contract.hpp); an error leaves C byte-identical; a valid call returns OK, leaves A, B and C's padding
// untouched, follows BLAS quick returns exactly, and its C passes the checks of fuzz/check_result.hpp for the
// mode that ran. Emulated FP64 results of an optimised engine must equal the reference engine's bit for bit, and
// those of the engines that compute the reference's pair steps (avx2, amx-model) in every emulated mode.
// Any violation prints the call and aborts.
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x_runtime.h"
#include "check/exact_gemm.hpp"
#include "engine/records.hpp"
#include "fuzz/c_caller.h"
#include "fuzz/check_result.hpp"
#include "fuzz/contract.hpp"
#include "fuzz/fill.hpp"
#include "fuzz/fuzz_case.hpp"
#include "host/host_blas.hpp"
#include "util/workspace.hpp"

namespace bf16x::fuzz {
namespace {

constexpr std::int64_t kMaxElems = std::int64_t(1) << 20;
// Work caps in padded multiply-adds x products: each execution stays in the low milliseconds.
constexpr double kCostFast = 0x1p23, kCostScalar = 0x1p21;

bool scalar_engine(int e) { return e == BF16X_ENGINE_REFERENCE || e == BF16X_ENGINE_AMX_MODEL; }
// Engines equal to the reference bit for bit on the FP32 path too (engine/dpbf16.hpp, one FMA per element).
bool bitwise_engine(int e) { return e == BF16X_ENGINE_AVX2 || e == BF16X_ENGINE_AMX_MODEL; }

// The work of a call in products per multiply-add: the slice mode's own count (its mode record), else as much as the
// routine's most accurate slice mode (AUTO, DEFAULT, the correctly rounded modes).
int products_of(int mode, bool dbl) {
  if (mode == BF16X_MODE_NATIVE) return 1;
  const mode::Record* r = mode::record(mode);
  return r && r->products > 0 ? r->products : (dbl ? 21 : 6);
}

// memcmp, but defined for empty ranges (whose pointers may be null).
bool same_bytes(const void* x, const void* y, std::size_t n) { return n == 0 || std::memcmp(x, y, n) == 0; }

double pad32(std::int64_t x) { return double((x + 31) / 32 * 32); }

std::string describe(const FuzzCase& fc, const Call& c, double alpha, double beta) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s%s layout=%d transa=%d transb=%d m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld alpha=%g "
                "beta=%g mode=%d engine=%d split=%d fuse=%d block_k=%d auto_target=%g stats=%d null=%d",
                fc.dbl ? "bf16x_dgemm" : "bf16x_sgemm", c.ex_api ? "_ex" : "", c.layout, c.transa, c.transb,
                (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.lda, (long long)c.ldb, (long long)c.ldc,
                alpha, beta, c.opt.mode, c.opt.engine, c.opt.split, c.opt.fuse_diagonals, c.opt.block_k,
                c.opt.auto_target, int(fc.stats), fc.null_mask);
  return buf;
}

// BF16X_FUZZ_VERBOSE=1 prints every call and its status (to read what a corpus file exercises).
bool verbose() {
  static const bool v = std::getenv("BF16X_FUZZ_VERBOSE") != nullptr;
  return v;
}

[[noreturn]] void violation(const std::string& call, const std::string& what) {
  std::fprintf(stderr, "bf16x fuzz: contract violated\n  call: %s\n  %s\n", call.c_str(), what.c_str());
  std::abort();
}

// A buffer of exactly `size` elements (ASan reports any access past it), or a small dummy where the call must
// not touch the operand at all.
template <typename T>
struct Buffer {
  std::unique_ptr<T[]> data;
  std::int64_t size = 0;
  T* arg = nullptr;  // what the call gets: data, or NULL
};

template <typename T>
Buffer<T> make_buffer(std::int64_t size, const Stored& s, std::int64_t ld, const Fill& f, std::uint64_t seed,
                      bool null) {
  Buffer<T> b;
  b.size = size;
  b.data.reset(new T[std::size_t(size)]);
  fill_stored(b.data.get(), size, s, ld, f, seed);
  b.arg = null ? nullptr : b.data.get();
  return b;
}

template <typename T>
int call_api(const Call& c, T alpha, const Buffer<T>& a, const Buffer<T>& b, T beta, T* cc, const bf16x_options& o) {
  if constexpr (sizeof(T) == 8)
    return fuzz_dgemm(c.ex_api, c.layout, c.transa, c.transb, c.m, c.n, c.k, alpha, a.arg, c.lda, b.arg, c.ldb, beta,
                      cc, c.ldc, &o);
  else
    return fuzz_sgemm(c.ex_api, c.layout, c.transa, c.transb, c.m, c.n, c.k, alpha, a.arg, c.lda, b.arg, c.ldb, beta,
                      cc, c.ldc, &o);
}

// op(X)(i, l) of a stored matrix, as the layout and transpose say.
template <typename T>
check::Mat<T> op_view(const T* st, std::int64_t ld, std::int64_t rows, std::int64_t cols, bool flip) {
  check::Mat<T> x(rows, cols);
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) x(i, j) = flip ? st[j + i * ld] : st[i + j * ld];
  return x;
}

template <typename T>
void run_case(const FuzzCase& fc) {
  constexpr bool dbl = sizeof(T) == 8;
  Call c{};
  c.layout = fc.layout;
  c.transa = fc.transa;
  c.transb = fc.transb;
  c.m = dim_value(fc.m_code);
  c.n = dim_value(fc.n_code);
  c.k = dim_value(fc.k_code);
  c.ex_api = fc.ex_api;
  c.opt = fc.opt;
  const int engine = c.ex_api ? c.opt.engine : BF16X_ENGINE_AUTO;
  const bool small = fc.m_code < 240 && fc.n_code < 240 && fc.k_code < 240;
  if (small) {
    // Halve the largest dimension until the work fits the cap of the engine that will run.
    const int ran_engine = engine == BF16X_ENGINE_AUTO ? bf16x_engine_selected() : engine;
    const bool fp64_cross = (dbl || bitwise_engine(ran_engine)) && ran_engine != BF16X_ENGINE_REFERENCE;
    const double cap = scalar_engine(ran_engine) || fp64_cross ? kCostScalar : kCostFast;
    const double prods = products_of(c.opt.mode, dbl) * (fp64_cross ? 2 : 1);
    while (pad32(c.m) * pad32(c.n) * pad32(c.k) * prods > cap) {
      std::int64_t& big = c.m >= c.n && c.m >= c.k ? c.m : (c.n >= c.k ? c.n : c.k);
      big /= 2;
    }
  }
  const Stored sa = stored_a(c), sb = stored_b(c), sc = stored_c(c);
  c.lda = ld_value(fc.lda_code, std::max<std::int64_t>(1, sa.rows));
  c.ldb = ld_value(fc.ldb_code, std::max<std::int64_t>(1, sb.rows));
  c.ldc = ld_value(fc.ldc_code, std::max<std::int64_t>(1, sc.rows));
  const T alpha = scalar_value<T>(fc.alpha_code, fc.seed), beta = scalar_value<T>(fc.beta_code, fc.seed >> 7);
  c.alpha_zero = alpha == T(0);
  c.a_null = fc.null_mask & 1;
  c.b_null = fc.null_mask & 2;
  c.c_null = fc.null_mask & 4;
  const Expected want = expected_status(c, dbl);
  const std::string call = describe(fc, c, double(alpha), double(beta));

  // Real operands where the call reads or writes them; elsewhere a dummy (the call must not touch it).
  const bool writes_c = want.status == BF16X_OK && c.m > 0 && c.n > 0;
  const bool reads_ab = writes_c && c.k > 0 && !c.alpha_zero;
  std::int64_t ea = 0, eb = 0, ec = 0;
  auto fits = [](const Stored& s, std::int64_t ld, std::int64_t* e) {
    return ld >= 1 && ld <= kMaxElems && extent(s, ld, e) && *e >= 0 && *e <= kMaxElems;
  };
  const bool fa = fits(sa, c.lda, &ea), fb = fits(sb, c.ldb, &eb), fcx = fits(sc, c.ldc, &ec);
  if ((reads_ab && (!fa || !fb)) || (writes_c && !fcx)) return;  // a valid call too large to run here
  const Stored none{0, 0};
  Buffer<T> a = fa ? make_buffer<T>(ea, sa, c.lda, fc.fill[0], fc.seed ^ 0xa, c.a_null)
                   : make_buffer<T>(16, none, 1, fc.fill[0], 0, c.a_null);
  Buffer<T> b = fb ? make_buffer<T>(eb, sb, c.ldb, fc.fill[1], fc.seed ^ 0xb, c.b_null)
                   : make_buffer<T>(16, none, 1, fc.fill[1], 0, c.b_null);
  Buffer<T> cb = fcx ? make_buffer<T>(ec, sc, c.ldc, fc.fill[2], fc.seed ^ 0xc, c.c_null)
                     : make_buffer<T>(16, none, 1, fc.fill[2], 0, c.c_null);
  for (const Plant& p : fc.plants) {
    Buffer<T>& t = p.which == 0 ? a : (p.which == 1 ? b : cb);
    if (t.size > 0) t.data[p.index % std::uint64_t(t.size)] = special_value<T>(p.value);
  }
  const std::vector<T> a0(a.data.get(), a.data.get() + a.size), b0(b.data.get(), b.data.get() + b.size),
      c0(cb.data.get(), cb.data.get() + cb.size);
  auto c_unchanged = [&] { return same_bytes(c0.data(), cb.data.get(), sizeof(T) * std::size_t(cb.size)); };

  bf16x_stats stats{};
  bf16x_options o = c.opt;
  o.stats = fc.stats ? &stats : nullptr;
  const int got = call_api<T>(c, alpha, a, b, beta, cb.arg, o);
  if (verbose())
    std::fprintf(
        stderr, "%s -> %d (expected %d%s)%s\n", call.c_str(), got, want.status,
        want.size_error_allowed ? " or ERR_SIZE" : "",
        fc.stats && c.ex_api && got == BF16X_OK ? (std::string(" ran ") + bf16x_mode_name(stats.mode)).c_str() : "");

  if (util::thread_workspace().capacity() > util::Workspace::kRetainBytes)
    violation(call, "the thread's workspace kept more than kRetainBytes after the call");
  if (want.status != BF16X_OK || got != BF16X_OK) {
    const bool size_ok = want.size_error_allowed && got == BF16X_ERR_SIZE;
    if (got != want.status && !size_ok)
      violation(call, "status " + std::to_string(got) + " (" + bf16x_status_string(got) + "), expected " +
                          std::to_string(want.status) + " (" + bf16x_status_string(want.status) + ")");
    if (!c_unchanged()) violation(call, "an error status with C modified");
    return;
  }
  if (!same_bytes(a0.data(), a.data.get(), sizeof(T) * a0.size()) ||
      !same_bytes(b0.data(), b.data.get(), sizeof(T) * b0.size()))
    violation(call, "A or B was modified");

  if (c.m == 0 || c.n == 0) {
    if (!c_unchanged()) violation(call, "C was written by an empty product");
    return;
  }
  // C in column-major m x n terms; everything else in C's buffer (padding) must be as it was.
  const bool col = c.layout == BF16X_COL_MAJOR;
  std::vector<char> inside(std::size_t(cb.size), 0);
  Outcome<T> out{c.m, c.n, c.k, double(alpha),       double(beta), nullptr, nullptr, {},
                 {},  {},  0,   BF16X_GUARD_DEFAULT, false,        0,       false};
  out.c0.resize(std::size_t(c.m * c.n));
  out.c.resize(std::size_t(c.m * c.n));
  for (std::int64_t j = 0; j < c.n; ++j)
    for (std::int64_t i = 0; i < c.m; ++i) {
      const std::size_t at = std::size_t(col ? i + j * c.ldc : j + i * c.ldc);
      inside[at] = 1;
      out.c0[std::size_t(i + j * c.m)] = double(c0[at]);
      out.c[std::size_t(i + j * c.m)] = double(cb.data[at]);
    }
  for (std::int64_t p = 0; p < cb.size; ++p)
    if (!inside[std::size_t(p)] && !same_bytes(&c0[std::size_t(p)], &cb.data[p], sizeof(T)))
      violation(call, "C was written outside the m x n matrix (index " + std::to_string(p) + ")");

  if (c.k == 0 || c.alpha_zero) {
    // BLAS: C = beta C, and beta == 0 sets C to zero without reading it.
    for (std::size_t at = 0; at < out.c.size(); ++at) {
      const double w = beta == T(0) ? 0.0 : double(T(beta * T(out.c0[at])));
      if (!(out.c[at] == w || (std::isnan(out.c[at]) && std::isnan(w))))
        violation(call, "quick return: C entry " + std::to_string(at) + " is " + std::to_string(out.c[at]) +
                            ", expected beta*C = " + std::to_string(w));
    }
    return;
  }

  const bool flip_a = col ? c.transa != BF16X_NO_TRANS : c.transa == BF16X_NO_TRANS;
  const bool flip_b = col ? c.transb != BF16X_NO_TRANS : c.transb == BF16X_NO_TRANS;
  const check::Mat<T> opa = op_view(a.data.get(), c.lda, c.m, c.k, flip_a);
  const check::Mat<T> opb = op_view(b.data.get(), c.ldb, c.k, c.n, flip_b);
  out.opa = &opa;
  out.opb = &opb;
  out.block_k = c.ex_api ? c.opt.block_k : 0;
  out.paper = c.ex_api && c.opt.split == BF16X_SPLIT_PAPER;
  out.guard_option = c.ex_api ? c.opt.guard : BF16X_GUARD_DEFAULT;
  out.by_auto = c.opt.mode == BF16X_MODE_AUTO || c.opt.mode == BF16X_MODE_DEFAULT;
  out.auto_target = c.ex_api ? c.opt.auto_target : 0;
  const Reference ref = make_reference(out);
  bool ab_finite = true;
  for (char f : ref.row_finite) ab_finite = ab_finite && f;
  for (char f : ref.col_finite) ab_finite = ab_finite && f;

  // Which modes may have run: the stats say; without them the request does (DEFAULT/AUTO: any of them). The
  // correctly rounded modes (named, or auto's for a target below native's bound) round NaN/Inf rows and columns
  // themselves and hand a non-finite alpha or beta to the host GEMM.
  std::vector<int> candidates;
  const int req = c.opt.mode;
  const bool scalars_finite = std::isfinite(double(alpha)) && (beta == T(0) || std::isfinite(double(beta)));
  if (fc.stats && c.ex_api) {
    const bool ran_cr =
        is_cr_mode(stats.mode) && mode_fits(stats.mode, dbl) && (stats.mode == req || !is_emulated_mode(req));
    const bool plausible =
        !ab_finite        ? stats.mode == BF16X_MODE_NATIVE || ran_cr
        : is_cr_mode(req) ? stats.mode == req || (stats.mode == BF16X_MODE_NATIVE && !scalars_finite)
        : is_emulated_mode(req) || req == BF16X_MODE_NATIVE
            // the componentwise guard may hand an emulated call to the host GEMM, and says so
            ? stats.mode == req || (stats.mode == BF16X_MODE_NATIVE && stats.guard == BF16X_GUARD_NATIVE)
            : stats.mode == BF16X_MODE_NATIVE || (is_emulated_mode(stats.mode) && mode_fits(stats.mode, dbl));
    if (!plausible) violation(call, "stats report mode " + std::to_string(stats.mode));
    // The correctly rounded modes run on the FMA units, no engine (stats.engine -1); a CRT mode on the named engine
    // where it has an INT8 side, else on the process's INT8 engine (bf16x_get_crt_engine).
    const bool named_int8 = engine != BF16X_ENGINE_AUTO && bf16x::engine::int8_engine(engine) != nullptr;
    const int want_engine = stats.mode == BF16X_MODE_NATIVE || is_cr_mode(stats.mode) ? -1
                            : is_crt_mode(stats.mode)     ? (named_int8 ? engine : bf16x_get_crt_engine())
                            : engine == BF16X_ENGINE_AUTO ? bf16x_engine_selected()
                                                          : engine;
    if (stats.engine != want_engine) violation(call, "stats report engine " + std::to_string(stats.engine));
    candidates.push_back(stats.mode);
  } else if (is_cr_mode(req)) {
    candidates.push_back(scalars_finite ? req : int(BF16X_MODE_NATIVE));
  } else if (!ab_finite || req == BF16X_MODE_NATIVE) {
    candidates.push_back(BF16X_MODE_NATIVE);
  } else if (is_emulated_mode(req)) {
    candidates.push_back(req);
  } else {
    candidates.push_back(BF16X_MODE_NATIVE);
    for (const mode::Record& r : mode::records())
      if (r.method == mode::Method::slices && mode_fits(r.id, dbl)) candidates.push_back(r.id);
  }

  if (std::find(candidates.begin(), candidates.end(), int(BF16X_MODE_NATIVE)) != candidates.end()) {
    // The host GEMM on the same call, normalised to column-major as the API documents.
    std::vector<T> h = c0;
    std::int64_t m = c.m, n = c.n, lda = c.lda, ldb = c.ldb;
    const T *pa = a.data.get(), *pb = b.data.get();
    int ta = c.transa, tb = c.transb;
    if (!col) {
      std::swap(m, n);
      std::swap(pa, pb);
      std::swap(lda, ldb);
      std::swap(ta, tb);
    }
    const bool ran = dbl ? host::dgemm(ta, tb, m, n, c.k, double(alpha), reinterpret_cast<const double*>(pa), lda,
                                       reinterpret_cast<const double*>(pb), ldb, double(beta),
                                       reinterpret_cast<double*>(h.data()), c.ldc)
                         : host::sgemm(ta, tb, m, n, c.k, float(alpha), reinterpret_cast<const float*>(pa), lda,
                                       reinterpret_cast<const float*>(pb), ldb, float(beta),
                                       reinterpret_cast<float*>(h.data()), c.ldc);
    if (!ran) violation(call, "no host GEMM to compare with");
    out.host.resize(out.c.size());
    for (std::int64_t j = 0; j < c.n; ++j)
      for (std::int64_t i = 0; i < c.m; ++i)
        out.host[std::size_t(i + j * c.m)] = double(h[std::size_t(col ? i + j * c.ldc : j + i * c.ldc)]);
  }
  std::string why;
  bool ok = false;
  for (int md : candidates) {
    const std::string w = check_values(out, ref, md);
    if (w.empty()) {
      ok = true;
      break;
    }
    why += (why.empty() ? "" : "\n  ") + w;
  }
  if (!ok) violation(call, why);

  // FP64 path: every engine equals the reference engine bit for bit, wherever the panel sums are exact (always
  // with scaled slices; the paper's unscaled ones only inside their range). avx2 and amx-model: every emulated
  // mode, any split.
  const bool emulated = is_slice_mode(stats.mode);
  const bool fp64_cross = dbl && emulated && (!out.paper || ref.paper_fp64_in_range);
  if (fc.stats && c.ex_api && stats.engine != BF16X_ENGINE_REFERENCE &&
      (fp64_cross || (emulated && bitwise_engine(stats.engine)))) {
    std::vector<T> r = c0;
    bf16x_options ro = c.opt;
    ro.engine = BF16X_ENGINE_REFERENCE;
    ro.mode = stats.mode;
    ro.stats = nullptr;
    if (call_api<T>(c, alpha, a, b, beta, r.data(), ro) != BF16X_OK) violation(call, "reference engine refused");
    if (!same_bytes(r.data(), cb.data.get(), sizeof(T) * r.size()))
      violation(call, std::string("engine ") + bf16x_engine_name(stats.engine) + " differs from the reference engine");
  }
}

}  // namespace
}  // namespace bf16x::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The contract's defaults (DEFAULT = auto, scaled split, no size threshold, auto engine) assume no BF16X_*
  // settings; the library reads them once, at its first call. BF16X_HOST_BLAS only picks the host library.
  std::vector<std::string> names;
  for (char** e = environ; *e; ++e) {
    const std::string kv(*e), name = kv.substr(0, kv.find('='));
    if (name.rfind("BF16X_", 0) == 0 && name.rfind("BF16X_FUZZ_", 0) != 0 && name != "BF16X_HOST_BLAS")
      names.push_back(name);
  }
  for (const std::string& n : names) unsetenv(n.c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bf16x::fuzz::FuzzCase fc = bf16x::fuzz::decode(data, size);
  if (fc.dbl)
    bf16x::fuzz::run_case<double>(fc);
  else
    bf16x::fuzz::run_case<float>(fc);
  return 0;
}
