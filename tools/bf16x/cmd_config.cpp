// bf16x config: bf16x_get_config(), the configuration of this process (what a bug report needs).
#include <cstdio>

#include "bf16x/bf16x.h"
#include "command.hpp"

namespace bf16x::cli {
namespace {

const RegisterCommand reg("config", "version, CPU, ISA, engines, host BLAS and kernel, threads, default modes",
                          [](CLI::App& app) { app.callback([] { std::fputs(bf16x_get_config(), stdout); }); });

}  // namespace
}  // namespace bf16x::cli
