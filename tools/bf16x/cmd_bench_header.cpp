#include "cmd_bench_header.hpp"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>

#include "bf16x/bf16x.h"
#include "cmd_bench_baselines.hpp"
#include "cpu/features.hpp"
#include "host/host_blas.hpp"
#include "report/config.hpp"
#include "settings/names.hpp"

namespace bf16x::cli::bench {
namespace {

// "" (or oneDNN's "not built") means absent: null, not a string a script would have to recognise.
nlohmann::ordered_json or_null(const std::string& s) {
  return s.empty() || s == "not built" ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

}  // namespace

std::string utc_now_iso8601() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

nlohmann::ordered_json load_average() {
  std::ifstream f("/proc/loadavg");
  double l[3];
  if (!(f >> l[0] >> l[1] >> l[2])) return nullptr;
  return {l[0], l[1], l[2]};
}

nlohmann::ordered_json run_header(const RunSettings& s) {
  nlohmann::ordered_json h;
  h["date"] = utc_now_iso8601();
  h["bf16x_version"] = bf16x_version();
  h["cpu"] = report::cpu_model_name();
  h["cores"] = sysconf(_SC_NPROCESSORS_ONLN);  // logical CPUs online (other processes may share them)
  h["engine"] = bf16x_engine_name(s.engine_id);
  h["avx512_bf16"] = cpu::has_avx512bf16();
  h["avx2_fma"] = cpu::has_avx2_fma();
  h["amx"] = cpu::amx_available();
  h["amx_unavailable_reason"] = or_null(cpu::amx_unavailable_reason());
  h["host_blas"] = or_null(host::library_name());
  h["host_kernel"] = or_null(host::core_name());  // OpenBLAS only
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  h["openblas_coretype"] = or_null(coretype ? coretype : "");
  h["host_threads_via"] = or_null(set_host_threads(1));
  h["onednn"] = or_null(OnednnMatmul::version());
  h["onednn_matmul_impl"] = or_null(OnednnMatmul(256, 256, 256).impl());
  h["sizes"] = s.sizes;
  h["threads"] = s.threads;
  h["modes"] = s.modes;
  h["reps"] = s.reps;
  h["warmup"] = s.warmup;
  h["wait_idle_s"] = s.wait_idle_s;
  h["inputs"] = "uniform [-1, 1], square, column-major, no transpose, alpha 1, beta 0";
  h["load_average_start"] = load_average();
  return h;
}

}  // namespace bf16x::cli::bench
