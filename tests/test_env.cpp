// The environment: one strict parser for every BF16X_* variable, one stderr line per refused value, and no way for
// a mode of the wrong precision to reach the driver (BF16X_DGEMM_MODE=fp32x6 once ran the FP32 scheme on FP64
// data: eF 110 and heap corruption).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bf16x/bf16x.h"
#include "cpu/features.hpp"
#include "env/env_vars.hpp"
#include "env/variables.hpp"
#include "settings/env.hpp"
#include "support/probe.hpp"

using namespace bf16x;
using test::count_containing;
using test::ProbeRun;
using test::run_probe;

namespace {

struct FakeEnv {
  std::map<std::string, std::string> vars;
  std::vector<std::string> warnings;
  envvar::Source source() {
    return {[this](const char* n) {
              auto it = vars.find(n);
              return it == vars.end() ? static_cast<const char*>(nullptr) : it->second.c_str();
            },
            [this](const std::string& w) { warnings.push_back(w); }};
  }
  settings::Env parse() { return settings::parse_env(source()); }
};

TEST(EnvParse, IntegersAreDecimalDigitsOnly) {
  EXPECT_EQ(envvar::parse_integer("0", INT64_MAX), 0);
  EXPECT_EQ(envvar::parse_integer("65", INT64_MAX), 65);
  EXPECT_EQ(envvar::parse_integer("9223372036854775807", INT64_MAX), INT64_MAX);
  for (const char* bad : {"-3", "1e3", "65x", "+5", " 5", "5 ", "", "0x10", "9223372036854775808", "1.0"})
    EXPECT_FALSE(envvar::parse_integer(bad, INT64_MAX).has_value()) << bad;
}

TEST(EnvParse, BooleansAcceptTheDocumentedSpellingsOnly) {
  for (const char* t : {"1", "on", "true", "yes"}) EXPECT_EQ(envvar::parse_boolean(t), true) << t;
  for (const char* f : {"0", "off", "false", "no"}) EXPECT_EQ(envvar::parse_boolean(f), false) << f;
  for (const char* bad : {"2", "ON", "True", "y", "enable", ""}) EXPECT_FALSE(envvar::parse_boolean(bad)) << bad;
}

TEST(EnvParse, DefaultsWhenUnset) {
  FakeEnv f;
  const settings::Env e = f.parse();
  EXPECT_EQ(e.sgemm_mode, BF16X_MODE_AUTO);
  EXPECT_EQ(e.dgemm_mode, BF16X_MODE_AUTO);
  EXPECT_EQ(e.min_size, 0);
  EXPECT_EQ(e.engine, BF16X_ENGINE_AUTO);
  EXPECT_FALSE(e.engine_set);
  EXPECT_FALSE(e.verbose);
  EXPECT_EQ(e.split, BF16X_SPLIT_SCALED);
  EXPECT_EQ(e.auto_target, 0.0);
  EXPECT_TRUE(e.auto_cost);
  EXPECT_TRUE(f.warnings.empty());
}

TEST(EnvParse, ModesOfTheWrongPrecisionAreRefused) {
  FakeEnv f;
  f.vars = {{"BF16X_DGEMM_MODE", "fp32x6"}, {"BF16X_SGEMM_MODE", "fp64x21"}};
  const settings::Env e = f.parse();
  EXPECT_EQ(e.dgemm_mode, BF16X_MODE_AUTO);
  EXPECT_EQ(e.sgemm_mode, BF16X_MODE_AUTO);
  ASSERT_EQ(f.warnings.size(), 2u);
  EXPECT_NE(f.warnings[0].find("BF16X_SGEMM_MODE=fp64x21"), std::string::npos) << f.warnings[0];
  EXPECT_NE(f.warnings[1].find("BF16X_DGEMM_MODE=fp32x6"), std::string::npos) << f.warnings[1];
  EXPECT_NE(f.warnings[1].find("using auto"), std::string::npos) << f.warnings[1];
}

TEST(EnvParse, ValidValuesAreTaken) {
  FakeEnv f;
  f.vars = {{"BF16X_DGEMM_MODE", "fp64x15"}, {"BF16X_SGEMM_MODE", "native"}, {"BF16X_MIN_SIZE", "65"},
            {"BF16X_ENGINE", "reference"},   {"BF16X_VERBOSE", "on"},        {"BF16X_SPLIT", "paper"},
            {"BF16X_AUTO_TARGET", "1e-10"},  {"BF16X_AUTO_COST", "off"},     {"BF16X_COMPLEX_METHOD", "3m"},
            {"BF16X_CRT_SCALING", "fast"},   {"BF16X_GUARD", "off"}};
  const settings::Env e = f.parse();
  EXPECT_EQ(e.guard, BF16X_GUARD_OFF);
  EXPECT_EQ(e.complex_method, BF16X_COMPLEX_3M);
  EXPECT_EQ(e.dgemm_mode, BF16X_MODE_FP64X15);
  EXPECT_EQ(e.sgemm_mode, BF16X_MODE_NATIVE);
  EXPECT_EQ(e.min_size, 65);
  EXPECT_EQ(e.engine, BF16X_ENGINE_REFERENCE);
  EXPECT_TRUE(e.engine_set);
  EXPECT_TRUE(e.verbose);
  EXPECT_EQ(e.split, BF16X_SPLIT_PAPER);
  EXPECT_EQ(e.auto_target, 1e-10);
  EXPECT_FALSE(e.auto_cost);
  EXPECT_TRUE(e.crt_fast_scaling);
  EXPECT_TRUE(f.warnings.empty());
}

// BF16X_VERBOSE: the booleans give the per-call lines alone, summary the summary at exit alone, all both.
TEST(EnvParse, VerboseTakesSummaryAndAll) {
  for (const auto& [value, lines, summary] : std::vector<std::tuple<std::string, bool, bool>>{
           {"1", true, false}, {"off", false, false}, {"summary", false, true}, {"all", true, true}}) {
    FakeEnv f;
    f.vars = {{"BF16X_VERBOSE", value}};
    const settings::Env e = f.parse();
    EXPECT_EQ(e.verbose, lines) << value;
    EXPECT_EQ(e.summary, summary) << value;
    EXPECT_TRUE(f.warnings.empty()) << value;
  }
  EXPECT_FALSE(FakeEnv{}.parse().summary);
}

TEST(EnvParse, EveryBadValueGivesOneLineNamingTheVariableAndWhatIsKept) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"BF16X_MIN_SIZE", "-3"},       {"BF16X_MIN_SIZE", "1e3"},       {"BF16X_MIN_SIZE", "65x"},
      {"BF16X_VERBOSE", "maybe"},     {"BF16X_AUTO_COST", "disabled"}, {"BF16X_SPLIT", "Paper"},
      {"BF16X_ENGINE", "avx1024"},    {"BF16X_AUTO_TARGET", "-1"},     {"BF16X_AUTO_TARGET", "1e-10x"},
      {"BF16X_DGEMM_MODE", "fast"},   {"BF16X_SGEMM_MODE", "default"}, {"BF16X_COMPLEX_METHOD", "3M"},
      {"BF16X_CRT_SCALING", "quick"}, {"BF16X_VERBOSE", "Summary"},    {"BF16X_GUARD", "Off"}};
  for (const auto& [var, value] : bad) {
    FakeEnv f;
    f.vars = {{var, value}};
    const settings::Env e = f.parse();
    ASSERT_EQ(f.warnings.size(), 1u) << var << "=" << value;
    EXPECT_NE(f.warnings[0].find(var + "=" + value), std::string::npos) << f.warnings[0];
    EXPECT_NE(f.warnings[0].find("using "), std::string::npos) << f.warnings[0];
    // The default is kept.
    FakeEnv unset;
    const settings::Env d = unset.parse();
    EXPECT_EQ(e.min_size, d.min_size);
    EXPECT_EQ(e.verbose, d.verbose);
    EXPECT_EQ(e.summary, d.summary);
    EXPECT_EQ(e.auto_cost, d.auto_cost);
    EXPECT_EQ(e.crt_fast_scaling, d.crt_fast_scaling);
    EXPECT_EQ(e.split, d.split);
    EXPECT_EQ(e.engine, d.engine);
    EXPECT_EQ(e.auto_target, d.auto_target);
    EXPECT_EQ(e.dgemm_mode, d.dgemm_mode);
    EXPECT_EQ(e.sgemm_mode, d.sgemm_mode);
    EXPECT_EQ(e.complex_method, d.complex_method);
    EXPECT_EQ(e.guard, d.guard);
  }
}

// BF16X_NUM_THREADS, like OPENBLAS_NUM_THREADS: decimal digits up to BF16X_MAX_THREADS, else refused (one line).
TEST(EnvParse, NumThreadsIsACountUpToTheLimit) {
  for (const auto& [value, want] : std::vector<std::pair<std::string, int>>{{"3", 3}, {"0", 0}, {"4096", 4096}}) {
    FakeEnv f;
    f.vars = {{"BF16X_NUM_THREADS", value}};
    EXPECT_EQ(f.parse().num_threads, want) << value;
    EXPECT_TRUE(f.warnings.empty()) << value;
  }
  EXPECT_EQ(FakeEnv{}.parse().num_threads, 0);
  for (const char* bad : {"4097", "100000000000", "-2", "2x", "1e3"}) {
    FakeEnv f;
    f.vars = {{"BF16X_NUM_THREADS", bad}};
    EXPECT_EQ(f.parse().num_threads, 0) << bad;
    ASSERT_EQ(f.warnings.size(), 1u) << bad;
    EXPECT_NE(f.warnings[0].find(std::string("BF16X_NUM_THREADS=") + bad), std::string::npos) << f.warnings[0];
    EXPECT_NE(f.warnings[0].find("OpenMP's default"), std::string::npos) << f.warnings[0];
  }
}

// Error bounds of the probe's calls (k <= 300, uniform [-1, 1], vs exact): any correct SGEMM path stays below
// 2 k u32 relative to |A||B| ~ the result's norm (3.6e-5 at k = 300); DGEMM below 2 k u64 (6.7e-14) unless an
// emulation mode runs, and the default here (auto) is either native or a mode meeting native's own bound.
void expect_accurate(const ProbeRun& r, bool check_errors = true) {
  ASSERT_EQ(r.out.size(), 5u);
  EXPECT_EQ(r.out[0], "rejected status=" + std::to_string(BF16X_ERR_LDA) + "\n");
  for (std::size_t i = 1; i < r.out.size(); ++i) {
    const std::string& l = r.out[i];
    std::istringstream in(l);
    std::string routine, status, mode, ef;
    long long m, n, k;
    in >> routine >> m >> n >> k >> status >> mode >> ef;
    EXPECT_EQ(status, "status=0") << l;
    const double e = std::stod(ef.substr(3));
    const double u = routine == "dgemm" ? 0x1p-53 : 0x1p-24;
    if (check_errors) {
      EXPECT_LT(e, 2 * double(k) * u) << l;
    }
    if (routine == "dgemm") {
      EXPECT_EQ(mode.find("fp32"), std::string::npos) << l;
    } else {
      EXPECT_EQ(mode.find("fp64"), std::string::npos) << l;
    }
  }
}

TEST(EnvProcess, DgemmModeOfTheWrongPrecisionIsRefusedAndResultsStayAccurate) {
  const ProbeRun r = run_probe("BF16X_DGEMM_MODE=fp32x6 BF16X_SGEMM_MODE=fp64x21");
  expect_accurate(r);
  EXPECT_EQ(count_containing(r.err, "BF16X_DGEMM_MODE=fp32x6"), 1);
  EXPECT_EQ(count_containing(r.err, "BF16X_SGEMM_MODE=fp64x21"), 1);
}

TEST(EnvProcess, BadValuesAreReportedOncePerProcess) {
  const ProbeRun r = run_probe("BF16X_MIN_SIZE=65x BF16X_VERBOSE=maybe BF16X_ENGINE=avx1024");
  expect_accurate(r);
  EXPECT_EQ(count_containing(r.err, "BF16X_MIN_SIZE=65x"), 1);
  EXPECT_EQ(count_containing(r.err, "BF16X_VERBOSE=maybe"), 1);
  EXPECT_EQ(count_containing(r.err, "BF16X_ENGINE=avx1024"), 1);
}

TEST(EnvNames, UnknownVariablesAreFoundWithTheNamesTheyMostLikelyMeant) {
  const char* entries[] = {
      "BF16X_MODE=fp64c15", "BF16X_GAURD=off",  "BF16X_THREADS=2", "BF16X_XYZZY=1", "BF16X_DGEMM_MODE=auto",
      "BF16X_QEMU=0",       "BF16X_LIBRARY=/x", "PATH=/bin",       "BF16X_VERBOSE", nullptr};
  const auto u = bf16x::envvar::unknown_variables(entries);
  std::map<std::string, std::string> got;
  for (const auto& x : u) got[x.name] = x.nearest;
  // The library's, the Python package's and the scripts' own names are known; PATH is not bf16x's.
  EXPECT_EQ(got, (std::map<std::string, std::string>{{"BF16X_MODE", "BF16X_SGEMM_MODE or BF16X_DGEMM_MODE"},
                                                     {"BF16X_GAURD", "BF16X_GUARD"},
                                                     {"BF16X_THREADS", "BF16X_NUM_THREADS"},
                                                     {"BF16X_XYZZY", ""}}));
}

TEST(EnvProcess, UnknownVariableIsReportedOnceWithTheNearestName) {
  const ProbeRun r = run_probe("BF16X_MODE=fp64c15 BF16X_DGEMM_MODE=native");
  expect_accurate(r);
  EXPECT_EQ(count_containing(r.err,
                             "BF16X_MODE is not a bf16x variable; did you mean BF16X_SGEMM_MODE or "
                             "BF16X_DGEMM_MODE?"),
            1);
}

TEST(EnvProcess, UnloadableHostBlasIsReportedAndTheDefaultHostUsed) {
  const ProbeRun r = run_probe("BF16X_HOST_BLAS=/nonexistent/libnothing.so BF16X_DGEMM_MODE=native");
  expect_accurate(r);
  EXPECT_EQ(count_containing(r.err, "BF16X_HOST_BLAS=/nonexistent/libnothing.so cannot be loaded"), 1);
}

// bf16x_workspace_bytes with NULL options in a CRT mode from the environment: the CRT driver's workspace, equal
// to what the call reserves (it died with SIGSEGV: the lookup of a BF16 scheme had no CRT entries, and the stats
// said 0). Under auto it is at least what the mode auto chose reserved (auto's largest candidate, CRT included).
void expect_workspace(const ProbeRun& r, bool exact) {
  ASSERT_EQ(r.out.size(), 4u);
  for (const std::string& l : r.out) {
    std::istringstream in(l);
    std::string tag, routine, status, bytes, stats, mode;
    long long m, n, k;
    in >> tag >> routine >> m >> n >> k >> status >> bytes >> stats >> mode;
    EXPECT_EQ(status, "status=0") << l;
    const unsigned long long b = std::stoull(bytes.substr(6)), s = std::stoull(stats.substr(6));
    EXPECT_GT(s, 0u) << l;
    if (exact) {
      EXPECT_EQ(b, s) << l;
    } else {
      EXPECT_GE(b, s) << l;
    }
  }
}

TEST(EnvProcess, CrtModeWorkspaceIsWhatTheCallReserves) {
  const ProbeRun r = run_probe("BF16X_DGEMM_MODE=fp64c15 BF16X_SGEMM_MODE=fp32c8", "workspace");
  expect_workspace(r, true);
  for (const std::string& l : r.out)
    EXPECT_NE(l.find(l.find("dgemm") != std::string::npos ? "mode=fp64c15" : "mode=fp32c8"), std::string::npos) << l;
  expect_workspace(run_probe("BF16X_DGEMM_MODE=auto BF16X_SGEMM_MODE=auto BF16X_AUTO_COST=off", "workspace"), false);
}

TEST(EnvProcess, UnavailableEngineIsReportedOnce) {
  if (cpu::amx_available()) GTEST_SKIP() << "AMX is available here: BF16X_ENGINE=amx is not a fallback case";
  const ProbeRun r = run_probe("BF16X_ENGINE=amx BF16X_DGEMM_MODE=fp64x21 BF16X_SGEMM_MODE=fp32x6");
  expect_accurate(r);
  EXPECT_EQ(count_containing(r.err, "BF16X_ENGINE=amx is not available on this CPU"), 1);
}

}  // namespace

namespace {

// key=value fields of a verbose line after its fixed prefix (routine, transposes, m, n, k).
std::map<std::string, std::string> fields(const std::string& line, std::vector<std::string>* fixed) {
  std::map<std::string, std::string> kv;
  std::stringstream in(line.substr(0, line.find_last_not_of('\n') + 1));
  std::string f;
  while (std::getline(in, f, ',')) {
    const auto eq = f.find('=');
    if (eq == std::string::npos)
      fixed->push_back(f);
    else
      kv[f.substr(0, eq)] = f.substr(eq + 1);
  }
  return kv;
}

}  // namespace

// docs/verbose.md: one header line per process, then one line per call (rejected calls too), each with the full
// argument list, the mode and engine that ran, the threads, the status and the time; BF16X_VERBOSE_OUTPUT_FILE.
// Auto's line says what it measured (fill ratio, predicted e_scaled, target) whichever family it chose, a CRT mode
// included. With the cost model off every call is decided by the error model alone.
TEST(EnvProcess, AutoLinesSayWhatAutoMeasured) {
  const ProbeRun r = run_probe("BF16X_VERBOSE=1 BF16X_DGEMM_MODE=auto BF16X_AUTO_COST=off");
  int emulated = 0;
  for (const std::string& l : r.err)
    if (l.rfind("BF16X_VERBOSE,dgemm,", 0) == 0 && l.find("status=ok") != std::string::npos &&
        l.find("mode=native") == std::string::npos && l.find("quick_return") == std::string::npos) {
      ++emulated;
      EXPECT_NE(l.find(",auto_fill="), std::string::npos) << l;
      EXPECT_NE(l.find(",auto_predicted="), std::string::npos) << l;
      EXPECT_NE(l.find(",auto_target="), std::string::npos) << l;
    }
  EXPECT_GT(emulated, 0);
}

TEST(EnvProcess, VerboseLinesFollowTheDocumentedFormat) {
  const std::string log = ::testing::TempDir() + "bf16x_verbose_format.log";
  std::remove(log.c_str());
  const ProbeRun r = run_probe(
      "BF16X_VERBOSE=1 BF16X_DGEMM_MODE=fp64x6 BF16X_SGEMM_MODE=native "
      "BF16X_VERBOSE_OUTPUT_FILE=" +
      log);
  expect_accurate(r, false);  // fp64x6 has its own bound (test_modes.cpp); this test is about the log
  EXPECT_EQ(count_containing(r.err, "BF16X_VERBOSE"), 0) << "verbose lines belong in the output file";
  std::ifstream f(log);
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 6u);  // header + rejected + 4 calls
  std::vector<std::string> fixed;
  auto h = fields(lines[0], &fixed);
  EXPECT_EQ(fixed, (std::vector<std::string>{"BF16X_VERBOSE", "header"}));
  EXPECT_EQ(h["version"], bf16x_version());
  for (const char* key : {"engine", "isa", "host", "kernel", "threads", "cpu"}) EXPECT_TRUE(h.count(key)) << key;
  const std::vector<std::string> call_keys = {"mode", "engine", "layout",  "alpha",  "lda",    "ldb",
                                              "beta", "ldc",    "threads", "status", "time_ms"};
  for (std::size_t i = 1; i < lines.size(); ++i) {
    fixed.clear();
    auto kv = fields(lines[i], &fixed);
    ASSERT_EQ(fixed.size(), 7u) << lines[i];
    EXPECT_EQ(fixed[0], "BF16X_VERBOSE");
    for (const auto& key : call_keys) EXPECT_TRUE(kv.count(key)) << key << " missing in " << lines[i];
    EXPECT_GE(std::stod(kv["time_ms"]), 0.0);
  }
  fixed.clear();
  auto rejected = fields(lines[1], &fixed);
  EXPECT_EQ(fixed, (std::vector<std::string>{"BF16X_VERBOSE", "dgemm", "N", "N", "2", "2", "2"}));
  EXPECT_EQ(rejected["status"], bf16x_status_string(BF16X_ERR_LDA));
  EXPECT_EQ(rejected["lda"], "1");
  EXPECT_EQ(rejected["mode"], "-");
  fixed.clear();
  auto d = fields(lines[2], &fixed);
  EXPECT_EQ(fixed, (std::vector<std::string>{"BF16X_VERBOSE", "dgemm", "N", "N", "128", "128", "128"}));
  EXPECT_EQ(d["mode"], "fp64x6");
  EXPECT_EQ(d["status"], "ok");
  EXPECT_EQ(d["alpha"], "1");
  EXPECT_EQ(d["beta"], "0");
  EXPECT_EQ(d["layout"], "col");
  EXPECT_NE(d["threads"], "host");
  fixed.clear();
  auto s = fields(lines[4], &fixed);
  EXPECT_EQ(s["mode"], "native");
  EXPECT_EQ(s["threads"], "host");
}

// docs/verbose.md, Summary: BF16X_VERBOSE=summary gives no per-call line but, at exit, one line per (routine, mode,
// engine) that ran (rejected calls on their own line, mode -) and a total with the emulated share of the GFlop.
namespace {

std::vector<std::string> summary_lines(const std::vector<std::string>& lines) {
  std::vector<std::string> s;
  for (const auto& l : lines)
    if (l.rfind("BF16X_SUMMARY,", 0) == 0) s.push_back(l);
  return s;
}

// The probe's calls with DGEMM fp64x6 and SGEMM native: one rejected DGEMM, then 128^3 and 100x90x300 of each.
void expect_probe_summary(const std::vector<std::string>& lines) {
  const double gflop = 2e-9 * (128.0 * 128 * 128 + 100.0 * 90 * 300);
  ASSERT_EQ(lines.size(), 4u);
  std::map<std::string, std::map<std::string, std::string>> rows;  // routine/mode -> fields
  std::map<std::string, std::string> total;
  for (const auto& l : lines) {
    std::vector<std::string> fixed;
    auto kv = fields(l, &fixed);
    if (fixed == std::vector<std::string>{"BF16X_SUMMARY", "total"})
      total = kv;
    else
      rows[kv["routine"] + "/" + kv["mode"]] = kv;
  }
  ASSERT_EQ(rows.size(), 3u);
  for (const char* key : {"dgemm/fp64x6", "sgemm/native", "dgemm/-"}) ASSERT_TRUE(rows.count(key)) << key;
  EXPECT_EQ(rows["dgemm/fp64x6"]["calls"], "2");
  EXPECT_NEAR(std::stod(rows["dgemm/fp64x6"]["gflop"]), gflop, 1e-5 * gflop);
  EXPECT_NE(rows["dgemm/fp64x6"]["engine"], "-");
  EXPECT_EQ(rows["sgemm/native"]["calls"], "2");
  EXPECT_NEAR(std::stod(rows["sgemm/native"]["gflop"]), gflop, 1e-5 * gflop);
  EXPECT_NE(rows["sgemm/native"]["engine"], "-");  // the host library
  EXPECT_EQ(rows["dgemm/-"]["calls"], "1");
  EXPECT_EQ(rows["dgemm/-"]["engine"], "-");
  EXPECT_EQ(std::stod(rows["dgemm/-"]["gflop"]), 0.0);
  for (auto& [key, kv] : rows) EXPECT_GE(std::stod(kv["seconds"]), 0.0) << key;
  EXPECT_EQ(total["calls"], "5");
  const double all = std::stod(total["gflop"]), share = std::stod(total["emulated_gflop_share"]);
  EXPECT_NEAR(all, 2 * gflop, 1e-5 * gflop);
  EXPECT_GT(share, 0.0);
  EXPECT_LT(share, 1.0);
  EXPECT_NEAR(share, std::stod(rows["dgemm/fp64x6"]["gflop"]) / all, 1e-3);
}

}  // namespace

TEST(EnvProcess, VerboseSummaryCountsTheCallsAtExit) {
  const ProbeRun r = run_probe("BF16X_VERBOSE=summary BF16X_DGEMM_MODE=fp64x6 BF16X_SGEMM_MODE=native");
  expect_accurate(r, false);
  EXPECT_EQ(count_containing(r.err, "BF16X_VERBOSE"), 0) << "no header and no per-call line";
  expect_probe_summary(summary_lines(r.err));
}

TEST(EnvProcess, VerboseAllGivesLinesAndSummaryInTheOutputFile) {
  const std::string log = ::testing::TempDir() + "bf16x_verbose_all.log";
  std::remove(log.c_str());
  const ProbeRun r = run_probe(
      "BF16X_VERBOSE=all BF16X_DGEMM_MODE=fp64x6 BF16X_SGEMM_MODE=native "
      "BF16X_VERBOSE_OUTPUT_FILE=" +
      log);
  expect_accurate(r, false);
  EXPECT_EQ(count_containing(r.err, "BF16X_"), 0);
  std::ifstream f(log);
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);) lines.push_back(l);
  EXPECT_EQ(count_containing(lines, "BF16X_VERBOSE,"), 6);  // header + rejected + 4 calls
  expect_probe_summary(summary_lines(lines));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().rfind("BF16X_SUMMARY,total,", 0), 0u) << "the summary comes last";
}

TEST(EnvProcess, VerboseOneGivesNoSummary) {
  const ProbeRun r = run_probe("BF16X_VERBOSE=1 BF16X_DGEMM_MODE=fp64x6 BF16X_SGEMM_MODE=native");
  EXPECT_EQ(count_containing(r.err, "BF16X_VERBOSE,"), 6);
  EXPECT_EQ(count_containing(r.err, "BF16X_SUMMARY"), 0);
}

TEST(EnvProcess, VerboseSummaryOfNoCallIsNothing) {
  const ProbeRun r = run_probe("BF16X_VERBOSE=all", "none");
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(r.err.empty()) << r.err[0];
}
