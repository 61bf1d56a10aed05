// Parallel regions that cost nothing where one thread does the work. libgomp starts even a one-thread team (a region
// whose if clause is false, or num_threads(1)) and ends its barriers and the team with futex system calls:
// microseconds each in a virtual machine, several per small call. Work that fits one thread, called outside every
// parallel region, runs on the calling thread in no team: the worksharing constructs of its body (orphaned there)
// bind to no team and run all their iterations, as on a team of one. Inside a caller's region, even of one thread,
// they would bind to the caller's team, so such calls keep a team of their own.
#pragma once

#include <omp.h>

namespace bf16x::util {

// Whether work for `threads` threads needs a team of its own: else run its body on the calling thread.
inline bool team_needed(int threads) { return threads > 1 || omp_get_level() > 0; }

}  // namespace bf16x::util
