#include "util/thread_scope.hpp"

#include <omp.h>

namespace bf16x::util {

ThreadScope::ThreadScope(int threads) {
  if (threads <= 0) return;
  saved_ = omp_get_max_threads();
  omp_set_num_threads(threads);
}

ThreadScope::~ThreadScope() {
  if (saved_ > 0) omp_set_num_threads(saved_);
}

}  // namespace bf16x::util
