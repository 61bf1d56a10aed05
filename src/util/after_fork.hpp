// A child forked from a process with other threads inherits OpenMP's thread pool without its threads: libgomp's
// next team of two or more threads waits for them forever (R's mclapply, Python's multiprocessing, pre-forking
// servers). Such a child runs every call on its calling thread; the results do not depend on the thread count, so
// it computes the parent's bits. A child of a single-threaded process keeps its full team.
#pragma once

namespace bf16x::util {

// True in a process forked (at any depth) from one that had two or more threads at the fork.
bool team_lost_in_fork();

}  // namespace bf16x::util
