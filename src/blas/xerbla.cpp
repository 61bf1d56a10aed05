#include "blas/xerbla.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace bf16x::blas {
namespace {

using Xerbla = void (*)(const char*, const int*, std::size_t);
using CblasXerbla = void (*)(int, const char*, const char*, ...);

}  // namespace

void report_fortran(const char* name6, int info) {
  if (auto* xerbla = reinterpret_cast<Xerbla>(dlsym(RTLD_DEFAULT, "xerbla_"))) {
    xerbla(name6, &info, 6);
    return;
  }
  // No XERBLA anywhere in the process: print the reference message. The reference then STOPs; the shim returns
  // with nothing computed, like the common host libraries' XERBLA.
  int len = 6;
  while (len > 0 && name6[len - 1] == ' ') --len;
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", len, name6, info);
}

void report_cblas(const CblasError& e) {
  auto* handler = reinterpret_cast<CblasXerbla>(dlsym(RTLD_DEFAULT, "cblas_xerbla"));
  auto* row_major_strg = static_cast<int*>(dlsym(RTLD_DEFAULT, "RowMajorStrg"));
  if (handler) {
    if (row_major_strg) {
      *row_major_strg = e.row_major ? 1 : 0;
      handler(e.info_reported, e.rout, e.form, e.value);
      *row_major_strg = 0;  // as the reference leaves it after every call
    } else {
      handler(e.info, e.rout, e.form, e.value);
    }
    return;
  }
  // No cblas_xerbla in the process: the reference's message. The reference then exits; the shim returns with
  // nothing computed, like the host libraries that report through XERBLA.
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", e.info, e.rout);
  std::fprintf(stderr, e.form, e.value);
}

}  // namespace bf16x::blas
