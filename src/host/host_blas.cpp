#include "host/host_blas.hpp"

#include <dlfcn.h>

#include <string>

#include "env/env_vars.hpp"

namespace bf16x::host {
namespace {

using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                            int);
using CblasDgemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                            double*, int);
// cblas_cgemm and cblas_zgemm share one prototype: complex scalars and matrices by pointer.
using CblasComplexGemm = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int,
                                  const void*, void*, int);
using CoreName = char* (*)();

struct Host {
  std::string name;
  CblasSgemm sgemm = nullptr;
  CblasDgemm dgemm = nullptr;
  CblasComplexGemm cgemm = nullptr, zgemm = nullptr;  // optional
  CoreName corename = nullptr;
};

const Host& host() {
  static const Host h = [] {
    Host r;
    const auto env = envvar::text(envvar::process_source(), "BF16X_HOST_BLAS");
    // "none": no host BLAS on purpose (native calls fail with BF16X_ERR_NO_HOST, auto stays emulated).
    if (env && *env == "none") return r;
    const char* candidates[] = {env ? env->c_str() : nullptr, "libopenblas.so.0", "libblas.so.3", "libcblas.so.3"};
    for (const char* lib : candidates) {
      if (!lib || !*lib) continue;
      void* handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
      if (!handle && lib == candidates[0]) {
        const char* why = dlerror();
        envvar::warn(std::string("BF16X_HOST_BLAS=") + lib + " cannot be loaded (" + (why ? why : "dlopen failed") +
                     "); trying libopenblas.so.0, libblas.so.3, libcblas.so.3");
      }
      if (!handle) continue;
      r.sgemm = reinterpret_cast<CblasSgemm>(dlsym(handle, "cblas_sgemm"));
      r.dgemm = reinterpret_cast<CblasDgemm>(dlsym(handle, "cblas_dgemm"));
      r.cgemm = reinterpret_cast<CblasComplexGemm>(dlsym(handle, "cblas_cgemm"));
      r.zgemm = reinterpret_cast<CblasComplexGemm>(dlsym(handle, "cblas_zgemm"));
      r.corename = reinterpret_cast<CoreName>(dlsym(handle, "openblas_get_corename"));
      if (r.sgemm && r.dgemm) {
        r.name = lib;
        break;
      }
      if (lib == candidates[0])
        envvar::warn(std::string("BF16X_HOST_BLAS=") + lib +
                     " has no cblas_sgemm/cblas_dgemm; trying libopenblas.so.0, libblas.so.3, libcblas.so.3");
      r = Host{};
    }
    return r;
  }();
  return h;
}

constexpr int kColMajor = 102;

bool fits_int(std::int64_t v) { return v >= 0 && v <= 0x7fffffff; }

// Whether the 32-bit CBLAS interface takes these sizes.
bool fits(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  return fits_int(m) && fits_int(n) && fits_int(k) && fits_int(lda) && fits_int(ldb) && fits_int(ldc);
}

// A CBLAS GEMM of the host (real: scalars by value; complex: by address), column-major, where the host has it and
// the sizes fit its int.
template <typename Fn, typename Scalar, typename In, typename Out>
bool call_gemm(Fn fn, int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, In a,
               std::int64_t lda, In b, std::int64_t ldb, Scalar beta, Out c, std::int64_t ldc) {
  if (!fn || !fits(m, n, k, lda, ldb, ldc)) return false;
  fn(kColMajor, ta, tb, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
  return true;
}

}  // namespace

bool sgemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  return call_gemm(host().sgemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

bool dgemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
           std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  return call_gemm(host().dgemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

bool cgemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, const float* beta, float* c, std::int64_t ldc) {
  return call_gemm(host().cgemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

bool zgemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, const double* alpha, const double* a,
           std::int64_t lda, const double* b, std::int64_t ldb, const double* beta, double* c, std::int64_t ldc) {
  return call_gemm(host().zgemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

bool can_take(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  return host().dgemm && host().sgemm && fits(m, n, k, lda, ldb, ldc);
}

const char* library_name() { return host().name.c_str(); }
const char* core_name() { return host().corename ? host().corename() : ""; }

}  // namespace bf16x::host
