#include "cli_checks.hpp"

#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "api/names.hpp"
#include "engine/records.hpp"

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
      api::bf16_engine_choices(), [](int id) { return bf16x_engine_available(id) == 1; }, "a BF16");
}

CLI::Validator int8_engine_check() {
  // The INT8 engines are the library's names that have an INT8 kernel; the public bf16x_engine_available answers
  // for the BF16 engine of an id that names both (amx, amx-model, reference), so ask the engine records.
  std::vector<std::string> names{"auto"};
  for (const std::string& n : api::engine_name_list())
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
