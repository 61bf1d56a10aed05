#include "util/workspace.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#include "util/align.hpp"

namespace bf16x::util {
namespace {
std::atomic<std::size_t> g_held{0}, g_allocations{0};
}  // namespace

void* Workspace::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return data_;
  std::free(data_);
  g_held -= capacity_;
  data_ = nullptr;
  capacity_ = 0;
  const std::size_t rounded = align64(bytes);
  if (rounded < bytes) return nullptr;
  data_ = std::aligned_alloc(64, rounded);
  if (data_) {
    capacity_ = rounded;
    g_held += rounded;
    ++g_allocations;
  }
  return data_;
}

void Workspace::release_if_large() {
  if (capacity_ > kRetainBytes) {
    std::free(data_);
    g_held -= capacity_;
    data_ = nullptr;
    capacity_ = 0;
  }
}

Workspace::~Workspace() {
  std::free(data_);
  g_held -= capacity_;
}

Workspace& thread_workspace() {
  thread_local Workspace ws;
  return ws;
}

std::size_t workspace_bytes_held() { return g_held.load(); }
std::size_t workspace_allocations() { return g_allocations.load(); }

}  // namespace bf16x::util
