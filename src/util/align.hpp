// Workspace carving: every buffer starts on a cache line (64 bytes), which is also the AVX-512 and AMX tile-row
// alignment.
#pragma once
#include <cstddef>

namespace bf16x::util {

inline constexpr std::size_t kCacheLine = 64;

constexpr std::size_t align64(std::size_t bytes) { return (bytes + kCacheLine - 1) / kCacheLine * kCacheLine; }

}  // namespace bf16x::util
