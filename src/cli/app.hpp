#pragma once
// The gpuplan command line as a value: main() and the command-line fuzzer
// (tests/fuzz/fuzz_cli.cpp) build and parse the same app.

#include <CLI/CLI.hpp>

#include "common.hpp"

namespace gpuplan::cli {

/// Adds --version, every subcommand, and the list-length check (run after parsing, before any
/// command).
void add_commands(CLI::App& app, Exit& exit_code);

/// Throws InputError when a flag of a parsed subcommand holds more than limits::kMaxListItems
/// values (--batch 1,2,...; a repeated --gpu).
void check_list_lengths(const CLI::App& app);

// `gpuplan --version`: the version, the catalog hash and the newest price date.
std::string version_text();

/// Checks argument sizes and command words, parses (which runs the chosen command) and turns
/// every failure into one line on stderr; returns the process exit code.
int parse_and_run(CLI::App& app, const Exit& exit_code, int argc, char** argv);

}  // namespace gpuplan::cli
