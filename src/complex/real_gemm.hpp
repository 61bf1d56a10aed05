// What the complex methods ask of the real GEMM: the layer above hands it in (api/complex_entry.cpp runs the checked
// real GEMM of the call's options, one mode for the whole call), so that this layer knows nothing of options,
// modes or engines.
#pragma once
#include <cstdint>
#include <functional>

#include "bf16x/bf16x.h"

namespace bf16x::complex {

// c = a b + beta c for the column-major m x k a (leading dimension m), k x n b (k) and m x n c (m), beta 0 (c not
// read) or 1. Returns a bf16x_status; c is written only on BF16X_OK.
template <typename T>
using RealGemm =
    std::function<int(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b, T beta, T* c)>;

}  // namespace bf16x::complex
