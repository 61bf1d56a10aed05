// Reusable, 64-byte-aligned scratch memory for one GEMM call: kept per calling thread between calls so that
// repeated calls do not allocate, and released after a call that needed more than kRetainBytes so that one
// large call does not pin memory for the life of the thread.
#pragma once
#include <cstddef>

namespace bf16x::util {

class Workspace {
 public:
  static constexpr std::size_t kRetainBytes = std::size_t(512) << 20;
  // Returns nullptr when the allocation fails (the caller reports BF16X_ERR_NOMEM).
  void* reserve(std::size_t bytes);
  void release_if_large();
  std::size_t capacity() const { return capacity_; }
  ~Workspace();

 private:
  void* data_ = nullptr;
  std::size_t capacity_ = 0;
};

Workspace& thread_workspace();

// Process-wide introspection (tests): bytes held by the workspaces of all threads right now, and allocations made
// since the start. A thread's workspace is freed when the thread exits.
std::size_t workspace_bytes_held();
std::size_t workspace_allocations();

}  // namespace bf16x::util
