// Stand-in for oneDNN's BF16 matmul where the build found no oneDNN: the bench prints "not built" and skips it.
#include "cmd_bench_baselines.hpp"

namespace bf16x::cli::bench {

struct OnednnMatmul::Impl {};

OnednnMatmul::OnednnMatmul(std::int64_t, std::int64_t, std::int64_t) {}
OnednnMatmul::~OnednnMatmul() = default;
bool OnednnMatmul::ok() const { return false; }
double OnednnMatmul::run(const bf16_t*, const bf16_t*, float*) { return -1.0; }
std::string OnednnMatmul::impl() const { return "not built"; }
std::string OnednnMatmul::version() { return "not built"; }

}  // namespace bf16x::cli::bench
