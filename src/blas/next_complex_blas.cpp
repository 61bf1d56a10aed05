#include "blas/next_complex_blas.hpp"

#include <atomic>

#include "blas/next_blas.hpp"

namespace bf16x::blas {
namespace {

std::atomic<void*> cgemm_slot, zgemm_slot, cblas_cgemm_slot, cblas_zgemm_slot;

}  // namespace

FortranComplexGemm next_cgemm() { return reinterpret_cast<FortranComplexGemm>(next_definition(cgemm_slot, "cgemm_")); }
FortranComplexGemm next_zgemm() { return reinterpret_cast<FortranComplexGemm>(next_definition(zgemm_slot, "zgemm_")); }
CblasComplexGemm next_cblas_cgemm() {
  return reinterpret_cast<CblasComplexGemm>(next_definition(cblas_cgemm_slot, "cblas_cgemm"));
}
CblasComplexGemm next_cblas_zgemm() {
  return reinterpret_cast<CblasComplexGemm>(next_definition(cblas_zgemm_slot, "cblas_zgemm"));
}

}  // namespace bf16x::blas
