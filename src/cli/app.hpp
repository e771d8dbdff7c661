#pragma once
// The gpuplan command line as a value: main() and the command-line fuzzer
// (tests/fuzz/fuzz_cli.cpp) build and parse the same app.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common.hpp"

namespace gpuplan::cli {

/// Adds --version, every subcommand, and the list-length check (run after parsing, before any
/// command).
void add_commands(CLI::App& app, Exit& exit_code);

/// Every command's name, in the order `gpuplan --help` lists them.
std::vector<std::string> command_names();

/// Adds --version and only the command argv[1] names, and returns true; when argv[1] names
/// none, or a later word names another command, adds every command (add_commands) and returns
/// false.
bool add_named_command(CLI::App& app, Exit& exit_code, int argc, char** argv);

/// Throws InputError when a flag of a parsed subcommand holds more than limits::kMaxListItems
/// values (--batch 1,2,...; a repeated --gpu).
void check_list_lengths(const CLI::App& app);

// `gpuplan --version`: the version, the catalog hash and the newest price date.
std::string version_text();

/// Checks argument sizes and command words, parses (which runs the chosen command) and turns
/// every failure into one line on stderr; returns the process exit code. With `parse_error`
/// set, a CLI11 parse error (not a call for help or the version) is not printed but flagged
/// there, for the caller to answer with the whole app.
int parse_and_run(CLI::App& app, const Exit& exit_code, int argc, char** argv, bool* parse_error = nullptr);

}  // namespace gpuplan::cli
