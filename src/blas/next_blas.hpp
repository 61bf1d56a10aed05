// The definitions the shim stands in front of: the next definition of each exported name after the shim's own
// library in the process's symbol lookup order. Native calls go there, so they reach exactly the routine the program
// would have called without the shim, in the same integer model and under the same name.
#pragma once
#include <atomic>

namespace bf16x::blas {

// One exported name and its next definition, cached once found (one per entry point: gemm_entry.hpp).
struct NextDefinition {
  const char* name;  // "dgemm_", "cblas_zgemm64_"
  std::atomic<void*> found{nullptr};
};

// The next definition of d.name as a pointer to F, or nullptr where the process holds no other one (then the
// library's own native path is used). Looked up again while missing, since the library that holds it may be
// loaded later.
void* find_next(NextDefinition& d);
template <typename F>
F* next_definition(NextDefinition& d) {
  return reinterpret_cast<F*>(find_next(d));
}

// File name (without directories) of the shared object that defines fn, for verbose lines.
const char* library_of(const void* fn);

}  // namespace bf16x::blas
