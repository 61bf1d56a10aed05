// Lowers RLIMIT_AS for a scope: an allocation that the machine could not back fails there as it would on a
// machine without overcommit, whatever vm.overcommit_memory says (1, "always", lets an 8 TiB malloc succeed and
// the process then touches it page by page).
#pragma once
#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>

namespace bf16x::test {

// RLIMIT_AS = the current address space plus `headroom` bytes for the object's lifetime, then the old limit.
class AddressSpaceLimit {
 public:
  explicit AddressSpaceLimit(std::size_t headroom) {
    getrlimit(RLIMIT_AS, &saved_);
    unsigned long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    rlimit lim = saved_;
    lim.rlim_cur = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + headroom;
    if (saved_.rlim_max != RLIM_INFINITY && lim.rlim_cur > saved_.rlim_max) lim.rlim_cur = saved_.rlim_max;
    ok_ = pages > 0 && setrlimit(RLIMIT_AS, &lim) == 0;
  }
  ~AddressSpaceLimit() { setrlimit(RLIMIT_AS, &saved_); }
  AddressSpaceLimit(const AddressSpaceLimit&) = delete;
  AddressSpaceLimit& operator=(const AddressSpaceLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

}  // namespace bf16x::test
