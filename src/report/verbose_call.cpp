#include "report/verbose_call.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "env/env_vars.hpp"

namespace bf16x::report {

std::FILE* verbose_sink() {
  static std::FILE* f = [] {
    // Said once, where verbose output begins (bf16x_set_verbose: the environment's BF16X_VERBOSE is ignored too).
    if (envvar::secure_execution())
      envvar::warn("secure-execution process (setuid, setgid or capabilities): every BF16X_* variable is ignored");
    const auto path = envvar::text(envvar::process_source(), "BF16X_VERBOSE_OUTPUT_FILE");
    if (!path) return stderr;
    // Appended to, never followed through a symbolic link, created private to its owner, not inherited by exec.
    const int fd = ::open(path->c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    std::FILE* out = fd >= 0 ? ::fdopen(fd, "a") : nullptr;
    if (!out) {
      if (fd >= 0) ::close(fd);
      envvar::warn("BF16X_VERBOSE_OUTPUT_FILE=" + *path + " cannot be opened for appending; using stderr");
      return stderr;
    }
    std::setvbuf(out, nullptr, _IOLBF, 0);
    return out;
  }();
  return f;
}

}  // namespace bf16x::report
