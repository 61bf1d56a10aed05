// Error reporting as the reference BLAS and CBLAS do it. The handlers are looked up in the process at the time of
// the error (dlsym(RTLD_DEFAULT)), so a program's own XERBLA / cblas_xerbla, which the netlib test programs define,
// is the one called; it comes first in the lookup order.
#pragma once
#include <cstdint>
#include <string>

namespace bf16x::blas {

// The handlers of one BLAS integer model: the LP64 names, or those of an ILP64 interface (ilp64_gemm.hpp), whose
// XERBLA and cblas_xerbla take a 64-bit INFO.
struct ErrorHandlers {
  const char* xerbla;          // Fortran XERBLA: "xerbla_"
  const char* cblas_xerbla;    // "cblas_xerbla"
  const char* row_major_strg;  // reference CBLAS's global: "RowMajorStrg"; nullptr: none to set
  bool int64_info;
};
inline constexpr ErrorHandlers kLp64Handlers{"xerbla_", "cblas_xerbla", "RowMajorStrg", false};

// Fortran: CALL XERBLA(name, info), name blank-padded to 6 characters ("SGEMM ").
void report_fortran(const char* name6, int info, const ErrorHandlers& h = kLp64Handlers);

// CBLAS: cblas_xerbla(info, rout, form, value) with reference CBLAS's argument number for the call as made. Where
// the cblas_xerbla found is the host OpenBLAS's own (which exits), the error goes the way OpenBLAS's cblas_xgemm
// sends it instead: to XERBLA (which prints and returns) with fortran_info, so the shim behaves as the host does.
// A program's own cblas_xerbla (the netlib tests') is always the one called.
// row_major_swapped is the number the reference passes for a row-major call: there it checks the swapped Fortran
// call and leaves the swap back (4<->5, 9<->11 for gemm) to cblas_xerbla, which reads the global RowMajorStrg.
// The shim passes that number and sets RowMajorStrg where the process has one (the reference's cblas_xerbla and
// the netlib test's read it), and the final number where it has none (nothing would swap it back).
struct CblasError {
  int info;           // argument number for the caller's layout (what a user should be told)
  int info_reported;  // what the reference passes to cblas_xerbla (differs from info for row-major swaps)
  bool row_major;
  const char* rout;  // "cblas_sgemm"
  const char* form;  // printf format of the extra message ("" or "Illegal TransA setting, %d\n")
  int value;         // the value printed by form
  // What OpenBLAS's CBLAS reports through its Fortran XERBLA instead: the argument number of the column-major
  // Fortran call it checks (row-major: A and B, m and n swapped first), 0 for a bad layout.
  int fortran_info = 0;
};
void report_cblas(const CblasError& e, const ErrorHandlers& h = kLp64Handlers);

// The routine and argument number an error report names, as the handler prints it ("DGEMM", 8: "On entry to DGEMM
// parameter number 8"; "cblas_dgemm", 9: "Parameter 9 to routine cblas_dgemm"), for the shim's verbose line.
struct ReportedArgument {
  std::string routine;
  int number;
};
// report_fortran(name6, info): name6 without its blanks and info.
ReportedArgument fortran_reported(const char* name6, int info);
// report_cblas(e, h): the Fortran name and e.fortran_info where it goes to OpenBLAS's XERBLA, else e.rout and e.info
// (a reference cblas_xerbla swaps a row-major number back before printing it).
ReportedArgument cblas_reported(const CblasError& e, const ErrorHandlers& h = kLp64Handlers);

}  // namespace bf16x::blas
