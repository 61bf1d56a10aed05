// The bench report as JSON, schema 2 (docs/bench_json.md), and the reader of schemas 1 and 2 behind --load.
// Schema 1 (no "schema_version"): a "machine" object of strings and rows timed in seconds; still read so that
// earlier measurements can be merged and re-plotted. Times are milliseconds in schema 2, as in the table.
#include <cmath>
#include <cstdio>
#include <fstream>

#include "cmd_bench_report.hpp"

namespace bf16x::cli::bench {
namespace {

constexpr int kSchemaVersion = 2;

using json = nlohmann::ordered_json;

json jnum(double x) { return std::isnan(x) ? json(nullptr) : json(x); }
json jms(double seconds) { return jnum(seconds * 1e3); }

// null: not measured or not applicable. A string or a bool where a number belongs is an error (json throws).
double num_of(const json& v) { return v.is_null() ? kNone : v.get<double>(); }

bool refuse(const std::string& path, const std::string& why) {
  std::fprintf(stderr, "bf16x bench: %s: %s\n", path.c_str(), why.c_str());
  return false;
}

}  // namespace

bool write_json(const Report& r, const std::string& path) {
  json j;
  j["schema_version"] = kSchemaVersion;
  j["header"] = r.header;
  j["merged"] = json::array();
  for (const Source& s : r.merged)
    j["merged"].push_back({{"file", s.file}, {"schema_version", s.schema_version}, {"header", s.header}});
  j["peaks"] = json::array();
  for (const Peak& p : r.peaks)
    j["peaks"].push_back({{"threads", p.threads},
                          {"gflops", p.gflops},
                          {"gflops_per_thread", p.gflops_per_thread},
                          {"latency_ns", p.latency_ns}});
  j["rows"] = json::array();
  for (const Row& x : r.rows)
    j["rows"].push_back({{"n", x.n},
                         {"threads", x.threads},
                         {"mode", x.what},
                         {"routine", x.routine},
                         {"products", x.products},
                         {"time_ms", jms(x.seconds)},
                         {"split_ms", jms(x.split)},
                         {"compute_ms", jms(x.compute)},
                         {"gflops", jnum(x.gflops)},
                         {"speedup_host", jnum(x.speedup_host)},
                         {"speedup_onednn", jnum(x.speedup_onednn)},
                         {"speedup_raw", jnum(x.speedup_raw)},
                         {"overhead", jnum(x.overhead)},
                         {"overhead_packed", jnum(x.overhead_packed)},
                         {"peak_fraction", jnum(x.peak_fraction)},
                         {"rel_err", jnum(x.rel_err)},
                         {"scan_ms", jms(x.scan)},
                         {"pack_ms", jms(x.pack)},
                         {"products_ms", jms(x.prod)},
                         {"write_ms", jms(x.write)},
                         {"sums_ms", jms(x.sums)},
                         {"bytes_scan", jnum(x.bytes_scan)},
                         {"bytes_pack", jnum(x.bytes_pack)},
                         {"bytes_write", jnum(x.bytes_write)},
                         {"dot_products", jnum(x.dot_products)},
                         {"bandwidth_gbs", jnum(x.bandwidth * 1e-9)},
                         {"clock_ghz", jnum(x.clock_hz * 1e-9)},
                         {"amx_projected_ms", jms(x.amx_seconds)},
                         {"amx_measured", x.amx_measured},
                         {"amx_native_model_ms", jms(x.amx_native)}});
  std::ofstream f(path);
  if (!f) return false;
  f << j.dump(2) << '\n';
  return bool(f);
}

bool read_json(Report& r, const std::string& path) {
  std::ifstream f(path);
  if (!f) return refuse(path, "cannot open");
  json j;
  try {
    f >> j;
    if (!j.is_object()) return refuse(path, "not a bf16x bench JSON report (no top-level object)");
    const int version = j.contains("schema_version") ? j["schema_version"].get<int>() : 1;
    if (version != 1 && version != kSchemaVersion)
      return refuse(path, "bench JSON schema_version " + std::to_string(version) +
                              " is not supported (this bf16x reads schema 1 and 2; docs/bench_json.md)");
    // Seconds in schema 1, milliseconds in schema 2.
    const char* time_key[3] = {"seconds", "seconds_split", "seconds_compute"};
    const char* ms_key[3] = {"time_ms", "split_ms", "compute_ms"};
    const double to_s = version == 1 ? 1.0 : 1e-3;
    if (version == 1) {
      r.merged.push_back({path, 1, j.at("machine")});
    } else {
      if (!j.at("header").is_null()) r.merged.push_back({path, version, j["header"]});
      for (const auto& s : j.at("merged"))
        r.merged.push_back({s.at("file").get<std::string>(), s.at("schema_version").get<int>(), s.at("header")});
    }
    for (const auto& p : j.at("peaks"))
      r.peaks.push_back({p.at("threads").get<int>(), p.at("gflops").get<double>(),
                         p.at("gflops_per_thread").get<double>(), p.at("latency_ns").get<double>()});
    for (const auto& x : j.at("rows")) {
      const auto& keys = version == 1 ? time_key : ms_key;
      Row row;
      row.n = x.at("n").get<std::int64_t>();
      row.threads = x.at("threads").get<int>();
      row.what = x.at("mode").get<std::string>();
      row.routine = x.at("routine").get<std::string>();
      row.products = x.at("products").get<int>();
      row.seconds = num_of(x.at(keys[0])) * to_s;
      row.split = num_of(x.at(keys[1])) * to_s;
      row.compute = num_of(x.at(keys[2])) * to_s;
      row.gflops = num_of(x.at("gflops"));
      row.speedup_host = num_of(x.at("speedup_host"));
      row.speedup_onednn = num_of(x.at("speedup_onednn"));
      row.speedup_raw = num_of(x.at("speedup_raw"));
      row.overhead = num_of(x.at("overhead"));
      row.overhead_packed = num_of(x.at("overhead_packed"));
      row.peak_fraction = num_of(x.at("peak_fraction"));
      row.rel_err = num_of(x.at("rel_err"));
      // The phases and the AMX projection (schema 2 files written since; absent before).
      const auto opt = [&](const char* key, double scale) {
        return x.contains(key) ? num_of(x.at(key)) * scale : kNone;
      };
      row.scan = opt("scan_ms", 1e-3), row.pack = opt("pack_ms", 1e-3), row.prod = opt("products_ms", 1e-3);
      row.write = opt("write_ms", 1e-3), row.sums = opt("sums_ms", 1e-3);
      row.bytes_scan = opt("bytes_scan", 1), row.bytes_pack = opt("bytes_pack", 1),
      row.bytes_write = opt("bytes_write", 1);
      row.dot_products = opt("dot_products", 1), row.bandwidth = opt("bandwidth_gbs", 1e9);
      row.clock_hz = opt("clock_ghz", 1e9);
      row.amx_seconds = opt("amx_projected_ms", 1e-3), row.amx_native = opt("amx_native_model_ms", 1e-3);
      row.amx_measured =
          x.contains("amx_measured") && x.at("amx_measured").is_boolean() && x.at("amx_measured").get<bool>();
      r.rows.push_back(row);
    }
  } catch (const nlohmann::json::exception& e) {
    return refuse(path, std::string("malformed bench JSON: ") + e.what());
  }
  return true;
}

}  // namespace bf16x::cli::bench
