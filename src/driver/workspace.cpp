#include "driver/workspace.hpp"

#include <cstdlib>
#include <new>

namespace bf16x::driver {

void* Workspace::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return data_;
  std::free(data_);
  data_ = nullptr;
  capacity_ = 0;
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded < bytes) return nullptr;
  data_ = std::aligned_alloc(64, rounded);
  if (data_) capacity_ = rounded;
  return data_;
}

void Workspace::release_if_large() {
  if (capacity_ > kRetainBytes) {
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
}

Workspace::~Workspace() { std::free(data_); }

Workspace& thread_workspace() {
  thread_local Workspace ws;
  return ws;
}

}  // namespace bf16x::driver
