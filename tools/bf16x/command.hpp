// Subcommands of the bf16x CLI register themselves (one file per subcommand: cmd_<name>.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

namespace bf16x::cli {

struct Command {
  const char* name;
  const char* help;
  std::function<void(CLI::App&)> setup;  // adds options and the callback to the subcommand
};

std::vector<Command>& commands();

struct RegisterCommand {
  RegisterCommand(const char* name, const char* help, std::function<void(CLI::App&)> setup) {
    commands().push_back({name, help, std::move(setup)});
  }
};

}  // namespace bf16x::cli
