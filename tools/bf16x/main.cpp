// bf16x: demo, accuracy and benchmark front end.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <new>
#include <string>

#include "bf16x/bf16x.h"
#include "command.hpp"

namespace bf16x::cli {
std::vector<Command>& commands() {
  static std::vector<Command> c;
  return c;
}
int& exit_code() {
  static int rc = 0;
  return rc;
}
}  // namespace bf16x::cli

namespace {

// Without a subcommand CLI11 only says "A subcommand is required", also when the word given is a misspelt one.
int no_subcommand(const CLI::App& app) {
  std::string names;
  for (const auto& c : bf16x::cli::commands()) names += (names.empty() ? "" : ", ") + std::string(c.name);
  const auto rest = app.remaining();
  if (!rest.empty() && rest.front().rfind('-', 0) != 0)
    std::fprintf(stderr, "bf16x: unknown subcommand '%s' (subcommands: %s)\n", rest.front().c_str(), names.c_str());
  else
    std::fprintf(stderr, "bf16x: a subcommand is required (subcommands: %s)\n", names.c_str());
  std::fprintf(stderr, "Run with --help for more information.\n");
  return bf16x::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bf16x: FP32/FP64 GEMM from BF16 matrix-engine products"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("bf16x ") + bf16x_version());
  // Every option's help shows its default: the value its variable holds when the option is added (subcommands
  // inherit this from the parent's option defaults).
  app.option_defaults()->always_capture_default();
  for (auto& c : bf16x::cli::commands()) c.setup(*app.add_subcommand(c.name, c.help));
  try {
    app.parse(argc, argv);
  } catch (const CLI::RequiredError& e) {
    if (app.get_subcommands().empty()) return no_subcommand(app);
    return app.exit(e) == 0 ? 0 : bf16x::cli::kExitUsage;
  } catch (const CLI::ParseError& e) {
    // --help prints and succeeds; every other parse or validation error is a usage error (exit 2).
    return app.exit(e) == 0 ? 0 : bf16x::cli::kExitUsage;
  } catch (const std::bad_alloc&) {
    // A subcommand checks its memory before it allocates; this is what escaped the check. What it printed so far
    // stays (stdout is flushed on this return, not lost to an abort).
    const auto sub = app.get_subcommands();
    std::fprintf(stderr, "bf16x %s: out of memory (an allocation failed); the run stopped here\n",
                 sub.empty() ? "" : sub.front()->get_name().c_str());
    return bf16x::cli::kExitRunFailure;
  }
  return bf16x::cli::exit_code();
}
