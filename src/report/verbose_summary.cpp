#include "report/verbose_summary.hpp"

#include <pthread.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace bf16x::report {
namespace {

struct Row {
  long long calls = 0;
  double flops = 0, seconds = 0;
  double repaired = 0, repaired_flops = 0;  // entries the guard recomputed, and their dot products' flops
};

// A function-local static built on the first call: its destructor runs at exit, or at dlclose for a dlopen'ed
// library (while its code is still mapped), and never for a process that made no call.
class Summary {
 public:
  Summary() : out_(verbose_sink()) {}  // the sink opened now, not while the process is tearing down
  ~Summary() { write(); }

  // A fork while another thread records a call must not leave the child's lock held; the child's summary counts
  // its own calls only (the parent reports its own).
  void fork_prepare() { mu_.lock(); }
  void fork_parent() { mu_.unlock(); }
  void fork_child() {
    rows_.clear();
    mu_.unlock();
  }

  void add(const SummaryRecord& c) {
    std::lock_guard<std::mutex> lock(mu_);
    Row& r = rows_[{c.routine, c.mode, c.engine}];
    ++r.calls;
    r.flops += c.flops;
    r.seconds += c.seconds;
    r.repaired += c.repaired;
    r.repaired_flops += c.repaired_flops;
  }

 private:
  void write() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string block;
    char line[512];
    long long calls = 0;
    double flops = 0, emulated = 0, repaired = 0;
    for (const auto& [key, r] : rows_) {
      const auto& [routine, mode, engine] = key;
      std::snprintf(line, sizeof line,
                    "BF16X_SUMMARY,routine=%s,mode=%s,engine=%s,calls=%lld,gflop=%.6g,seconds=%.6f,repaired=%.0f,"
                    "repaired_gflop=%.6g\n",
                    routine.c_str(), mode.c_str(), engine.c_str(), r.calls, r.flops * 1e-9, r.seconds, r.repaired,
                    r.repaired_flops * 1e-9);
      block += line;
      calls += r.calls;
      flops += r.flops;
      repaired += r.repaired;
      // The repaired entries' dot products ran in FP64, not on the engine.
      if (mode != "native" && mode != "-") emulated += r.flops - r.repaired_flops;
    }
    std::snprintf(line, sizeof line,
                  "BF16X_SUMMARY,total,calls=%lld,gflop=%.6g,emulated_gflop_share=%.4g,repaired=%.0f\n", calls,
                  flops * 1e-9, flops > 0 ? emulated / flops : 0.0, repaired);
    block += line;
    std::fputs(block.c_str(), out_);  // one write: the block stays whole
    std::fflush(out_);
  }

  std::FILE* out_;
  std::mutex mu_;
  std::map<std::tuple<std::string, std::string, std::string>, Row> rows_;  // (routine, mode, engine)
};

Summary& summary() {
  static Summary s;
  return s;
}

}  // namespace

void summary_add(const SummaryRecord& r) { summary().add(r); }

}  // namespace bf16x::report
