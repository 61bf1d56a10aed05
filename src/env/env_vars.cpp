#include "env/env_vars.hpp"

#include <sys/auxv.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bf16x::envvar {
namespace {

void refuse(const Source& src, const char* name, const char* value, const char* rule, const std::string& kept) {
  src.warn(std::string(name) + "=" + value + " is not " + rule + "; using " + kept);
}

}  // namespace

void warn(const std::string& message) { std::fprintf(stderr, "bf16x: %s\n", message.c_str()); }

bool secure_execution() { return getauxval(AT_SECURE) != 0; }

const Source& process_source() {
  // secure_getenv: nothing in a secure-execution process; every BF16X_* variable is read through here.
  static const Source s{[](const char* n) { return static_cast<const char*>(secure_getenv(n)); }, warn};
  return s;
}

std::optional<std::string> text(const Source& src, const char* name) {
  const char* v = src.lookup(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

std::optional<std::int64_t> parse_integer(const char* s, std::int64_t max) {
  if (!s || !*s) return std::nullopt;
  std::int64_t v = 0;
  for (const char* p = s; *p; ++p) {
    if (*p < '0' || *p > '9') return std::nullopt;
    const int d = *p - '0';
    if (v > (max - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::optional<bool> parse_boolean(const char* s) {
  if (!s) return std::nullopt;
  for (const char* t : {"1", "on", "true", "yes"})
    if (std::strcmp(s, t) == 0) return true;
  for (const char* f : {"0", "off", "false", "no"})
    if (std::strcmp(s, f) == 0) return false;
  return std::nullopt;
}

std::optional<std::int64_t> integer(const Source& src, const char* name, std::int64_t max, const std::string& kept) {
  const auto v = text(src, name);
  if (!v) return std::nullopt;
  const auto i = parse_integer(v->c_str(), max);
  if (!i) refuse(src, name, v->c_str(), ("an integer in 0.." + std::to_string(max)).c_str(), kept);
  return i;
}

std::optional<bool> boolean(const Source& src, const char* name, const std::string& kept) {
  const auto v = text(src, name);
  if (!v) return std::nullopt;
  const auto b = parse_boolean(v->c_str());
  if (!b) refuse(src, name, v->c_str(), "one of 1, on, true, yes, 0, off, false, no", kept);
  return b;
}

std::optional<double> positive(const Source& src, const char* name, const std::string& kept) {
  const auto v = text(src, name);
  if (!v) return std::nullopt;
  char* end = nullptr;
  const double t = std::strtod(v->c_str(), &end);
  if (*end != '\0' || !(t > 0) || !std::isfinite(t)) {
    refuse(src, name, v->c_str(), "a finite number > 0", kept);
    return std::nullopt;
  }
  return t;
}

std::optional<std::string> choice(const Source& src, const char* name, const std::vector<std::string>& allowed,
                                  const std::string& kept) {
  const auto v = text(src, name);
  if (!v) return std::nullopt;
  std::string list;
  for (const std::string& a : allowed) {
    if (*v == a) return v;
    list += list.empty() ? a : ", " + a;
  }
  refuse(src, name, v->c_str(), ("one of " + list).c_str(), kept);
  return std::nullopt;
}

std::optional<std::string> choice(const Source& src, const char* name, std::initializer_list<const char*> allowed,
                                  const std::string& kept) {
  return choice(src, name, std::vector<std::string>(allowed.begin(), allowed.end()), kept);
}

}  // namespace bf16x::envvar
