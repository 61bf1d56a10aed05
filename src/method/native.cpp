// NATIVE: the host BLAS; for auto's native choice under the guard, the host GEMM that keeps the range of the modes
// auto stands for (method/guard.hpp host_in_range).
#include "method/guarded_run.hpp"
#include "method/table.hpp"

namespace bf16x::method {
namespace {

template <typename T>
int gemm(const Plan& p, const Call<T>& x, Outcome& out) {
  out.why += p.reason;
  return p.host_guarded ? x.host_guarded() : x.host();
}

std::uint64_t workspace(const Plan&, std::int64_t, std::int64_t, std::int64_t) { return 0; }

}  // namespace

const Row& native_row() {
  static const Row r{mode::Method::native, &gemm<float>, &gemm<double>, nullptr, nullptr, &workspace};
  return r;
}

}  // namespace bf16x::method
