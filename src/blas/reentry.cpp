#include "blas/reentry.hpp"

namespace bf16x::blas {
namespace {

thread_local int depth = 0;

}  // namespace

ShimScope::ShimScope() { ++depth; }
ShimScope::~ShimScope() { --depth; }
bool ShimScope::active() { return depth > 0; }

}  // namespace bf16x::blas
