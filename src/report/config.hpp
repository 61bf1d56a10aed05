// What a user pastes into a bug report (bf16x_get_config) and the verbose header's CPU name.
#pragma once
#include <string>

namespace bf16x::report {

std::string config_text();     // bf16x_get_config
std::string cpu_model_name();  // /proc/cpuinfo "model name"

}  // namespace bf16x::report
