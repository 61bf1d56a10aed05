// oneDNN's BF16 matmul, the vendor raw-BF16 baseline of `bf16x bench` (built only where CMake finds oneDNN; the
// stand-in in onednn_matmul_none.cpp reports "not built").
#include <chrono>
#include <dnnl.hpp>

#include "cmd_bench_baselines.hpp"
#include "util/clock.hpp"

namespace bf16x::cli::bench {
namespace {

using util::now;

}  // namespace

struct OnednnMatmul::Impl {
  dnnl::engine eng;
  dnnl::stream strm;
  dnnl::memory::desc a_md, b_md, c_md;
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  bool ok = false;
};

OnednnMatmul::OnednnMatmul(std::int64_t m, std::int64_t n, std::int64_t k) : p_(std::make_unique<Impl>()) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  try {
    p_->eng = dnnl::engine(dnnl::engine::kind::cpu, 0);
    p_->strm = dnnl::stream(p_->eng);
    p_->a_md = dnnl::memory::desc({m, k}, dt::bf16, tag::ab);
    p_->b_md = dnnl::memory::desc({k, n}, dt::bf16, tag::ab);
    p_->c_md = dnnl::memory::desc({m, n}, dt::f32, tag::ab);
    p_->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(p_->a_md, p_->b_md, p_->c_md), p_->eng);
    p_->prim = dnnl::matmul(p_->pd);
    p_->ok = true;
  } catch (const dnnl::error&) {
    p_->ok = false;
  }
}

OnednnMatmul::~OnednnMatmul() = default;

bool OnednnMatmul::ok() const { return p_->ok; }

double OnednnMatmul::run(const bf16_t* a, const bf16_t* b, float* c) {
  dnnl::memory am(p_->a_md, p_->eng, const_cast<bf16_t*>(a)), bm(p_->b_md, p_->eng, const_cast<bf16_t*>(b)),
      cm(p_->c_md, p_->eng, c);
  const double t0 = now();
  p_->prim.execute(p_->strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  p_->strm.wait();
  return now() - t0;
}

std::string OnednnMatmul::impl() const { return p_->ok ? p_->pd.impl_info_str() : "unavailable"; }

std::string OnednnMatmul::version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace bf16x::cli::bench
