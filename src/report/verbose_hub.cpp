#include "report/verbose_hub.hpp"

#include <dlfcn.h>

#include <atomic>

namespace bf16x::report {
namespace {

using Hub = int (*)(int, const SummaryRecord*);

// The process's hub: the exported one found first in the global scope (the shim's), else this instance's own;
// looked up once.
Hub hub() {
  static const Hub h = [] {
    void* f = dlsym(RTLD_DEFAULT, kVerboseHubSymbol);
    return f ? reinterpret_cast<Hub>(f) : &own_verbose_hub;
  }();
  return h;
}

}  // namespace

int own_verbose_hub(int op, const SummaryRecord* record) {
  static std::atomic<bool> header_claimed{false};
  if (op == kVerboseHubClaimHeader) return header_claimed.exchange(true) ? 0 : 1;
  if (op == kVerboseHubRecord && record) summary_add(*record);
  return 0;
}

bool verbose_hub_claim_header() { return hub()(kVerboseHubClaimHeader, nullptr) == 1; }

void verbose_hub_record(const SummaryRecord& r) { hub()(kVerboseHubRecord, &r); }

}  // namespace bf16x::report
