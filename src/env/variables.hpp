// Every BF16X_* environment variable of the project: the library's own, read through env/env_vars.hpp (none of them
// in a secure-execution process), and those of its Python package, scripts and tests, which the library knows so
// that it warns about none of them. README's "Environment" table lists the library's and is checked against this
// list (tests/env/env_table.py), so the two cannot drift apart.
#pragma once
#include <string>
#include <vector>

namespace bf16x::envvar {

struct Variable {
  const char* name;
  const char* reader;  // "library", or who else reads it ("python", "scripts", "tests")
};

const std::vector<Variable>& variables();

// A BF16X_* variable of the environment that nobody reads, with the known names it most likely meant.
struct Unknown {
  std::string name;
  std::string nearest;  // "BF16X_DGEMM_MODE or BF16X_SGEMM_MODE"; empty when none is close
};

// The unknown BF16X_* names among `entries` ("NAME=value" strings, as in environ; null-terminated).
std::vector<Unknown> unknown_variables(const char* const* entries);

}  // namespace bf16x::envvar
