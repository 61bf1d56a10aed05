// bf16x: demo, accuracy and benchmark front end.
#include <CLI/CLI.hpp>

#include "command.hpp"

namespace bf16x::cli {
std::vector<Command>& commands() {
  static std::vector<Command> c;
  return c;
}
}  // namespace bf16x::cli

int main(int argc, char** argv) {
  CLI::App app{"bf16x: FP32/FP64 GEMM from BF16 matrix-engine products"};
  app.require_subcommand(1);
  for (auto& c : bf16x::cli::commands()) c.setup(*app.add_subcommand(c.name, c.help));
  CLI11_PARSE(app, argc, argv);
  return 0;
}
