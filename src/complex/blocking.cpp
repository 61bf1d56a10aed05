#include "complex/blocking.hpp"

#include <atomic>

namespace bf16x::complex {
namespace {
std::atomic<std::int64_t> g_mb{0}, g_nb{0}, g_kb{0};
}  // namespace

ComplexBlocking complex_blocking() {
  ComplexBlocking b;
  if (const std::int64_t mb = g_mb.load(), nb = g_nb.load(), kb = g_kb.load(); mb > 0 && nb > 0 && kb > 0) {
    b.mb = mb;
    b.nb = nb;
    b.kb = kb;
  }
  return b;
}

void set_complex_blocking(std::int64_t mb, std::int64_t nb, std::int64_t kb) {
  g_mb = mb;
  g_nb = nb;
  g_kb = kb;
}

}  // namespace bf16x::complex
