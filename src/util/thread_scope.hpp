// The thread count of one call's parallel regions (bf16x_set_num_threads, BF16X_NUM_THREADS, 1 in a forked child:
// the plan's `threads`): set on the calling thread for the scope's lifetime and put back after, so that a call never
// changes the OpenMP setting of the program around it.
#pragma once

namespace bf16x::util {

class ThreadScope {
 public:
  explicit ThreadScope(int threads);  // 0: OpenMP's own default, nothing set
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int saved_ = 0;
};

}  // namespace bf16x::util
