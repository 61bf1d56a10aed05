#include "api/verbose_call.hpp"

#include "env/env_vars.hpp"

namespace bf16x::api {

std::FILE* verbose_sink() {
  static std::FILE* f = [] {
    const auto path = envvar::text(envvar::process_source(), "BF16X_VERBOSE_OUTPUT_FILE");
    if (!path) return stderr;
    std::FILE* out = std::fopen(path->c_str(), "a");
    if (!out) {
      envvar::warn("BF16X_VERBOSE_OUTPUT_FILE=" + *path + " cannot be opened for appending; using stderr");
      return stderr;
    }
    std::setvbuf(out, nullptr, _IOLBF, 0);
    return out;
  }();
  return f;
}

}  // namespace bf16x::api
