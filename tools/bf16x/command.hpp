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

// Exit codes of every subcommand: 0 success, 1 the run failed (a call returned an error, an output could not be
// written), 2 usage error (bad option or value, found before anything runs). Callbacks set run_failed().
constexpr int kExitRunFailure = 1;
constexpr int kExitUsage = 2;
int& exit_code();

struct RegisterCommand {
  RegisterCommand(const char* name, const char* help, std::function<void(CLI::App&)> setup) {
    commands().push_back({name, help, std::move(setup)});
  }
};

}  // namespace bf16x::cli
