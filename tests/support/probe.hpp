// The env probe process (tests/env_probe, BF16X_ENV_PROBE) run under a given environment, for the tests of what the
// library does with its environment (it is read once per process).
#pragma once
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace bf16x::test {

// The probe process (tests/env_probe) under a given environment: its stdout and stderr lines.
struct ProbeRun {
  std::vector<std::string> out, err;
};
inline ProbeRun run_probe(const std::string& env, const std::string& args = "") {
  // One file per test: CTest runs the tests of this suite in parallel processes.
  const std::string err_file = ::testing::TempDir() + "bf16x_env_probe_" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".err";
  const std::string cmd = "env " + env + " " BF16X_ENV_PROBE " " + args + " 2>" + err_file;
  ProbeRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 512> buf;
  while (std::fgets(buf.data(), int(buf.size()), p)) r.out.emplace_back(buf.data());
  EXPECT_EQ(pclose(p), 0) << cmd;
  if (FILE* e = std::fopen(err_file.c_str(), "r")) {
    while (std::fgets(buf.data(), int(buf.size()), e)) r.err.emplace_back(buf.data());
    std::fclose(e);
  }
  return r;
}

inline int count_containing(const std::vector<std::string>& lines, const std::string& s) {
  int n = 0;
  for (const auto& l : lines) n += l.find(s) != std::string::npos;
  return n;
}

}  // namespace bf16x::test
