// Strict reading of the BF16X_* environment variables: one rule per kind of value, and every value that breaks
// the rule gives one line on stderr naming the variable, the value and what is kept instead (always, not only
// with BF16X_VERBOSE: a typo must not pass silently). Pure over a lookup function, so tests can drive it.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bf16x::envvar {

// Where values come from and where complaints go: the process environment (secure_getenv) and stderr in the
// library, fakes in tests.
struct Source {
  std::function<const char*(const char*)> lookup;
  std::function<void(const std::string&)> warn;
};
const Source& process_source();

// A secure-execution process (setuid, setgid, file capabilities: the kernel's AT_SECURE): the library reads no
// BF16X_* variable there and runs with its defaults, so that the user who starts a privileged program cannot make
// it load a library (BF16X_HOST_BLAS), write a file (BF16X_VERBOSE_OUTPUT_FILE) or compute otherwise.
bool secure_execution();

// The value if set and non-empty.
std::optional<std::string> text(const Source& src, const char* name);

// Decimal digits only ("+", "-", exponents, trailing characters and values past max are refused).
std::optional<std::int64_t> integer(const Source& src, const char* name, std::int64_t max, const std::string& kept);

// 1/on/true/yes and 0/off/false/no, lower case.
std::optional<bool> boolean(const Source& src, const char* name, const std::string& kept);

// A finite number > 0 in C syntax (strtod), nothing after it.
std::optional<double> positive(const Source& src, const char* name, const std::string& kept);

// One of `allowed` (exact match); `what` describes the allowed set in the complaint.
std::optional<std::string> choice(const Source& src, const char* name, std::initializer_list<const char*> allowed,
                                  const std::string& kept);
std::optional<std::string> choice(const Source& src, const char* name, const std::vector<std::string>& allowed,
                                  const std::string& kept);

// Pure parsers behind the readers (exposed for tests).
std::optional<std::int64_t> parse_integer(const char* s, std::int64_t max);
std::optional<bool> parse_boolean(const char* s);

// "bf16x: " + message, on stderr, from any thread.
void warn(const std::string& message);

}  // namespace bf16x::envvar
