// The name tables behind bf16x_mode_name / bf16x_engine_name, for messages that list what is accepted.
#pragma once
#include <string>
#include <vector>

namespace bf16x::settings {

std::vector<std::string> engine_name_list();     // every engine except auto, in id order
std::string engine_names();                      // the same, comma separated
std::vector<std::string> bf16_engine_choices();  // "auto" and the BF16 engines (the CLI's --engine values)
std::vector<std::string> int8_engine_choices();  // the engines with an INT8 side, in id order
std::vector<std::string> bf16_mode_names();      // the BF16 emulation modes, fp32x6 then fp64x6 .. fp64x21

// Whether `mode` may run this routine: DEFAULT, NATIVE and AUTO fit both, an emulation mode only its precision.
bool mode_fits(int mode, bool is_double);

}  // namespace bf16x::settings
