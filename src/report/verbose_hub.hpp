// The process's one verbose header and one summary, across bf16x instances. A process can hold two: the BLAS shim
// libbf16x_blas.so (preloaded, the library linked in statically) and libbf16x.so (which the Python package loads),
// each with its own statics; without a common owner each wrote its own header and its own summary block. The shim
// exports its hub as bf16x_verbose_hub_v1 (src/blas/dispatch.cpp, exports.map); every instance looks that name up in
// the process's global scope (dlsym(RTLD_DEFAULT)) and, where it is found, claims the header and counts its calls
// there, so the process has one header and one summary; else it uses its own hub. A plain C entry point, versioned
// by its name, as the instances may come from different releases.
#pragma once
#include "report/verbose_summary.hpp"

namespace bf16x::report {

inline constexpr const char* kVerboseHubSymbol = "bf16x_verbose_hub_v1";
inline constexpr int kVerboseHubClaimHeader = 1, kVerboseHubRecord = 2;

// This instance's own hub: op kVerboseHubClaimHeader returns 1 for its first claim (that caller writes the header),
// else 0; op kVerboseHubRecord counts *record in this instance's summary and returns 0.
int own_verbose_hub(int op, const SummaryRecord* record);

// Whether this instance writes the process's header (true once per process, whichever instance asks first).
bool verbose_hub_claim_header();
// Counts one call in the process's summary.
void verbose_hub_record(const SummaryRecord& r);

}  // namespace bf16x::report
