#include "util/after_fork.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace bf16x::util {
namespace {

std::atomic<bool> g_lost{false};
int g_threads_at_fork = 0;

// The process's thread count: field 20 of /proc/self/stat, after the command name's closing parenthesis (the name
// itself may hold spaces and parentheses). 0 where it cannot be read, which counts as "other threads".
int process_threads() {
  const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return 0;
  buf[got] = '\0';
  const char* p = std::strrchr(buf, ')');
  if (!p) return 0;
  // Fields 3..19 follow the name: skip 17 of them to reach field 20.
  for (int field = 3; field <= 20; ++field) {
    p = std::strchr(p + 1, ' ');
    if (!p) return 0;
  }
  int n = 0;
  for (++p; *p >= '0' && *p <= '9'; ++p) n = n * 10 + (*p - '0');
  return n;
}

void prepare() { g_threads_at_fork = process_threads(); }
void child() {
  if (g_threads_at_fork != 1) g_lost.store(true, std::memory_order_relaxed);
}

// Registered when the library is loaded, so that a fork before its first call is seen too (glibc removes the
// handlers when a dlopen'ed library is closed).
[[maybe_unused]] const int g_registered = pthread_atfork(prepare, nullptr, child);

}  // namespace

bool team_lost_in_fork() { return g_lost.load(std::memory_order_relaxed); }

}  // namespace bf16x::util
