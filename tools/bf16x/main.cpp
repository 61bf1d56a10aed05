// bf16x: demo, accuracy and benchmark front end.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <new>
#include <string>

#include "bf16x/bf16x.h"
#include "cli_checks.hpp"
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

// Without a subcommand CLI11 only says "A subcommand is required", also when the word given is a misspelt
// subcommand or an unknown option.
int no_subcommand(const CLI::App& app) {
  std::string names;
  for (const auto& c : bf16x::cli::commands()) names += (names.empty() ? "" : ", ") + std::string(c.name);
  const auto rest = app.remaining();
  if (rest.empty())
    std::fprintf(stderr, "bf16x: a subcommand is required (subcommands: %s); see bf16x --help\n", names.c_str());
  else if (rest.front().rfind('-', 0) == 0)  // an option before any subcommand: bf16x has only --help and --version
    std::fprintf(stderr, "bf16x: unknown option '%s' (before the subcommand: --help, --version; subcommands: %s)\n",
                 rest.front().c_str(), names.c_str());
  else
    std::fprintf(stderr, "bf16x: unknown subcommand '%s' (subcommands: %s); see bf16x --help\n", rest.front().c_str(),
                 names.c_str());
  return bf16x::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  // Named, not argv[0]: the usage line (and the man page made from it) says "bf16x" wherever the binary lies.
  CLI::App app{"bf16x: FP32/FP64 GEMM from BF16 and INT8 matrix-engine products", "bf16x"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("bf16x ") + bf16x_version());
  // Every option's help shows its default: the value its variable holds when the option is added (subcommands
  // inherit this from the parent's option defaults).
  app.option_defaults()->always_capture_default();
  app.footer(bf16x::cli::help_footer());
  // Every usage error is one line on stderr that names the subcommand and where its options are listed.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    const auto subs = a->get_subcommands();
    const std::string who = subs.empty() ? "bf16x" : "bf16x " + subs.front()->get_name();
    return who + ": " + e.what() + " (see " + who + " --help)\n";
  });
  for (auto& c : bf16x::cli::commands()) {
    CLI::App& sub = *app.add_subcommand(c.name, c.help);
    sub.footer(
        "Exit status: 0 success, 1 the run failed, 2 usage error. bf16x --help lists the documentation and the "
        "BF16X_* environment variables.");
    c.setup(sub);
  }
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
