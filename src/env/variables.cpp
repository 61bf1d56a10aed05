#include "env/variables.hpp"

#include <algorithm>
#include <cstring>

namespace bf16x::envvar {

const std::vector<Variable>& variables() {
  static const std::vector<Variable> v = {
      {"BF16X_SGEMM_MODE", "library"},  {"BF16X_DGEMM_MODE", "library"},
      {"BF16X_MIN_SIZE", "library"},    {"BF16X_ENGINE", "library"},
      {"BF16X_CRT_ENGINE", "library"},  {"BF16X_AUTO_TARGET", "library"},
      {"BF16X_CRT_SCALING", "library"}, {"BF16X_AUTO_COST", "library"},
      {"BF16X_GUARD", "library"},       {"BF16X_COMPLEX_METHOD", "library"},
      {"BF16X_SPLIT", "library"},       {"BF16X_NUM_THREADS", "library"},
      {"BF16X_VERBOSE", "library"},     {"BF16X_VERBOSE_OUTPUT_FILE", "library"},
      {"BF16X_HOST_BLAS", "library"},   {"BF16X_DRIVER_MCNC", "library"},
      {"BF16X_AMX_KERNEL", "library"},  {"BF16X_LIBRARY", "python"},
      {"BF16X_BUILD_DIR", "scripts"},   {"BF16X_ASAN_DIR", "scripts"},
      {"BF16X_TSAN_DIR", "scripts"},    {"BF16X_FUZZ_DIR", "scripts"},
      {"BF16X_QEMU", "scripts"},        {"BF16X_QEMU_CPU", "scripts"},
      {"BF16X_SANITIZERS", "scripts"},  {"BF16X_DIFFERENTIAL", "tests"},
      {"BF16X_STRUCT_LAYOUT", "tests"}, {"BF16X_FUZZ_VERBOSE", "tests"},
  };
  return v;
}

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// The library's names that hold the unknown one's tail (BF16X_MODE: the two mode variables) or are held by it,
// else the one of least edit distance when it is small against the name's length (a typo, not another word).
std::string nearest(const std::string& name) {
  const std::string tail = name.substr(6);
  std::string held;
  std::size_t best = name.size(), count = 0;
  const char* closest = nullptr;
  for (const Variable& v : variables()) {
    if (std::strcmp(v.reader, "library") != 0) continue;
    const std::string known = v.name, known_tail = known.substr(6);
    if (!tail.empty() && (known_tail.find(tail) != std::string::npos || tail.find(known_tail) != std::string::npos)) {
      held += (count++ ? " or " : "") + known;
      continue;
    }
    const std::size_t d = edit_distance(name, known);
    if (d < best) best = d, closest = v.name;
  }
  if (count) return held;
  return closest && 3 * best <= tail.size() + 3 ? closest : "";
}

}  // namespace

std::vector<Unknown> unknown_variables(const char* const* entries) {
  std::vector<Unknown> out;
  for (const char* const* e = entries; e && *e; ++e) {
    if (std::strncmp(*e, "BF16X_", 6) != 0) continue;
    const char* eq = std::strchr(*e, '=');
    const std::string name = eq ? std::string(*e, eq) : std::string(*e);
    const auto& known = variables();
    if (std::none_of(known.begin(), known.end(), [&](const Variable& v) { return name == v.name; }))
      out.push_back({name, nearest(name)});
  }
  return out;
}

}  // namespace bf16x::envvar
