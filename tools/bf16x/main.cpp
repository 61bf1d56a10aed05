// bf16x: demo, accuracy and benchmark front end.
#include <CLI/CLI.hpp>

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
  } catch (const CLI::ParseError& e) {
    // --help prints and succeeds; every other parse or validation error is a usage error (exit 2).
    return app.exit(e) == 0 ? 0 : bf16x::cli::kExitUsage;
  }
  return bf16x::cli::exit_code();
}
