// gpuplan: parse, dispatch, and turn every failure into one line on stderr and an exit code.
#include <algorithm>
#include <exception>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/provenance.hpp>
#include <gpuplan/version.hpp>

#include "app.hpp"
#include "common.hpp"

namespace {

using gpuplan::cli::Exit;

int code(Exit e) { return static_cast<int>(e); }

// "The following argument was not expected: fitt" gains the closest subcommand names.
std::string with_hint(const CLI::App& app, const CLI::ParseError& e) {
  std::string message = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) {
    return message;
  }
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  const auto extras = app.remaining();
  if (!extras.empty()) {
    const auto close = gpuplan::closest_names(extras.front(), names);
    if (!close.empty()) {
      message += fmt::format("; closest commands: {}", fmt::join(close, ", "));
    }
  }
  return message;
}

// Walks the command words before CLI11 does, so that a mistyped command ("fitt",
// "catalog gpu") or option before it gets the closest names instead of CLI11's
// "A subcommand is required".
void check_command_words(const CLI::App& app, int argc, char** argv) {
  const CLI::App* current = &app;
  for (int i = 1; i < argc; ++i) {
    const std::vector<const CLI::App*> subs =
        current->get_subcommands([](const CLI::App*) { return true; });
    if (subs.empty()) {
      return;
    }
    const std::string word = argv[i];
    if (word.starts_with("-")) {
      if (current == &app && word != "-h" && word != "--help" && word != "--version") {
        throw gpuplan::InputError(fmt::format(
            "unknown option '{}' before the command (see 'gpuplan --help')", word));
      }
      return;
    }
    std::vector<std::string> names;
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : subs) {
      names.push_back(sub->get_name());
      if (sub->get_name() == word) {
        next = sub;
      }
    }
    if (next == nullptr) {
      const auto close = gpuplan::closest_names(word, names);
      const std::string path = current == &app ? "" : current->get_name() + " ";
      throw gpuplan::InputError(fmt::format(
          "unknown command '{}{}'{} (see 'gpuplan {}--help')", path, word,
          close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")), path));
    }
    current = next;
  }
}

// Before CLI11 sees them: no argument may run to megabytes (an error would quote it whole).
void check_argument_lengths(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.size() > gpuplan::limits::kMaxArgumentBytes) {
      throw gpuplan::InputError(fmt::format("argument {} is {} bytes long, over the limit of {}: '{}'", i,
                                            word.size(), gpuplan::limits::kMaxArgumentBytes,
                                            gpuplan::limits::excerpt(word)));
    }
  }
}

}  // namespace

namespace gpuplan::cli {

// The version and the catalog it answers from, so a number can be traced to its data.
std::string version_text() {
  const Provenance& provenance = builtin_provenance();
  return fmt::format("{}\ncatalog {}, newest price {}", provenance.gpuplan_version, provenance.catalog_hash,
                     provenance.newest_price_date);
}

void check_list_lengths(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->count() > limits::kMaxListItems) {
        throw InputError(fmt::format("{}: at most {} values, got {}", opt->get_name(), limits::kMaxListItems,
                                     opt->count()));
      }
    }
    check_list_lengths(*sub);
  }
}

void add_commands(CLI::App& app, Exit& exit_code) {
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  // After parsing, before any command runs.
  app.parse_complete_callback([&app] { check_list_lengths(app); });
  gpuplan::cli::add_fit_command(app, exit_code);
  gpuplan::cli::add_perf_command(app, exit_code);
  gpuplan::cli::add_validate_command(app, exit_code);
  gpuplan::cli::add_cost_command(app, exit_code);
  gpuplan::cli::add_compare_command(app, exit_code);
  gpuplan::cli::add_scale_command(app, exit_code);
  gpuplan::cli::add_train_command(app, exit_code);
  gpuplan::cli::add_plan_command(app, exit_code);
  gpuplan::cli::add_batch_command(app, exit_code);
  gpuplan::cli::add_catalog_command(app, exit_code);
  gpuplan::cli::add_check_command(app, exit_code);
  gpuplan::cli::add_report_command(app, exit_code);
  gpuplan::cli::add_diff_command(app, exit_code);
}

int parse_and_run(CLI::App& app, const Exit& exit_code, int argc, char** argv) {
  try {
    check_argument_lengths(argc, argv);
    // A mistyped command gets the closest names, not CLI11's "A subcommand is required".
    check_command_words(app, argc, argv);
    app.parse(argc, argv);
    return code(exit_code);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "gpuplan: error: {} (see 'gpuplan --help')\n", with_hint(app, e));
    return code(Exit::bad_input);
  } catch (const gpuplan::InputError& e) {
    fmt::print(stderr, "gpuplan: error: {}\n", e.what());
    return code(Exit::bad_input);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuplan: internal error: {} (please report)\n", e.what());
    return code(Exit::internal);
  }
}

}  // namespace gpuplan::cli

// The fuzzer (tests/fuzz/fuzz_cli.cpp) compiles this file with its own main.
#ifndef GPUPLAN_CLI_NO_MAIN
int main(int argc, char** argv) {
  // `--version` alone answers before the commands are built (scripts call it to check the tool:
  // start-to-exit near a bare process). It prints what CLI11's version flag would.
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    fmt::print("{}\n", gpuplan::cli::version_text());
    return 0;
  }
  CLI::App app{"gpuplan: capacity planner for LLM inference on GPUs"};
  Exit exit_code = Exit::ok;
  gpuplan::cli::add_commands(app, exit_code);
  return gpuplan::cli::parse_and_run(app, exit_code, argc, argv);
}
#endif
