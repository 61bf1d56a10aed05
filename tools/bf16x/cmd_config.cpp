// bf16x config: bf16x_get_config(), the configuration of this process (what a bug report needs).
#include <cstdio>

#include "bf16x/bf16x.h"
#include "command.hpp"

namespace bf16x::cli {
namespace {

const RegisterCommand reg(
    "config",
    "version, CPU, ISA, engines (BF16 and CRT), host BLAS and kernel, threads, default modes, guard, "
    "min size, auto target, complex method, split",
    [](CLI::App& app) { app.callback([] { std::fputs(bf16x_get_config(), stdout); }); });

}  // namespace
}  // namespace bf16x::cli
