#include "cli_checks.hpp"

#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "engine/records.hpp"
#include "settings/names.hpp"

namespace bf16x::cli {
namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// `names` are what the option accepts; `usable` says which of them this CPU runs (auto always resolves to one).
CLI::Validator engine_check(std::vector<std::string> names, bool (*usable)(int), const char* kind) {
  std::string desc = "{";
  for (const std::string& n : names) desc += (desc.size() > 1 ? "," : "") + n;
  desc += "}";
  return CLI::Validator(
      [names, usable, kind](std::string& s) -> std::string {
        if (std::find(names.begin(), names.end(), s) == names.end())
          return fmt::format("{} is not {} engine (one of {})", s, kind, joined(names));
        const int id = bf16x_engine_from_name(s.c_str());
        if (id == BF16X_ENGINE_AUTO || usable(id)) return {};
        std::vector<std::string> here;
        for (const std::string& n : names)
          if (n == "auto" || usable(bf16x_engine_from_name(n.c_str()))) here.push_back(n);
        return fmt::format("engine {} is not available on this CPU (available here: {})", s, joined(here));
      },
      desc, "ENGINE");
}

std::string size_text(double bytes) {
  return bytes >= double(1 << 30) ? fmt::format("{:.1f} GiB", bytes / double(1 << 30))
                                  : fmt::format("{:.0f} MiB", std::ceil(bytes / double(1 << 20)));
}

}  // namespace

CLI::Validator bf16_engine_check() {
  return engine_check(
      settings::bf16_engine_choices(), [](int id) { return bf16x_engine_available(id) == 1; }, "a BF16");
}

CLI::Validator int8_engine_check() {
  // The INT8 engines are the library's names that have an INT8 kernel; the public bf16x_engine_available answers
  // for the BF16 engine of an id that names both (amx, amx-model, reference), so ask the engine records.
  std::vector<std::string> names{"auto"};
  for (const std::string& n : settings::engine_name_list())
    if (engine::int8_engine(bf16x_engine_from_name(n.c_str()))) names.push_back(n);
  return engine_check(
      names, [](int id) { return engine::int8_usable(id); }, "an INT8");
}

CLI::Validator finite_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0;
        if (CLI::detail::lexical_cast(s, v) && std::isfinite(v)) return {};
        return s + " is not a finite number";
      },
      "", "FINITE");
}

CLI::Validator nonempty_check() {
  return CLI::Validator([](std::string& s) -> std::string { return s.empty() ? "an empty value names no file" : ""; },
                        "", "NONEMPTY");
}

CLI::Validator block_k_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        int v = -1;
        if (CLI::detail::lexical_cast(s, v) && v >= 0 && v <= 256 && v % 32 == 0) return {};
        return s + " is not a k-block depth: 0 (the mode's default) or a multiple of 32 up to 256";
      },
      "", "BLOCK_K");
}

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        std::uint64_t v = 0;
        if (s.find('-') == std::string::npos && CLI::detail::lexical_cast(s, v)) return {};
        return s + " is not a seed: an integer 0 .. 18446744073709551615";
      },
      "", "SEED");
}

std::string engine_label(const std::string& mode, int engine) {
  if (engine >= 0) return bf16x_engine_name(engine);
  return mode.rfind("fp64cr", 0) == 0 || mode.rfind("fp32cr", 0) == 0 ? "fma" : "native";
}

std::string help_footer() {
  return R"(Documentation (source tree; also the man page bf16x(1)):
  README.md              modes, engines, API; "Environment" (every variable), "Tools" (these subcommands)
  docs/accuracy.md       measured errors of every mode        docs/numerics.md     the error bounds and proofs
  docs/performance.md    speed against the host BLAS          docs/auto.md         how auto picks a mode
  docs/blas.md           the drop-in BLAS shim                docs/bench_json.md   bench --json format
Environment (read by the library at its first call, so by every subcommand; bf16x config shows the effect):
  BF16X_SGEMM_MODE BF16X_DGEMM_MODE  mode of the default calls    BF16X_MIN_SIZE     smaller calls run native
  BF16X_ENGINE BF16X_CRT_ENGINE      BF16 / INT8 engine choice    BF16X_GUARD        componentwise guard on|off
  BF16X_AUTO_TARGET BF16X_AUTO_COST  auto's target and cost model BF16X_NUM_THREADS  threads
  BF16X_COMPLEX_METHOD BF16X_SPLIT BF16X_CRT_SCALING BF16X_HOST_BLAS BF16X_VERBOSE BF16X_VERBOSE_OUTPUT_FILE,
  BF16X_AMX_KERNEL (the AMX kernels' schedule), and for tests BF16X_DRIVER_MCNC
Exit status: 0 success, 1 the run failed, 2 usage error (found before anything runs).)";
}

MemoryRoom memory_room() {
  MemoryRoom r{std::numeric_limits<double>::infinity(), "MemAvailable"};
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    double kib = 0;
    meminfo >> kib;
    if (key == "MemAvailable:") {
      r.bytes = kib * 1024;
      break;
    }
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    double pages = 0;  // what is mapped already (libraries, the host BLAS's buffers) counts against the limit
    std::ifstream("/proc/self/statm") >> pages;
    const double left = std::max(0.0, double(as.rlim_cur) - pages * double(sysconf(_SC_PAGESIZE)));
    if (left < r.bytes) r = {left, "ulimit -v"};
  }
  return r;
}

std::string memory_shortfall(double need) {
  const MemoryRoom room = memory_room();
  if (need <= room.bytes) return {};
  return fmt::format("needs {} of memory, {} available ({})", size_text(need), size_text(room.bytes), room.limited_by);
}

double gemm_workspace(bool is_double, std::int64_t m, std::int64_t n, std::int64_t k, const bf16x_options& o) {
  const double vectors = double(m + n) * 64;  // scale vectors, and the CRT driver's per-row exponents and factors
  std::uint64_t bytes = 0;
  return bf16x_workspace_bytes(is_double, BF16X_COL_MAJOR, m, n, k, &o, &bytes) == BF16X_OK ? double(bytes) + vectors
                                                                                            : 0.0;
}

double threads_reserve(int threads) {
  rlimit st{};
  double stack = 8 << 20;  // glibc's and libgomp's default thread stack follows RLIMIT_STACK
  if (getrlimit(RLIMIT_STACK, &st) == 0 && st.rlim_cur != RLIM_INFINITY)
    stack = std::clamp(double(st.rlim_cur), double(2 << 20), double(64 << 20));
  // OpenBLAS maps a 128 MiB buffer per thread at its first call, and retries forever when it cannot: a run that
  // does not leave room for it hangs instead of failing.
  const double host_blas = double(128 << 20);
  return std::max(threads, 1) * (stack + host_blas) + double(64 << 20);
}

}  // namespace bf16x::cli
