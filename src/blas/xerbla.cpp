#include "blas/xerbla.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstring>

namespace bf16x::blas {
namespace {

using Xerbla = void (*)(const char*, const int*, std::size_t);
using Xerbla64 = void (*)(const char*, const std::int64_t*, std::size_t);
using CblasXerbla = void (*)(int, const char*, const char*, ...);
using CblasXerbla64 = void (*)(std::int64_t, const char*, const char*, ...);

void call_cblas_handler(void* handler, const ErrorHandlers& h, int info, const CblasError& e) {
  if (h.int64_info)
    reinterpret_cast<CblasXerbla64>(handler)(std::int64_t(info), e.rout, e.form, e.value);
  else
    reinterpret_cast<CblasXerbla>(handler)(info, e.rout, e.form, e.value);
}

// Whether `handler` is defined by the host OpenBLAS (the object that defines openblas_get_corename).
bool openblas_handler(void* handler) {
  void* marker = dlsym(RTLD_DEFAULT, "openblas_get_corename");
  Dl_info h{}, m{};
  return marker && dladdr(handler, &h) && dladdr(marker, &m) && h.dli_fbase == m.dli_fbase;
}

// "cblas_dgemm" -> "DGEMM ": the Fortran name OpenBLAS's CBLAS passes to XERBLA.
void fortran_name(const char* rout, char name6[7]) {
  const char* base = std::strncmp(rout, "cblas_", 6) == 0 ? rout + 6 : rout;
  int i = 0;
  for (; i < 6 && base[i]; ++i) name6[i] = char(std::toupper(static_cast<unsigned char>(base[i])));
  for (; i < 6; ++i) name6[i] = ' ';
  name6[6] = '\0';
}

// Where report_cblas sends an error: to the host OpenBLAS's XERBLA (rather than its cblas_xerbla, which exits).
bool goes_to_openblas_xerbla(void* handler) { return handler && openblas_handler(handler); }

}  // namespace

ReportedArgument fortran_reported(const char* name6, int info) {
  std::string name(name6);
  while (!name.empty() && name.back() == ' ') name.pop_back();
  return {name, info};
}

ReportedArgument cblas_reported(const CblasError& e, const ErrorHandlers& h) {
  if (goes_to_openblas_xerbla(dlsym(RTLD_DEFAULT, h.cblas_xerbla))) {
    char name6[7];
    fortran_name(e.rout, name6);
    return fortran_reported(name6, e.fortran_info);
  }
  return {e.rout, e.info};
}

void report_fortran(const char* name6, int info, const ErrorHandlers& h) {
  if (void* xerbla = dlsym(RTLD_DEFAULT, h.xerbla)) {
    if (h.int64_info) {
      const std::int64_t info64 = info;
      reinterpret_cast<Xerbla64>(xerbla)(name6, &info64, 6);
    } else {
      reinterpret_cast<Xerbla>(xerbla)(name6, &info, 6);
    }
    return;
  }
  // No XERBLA anywhere in the process: print the reference message. The reference then STOPs; the shim returns
  // with nothing computed, like the common host libraries' XERBLA.
  int len = 6;
  while (len > 0 && name6[len - 1] == ' ') --len;
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", len, name6, info);
}

void report_cblas(const CblasError& e, const ErrorHandlers& h) {
  void* handler = dlsym(RTLD_DEFAULT, h.cblas_xerbla);
  auto* row_major_strg = h.row_major_strg ? static_cast<int*>(dlsym(RTLD_DEFAULT, h.row_major_strg)) : nullptr;
  if (goes_to_openblas_xerbla(handler)) {
    char name6[7];
    fortran_name(e.rout, name6);
    report_fortran(name6, e.fortran_info, h);
    return;
  }
  if (handler) {
    if (row_major_strg) {
      *row_major_strg = e.row_major ? 1 : 0;
      call_cblas_handler(handler, h, e.info_reported, e);
      *row_major_strg = 0;  // as the reference leaves it after every call
    } else {
      call_cblas_handler(handler, h, e.info, e);
    }
    return;
  }
  // No cblas_xerbla in the process: the reference's message. The reference then exits; the shim returns with
  // nothing computed, like the host libraries that report through XERBLA.
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", e.info, e.rout);
  std::fprintf(stderr, e.form, e.value);
}

}  // namespace bf16x::blas
