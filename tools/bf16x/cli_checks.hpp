// Checks the subcommands make before anything runs: engine names the library knows and this CPU can run, finite
// numbers, and whether the memory a run needs is there (so that a size it cannot hold is refused with a reason
// instead of ending in std::bad_alloc or the OOM killer).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "bf16x/bf16x.h"

namespace bf16x::cli {

// --engine: "auto" or a BF16 engine (bf16x_engine_from_name) that this CPU can run (bf16x_engine_available).
CLI::Validator bf16_engine_check();
// --crt-engine: "auto" or an INT8 engine of the CRT modes that this CPU can run.
CLI::Validator int8_engine_check();
// A finite number: CLI::Range alone lets NaN through (every comparison with NaN is false).
CLI::Validator finite_check();
// A file or directory name: an empty one ('') names nothing, and would print as an empty name.
CLI::Validator nonempty_check();
// --block-k: 0 (the mode's default) or a multiple of 32 up to 256, the library's rule (BF16X_ERR_OPTIONS otherwise),
// checked before anything runs.
CLI::Validator block_k_check();
// --seed: 0 .. 2^64 - 1; "-1" would otherwise wrap to 2^64 - 1 without a word.
CLI::Validator seed_check();

// The engine column of a mode's row: the BF16 or INT8 engine that ran (bf16x_stats.engine), "fma" for the correctly
// rounded modes (no matrix engine: the stats say -1 there) and "native" for calls the host BLAS ran.
std::string engine_label(const std::string& mode, int engine);

// The text that ends `bf16x --help`: where the documentation is, and the environment variables the library reads.
std::string help_footer();

// What a run may still allocate: the smaller of the physical memory available (/proc/meminfo MemAvailable) and,
// under ulimit -v, the address space this process has not mapped yet (RLIMIT_AS minus /proc/self/statm).
struct MemoryRoom {
  double bytes = 0;
  const char* limited_by = "";  // "MemAvailable" or "ulimit -v"
};
MemoryRoom memory_room();
// Empty when `need` bytes fit in memory_room(), else why not: "needs 60.0 GiB, 3.5 GiB available (ulimit -v)".
std::string memory_shortfall(double need);

// Workspace of one sgemm/dgemm call with these options at the current OpenMP thread count, as the library reports it
// (bf16x_workspace_bytes), plus its per-row vectors. 0 when the call would fail anyway: it then returns its status,
// which the subcommand prints.
double gemm_workspace(bool is_double, std::int64_t m, std::int64_t n, std::int64_t k, const bf16x_options& o);
// Address space of a team of `threads` threads (a stack and a host BLAS buffer each) and a margin for what malloc
// and the OpenMP runtime map besides the counted buffers.
double threads_reserve(int threads);

}  // namespace bf16x::cli
