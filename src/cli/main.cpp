// gpuplan: parse, dispatch, and turn every failure into one line on stderr and an exit code.
#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <exception>
#include <functional>
#include <system_error>
#include <vector>
#include <string>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/provenance.hpp>
#include <gpuplan/version.hpp>

#include "app.hpp"
#include "command_io.hpp"
#include "common.hpp"

namespace {

using gpuplan::cli::Exit;

int code(Exit e) { return static_cast<int>(e); }

struct DashFolded {
  std::string code_point;  // the first non-ASCII dash's ("U+2014"), empty when there is none
  std::string rest;        // the word after its leading dashes
};

// A word's leading run of dashes when one of them is a Unicode dash or minus sign (U+2010-2015,
// U+2212, U+FE58, U+FE63, U+FF0D: what word processors and chat clients make of "--").
DashFolded without_unicode_dashes(std::string_view word) {
  static constexpr std::pair<std::string_view, std::string_view> kDashes[] = {
      {"\xE2\x80\x90", "U+2010"}, {"\xE2\x80\x91", "U+2011"}, {"\xE2\x80\x92", "U+2012"},
      {"\xE2\x80\x93", "U+2013 (en dash)"}, {"\xE2\x80\x94", "U+2014 (em dash)"}, {"\xE2\x80\x95", "U+2015"},
      {"\xE2\x88\x92", "U+2212 (minus sign)"}, {"\xEF\xB9\x98", "U+FE58"}, {"\xEF\xB9\xA3", "U+FE63"},
      {"\xEF\xBC\x8D", "U+FF0D"}};
  DashFolded out;
  for (bool more = true; more;) {
    more = false;
    if (word.starts_with('-')) {
      word.remove_prefix(1);
      more = true;
      continue;
    }
    for (const auto& [bytes, name] : kDashes) {
      if (word.starts_with(bytes)) {
        if (out.code_point.empty()) {
          out.code_point = name;
        }
        word.remove_prefix(bytes.size());
        more = true;
        break;
      }
    }
  }
  if (!out.code_point.empty()) {
    out.rest = word;
  }
  return out;
}

// The spellings of `option` typed before any "--" ("--prefill-chunk 2048" or
// "--max-num-batched-tokens=4096"), in the order of its names.
std::vector<std::string> names_typed(const CLI::Option& option, int argc, char** argv) {
  std::vector<std::string> typed;
  for (const std::string& lname : option.get_lnames()) {
    const std::string flag = "--" + lname;
    for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) {
      const std::string_view word = argv[i];
      if (word == flag || (word.starts_with(flag) && word.substr(flag.size()).starts_with("="))) {
        typed.push_back(flag);
        break;
      }
    }
  }
  return typed;
}

// CLI11's "The following arguments were not expected: fp8 --kv-dtpye" (its words reversed)
// becomes "unknown option '--kv-dtpye' for 'gpuplan fit'; closest: --kv-dtype", and a stray word
// at the top gains the closest command names.
std::string with_hint(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const std::string help = " (see 'gpuplan --help')";
  // The deepest command given: its options are the ones the user meant.
  const CLI::App* command = &app;
  std::string path = "gpuplan";
  for (std::vector<CLI::App*> given = app.get_subcommands(); !given.empty(); given = command->get_subcommands()) {
    command = given.front();
    path += " " + command->get_name();
  }
  // CLI11's "--tp: At Most 1 required but received 2" for a single-value option given twice.
  constexpr std::string_view kAtMostOne = ": At Most 1 required but received ";
  if (const std::string_view what = e.what(); dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr &&
                                              what.find(kAtMostOne) != std::string_view::npos) {
    const std::string_view name = what.substr(0, what.find(kAtMostOne));
    const std::string_view times = what.substr(what.find(kAtMostOne) + kAtMostOne.size());
    // One option under two names, each typed once ("--prefill-chunk 2048 --max-num-batched-tokens
    // 4096" was "--prefill-chunk given twice": helper s55 bad-input F8).
    if (const CLI::Option* option = command->get_option_no_throw(std::string(name)); option != nullptr) {
      if (const std::vector<std::string> typed = names_typed(*option, argc, argv); typed.size() > 1) {
        return fmt::format("{} are the same option: it takes one value; give one of them", fmt::join(typed, " and "));
      }
    }
    return fmt::format("{} given {}: it takes one value; give it once", name,
                       times == "2" ? std::string("twice") : fmt::format("{} times", times));
  }
  // A misspelt required option ("--gpuu h100", "--GPU h100", "-gpu h100"): CLI11 checks the
  // requirements before the extra words, so its "--gpu is required" hid the word typed. The word
  // is named, with the closest flags, which says why --gpu is missing (helper s55 bad-input F7).
  const bool required_with_extras =
      dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && !app.remaining(true).empty();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr && !required_with_extras) {
    return e.what() + help;
  }
  const std::vector<std::string> extras = app.remaining(true);
  const auto extra = [&extras](std::string_view word) {
    return std::find(extras.begin(), extras.end(), word) != extras.end();
  };
  std::vector<std::string> words;  // in the order typed
  for (int i = 1; i < argc; ++i) {
    if (extra(argv[i]) && std::find(words.begin(), words.end(), argv[i]) == words.end()) {
      words.emplace_back(argv[i]);
    }
  }
  if (words.empty()) {
    return e.what() + help;
  }
  if (command == &app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(sub->get_name());
    }
    const auto close = gpuplan::closest_names(words.front(), names);
    return fmt::format("unexpected argument '{}'{}{}", words.front(),
                       close.empty() ? "" : fmt::format("; closest commands: {}", fmt::join(close, ", ")), help);
  }
  std::vector<std::string> flags;
  for (const CLI::Option* o : command->get_options()) {
    for (const std::string& name : o->get_lnames()) {
      flags.push_back("--" + name);
    }
  }
  // A flag pasted from a chat, wiki or PDF ("—tp", "–-tp", "−−tp"): its dashes are not ASCII, so it
  // was a stray word without a hint (helper s57 badinput F5). The dashes as '--', and the flag.
  for (const std::string& word : words) {
    const auto [code_point, rest] = without_unicode_dashes(word);
    if (code_point.empty() || rest.empty()) {
      continue;
    }
    const std::string flag = "--" + rest.substr(0, rest.find('='));
    const bool known = std::find(flags.begin(), flags.end(), flag) != flags.end();
    const auto close = known ? std::vector<std::string>{flag} : gpuplan::closest_names(flag, flags);
    return fmt::format("unknown option '{}' for '{}': it begins with {}, not the ASCII '--'{} (see '{} --help')", word,
                       path, code_point,
                       close.empty() ? "" : fmt::format("; {} {}", known ? "type" : "closest:", fmt::join(close, ", ")),
                       path);
  }
  const auto option = std::find_if(words.begin(), words.end(), [](const std::string& w) { return w.starts_with("-"); });
  if (option == words.end()) {
    return fmt::format("unexpected argument{} for '{}': {} (see '{} --help')", words.size() == 1 ? "" : "s", path,
                       fmt::join(words, " "), path);
  }
  const std::string name = option->substr(0, option->find('='));
  const auto has = [&flags](std::string_view flag) { return std::find(flags.begin(), flags.end(), flag) != flags.end(); };
  // fit sizes a context (--context, prompt plus generated tokens); perf, cost and the others take
  // the two parts: a spelling hint (--context -> --output) would not say how one maps to the other
  // (helper s53 tasks F8).
  if (name == "--context" && has("--input") && has("--output")) {
    return fmt::format("unknown option '--context' for '{}': it takes --input (prompt tokens) and --output (generated "
                       "tokens); fit's --context is their sum, so --context 8192 is e.g. --input 7168 --output 1024 "
                       "(see '{} --help')",
                       path, path);
  }
  if ((name == "--input" || name == "--output") && has("--context") && !has("--input")) {
    return fmt::format("unknown option '{}' for '{}': it takes --context, the tokens of one sequence (prompt plus "
                       "generated: --input + --output of perf) (see '{} --help')",
                       name, path, path);
  }
  // plan and compare price GPUs by name (--price GPU=USD: each GPU its own rate); cost's one rate
  // had drawn "closest: --usd-per-kwh", an electricity price (helper s61 tasks).
  if (name == "--usd-per-gpu-hour" && has("--price")) {
    return fmt::format("unknown option '--usd-per-gpu-hour' for '{}': it takes a price per GPU as --price GPU=USD "
                       "(repeatable, e.g. --price h100-sxm=2.5) (see '{} --help')",
                       path, path);
  }
  // A flag of the command left over: it came after "--", where words are values (helper s55 F9).
  const auto after_end_of_options = [argc, argv](std::string_view word) {
    char** end = std::find(argv + 1, argv + argc, std::string_view("--"));
    return end != argv + argc && std::find(end + 1, argv + argc, word) != argv + argc;
  };
  if (has(name) && after_end_of_options(*option)) {
    return fmt::format("'{}' comes after '--', which ends the options of '{}': remove the '--' (see '{} --help')",
                       name, path, path);
  }
  // An output format typed as a flag ("--json", "--csv"): the format is a value of --format.
  for (const std::string_view format : {"--json", "--csv", "--markdown", "--table", "--html"}) {
    if (name == format && has("--format")) {
      return fmt::format("unknown option '{}' for '{}': the output format is a value, --format {} (see '{} --help')",
                         name, path, name.substr(2), path);
    }
  }
  const auto close = gpuplan::closest_names(name, flags);
  return fmt::format("unknown option '{}' for '{}'{} (see '{} --help')", name, path,
                     close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")), path);
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
// The name of the positional argument argv[i] is ("plan", "old"), or "" when it is none: the
// command path is followed through subcommands, and a flag that takes a value skips that value.
std::string positional_name(const CLI::App& app, int argc, char** argv, int i) {
  const CLI::App* current = &app;
  int at = 1;
  for (; at < i && at < argc; ++at) {
    const std::string word = argv[at];
    const std::vector<const CLI::App*> subs =
        current->get_subcommands([&word](const CLI::App* a) { return a->check_name(word); });
    if (subs.empty()) {
      break;
    }
    current = subs.front();
  }
  std::size_t count = 0;
  for (int j = at; j < i; ++j) {
    const std::string_view word = argv[j];
    if (word == "--") {
      count += static_cast<std::size_t>(i - j - 1);
      break;
    }
    if (word.size() > 1 && word.front() == '-') {
      const std::string flag(word.substr(0, word.find('=')));
      const CLI::Option* option = current->get_option_no_throw(flag);
      if (option != nullptr && option->get_expected_min() > 0 && word.find('=') == std::string_view::npos) {
        ++j;  // its value
      }
      continue;
    }
    ++count;
  }
  const std::vector<const CLI::Option*> positionals =
      current->get_options([](const CLI::Option* o) { return o->get_positional(); });
  return count < positionals.size() ? positionals[count]->get_name() : std::string();
}

void check_argument_lengths(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.size() > gpuplan::limits::kMaxArgumentBytes) {
      // The flag it is the value of, when one is there to name ("--model <5000 bytes>" or
      // "--model=<5000 bytes>"); else its place.
      const std::string_view before = i > 1 ? std::string_view(argv[i - 1]) : std::string_view();
      const std::size_t eq = word.find('=');
      std::string what = fmt::format("argument {}", i);
      if (const std::string name = positional_name(app, argc, argv, i); !name.empty()) {
        what = fmt::format("{} (argument {})", name, i);
      }
      if (word.starts_with("--") && eq != std::string_view::npos && eq <= 64) {
        what = fmt::format("{}: the value", word.substr(0, eq));
      } else if (before.starts_with("--") && before.size() > 2 && before.find('=') == std::string_view::npos &&
                 before.size() <= 64) {
        what = fmt::format("{}: the value", before);
      }
      throw gpuplan::InputError(fmt::format("{} is {} bytes long, over the limit of {}: '{}'", what, word.size(),
                                            gpuplan::limits::kMaxArgumentBytes, gpuplan::limits::excerpt(word)));
    }
  }
}

// "--model=" with nothing after the '=': CLI11 takes the next word as its value ("--model=
// --gpu h100" answered "--gpu is required"). Words after "--" are values, not flags.
void check_empty_assignments(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") {
      return;
    }
    if (word.size() > 3 && word.starts_with("--") && word.find('=') == word.size() - 1) {
      throw gpuplan::InputError(fmt::format("{}: the value after '=' is empty; give one or leave the flag out",
                                            word.substr(0, word.size() - 1)));
    }
  }
}

// "-h100" is "-h" (the help) with "100" after it to CLI11: "catalog show -h100" printed the help
// and exited 0. A word that begins with a short flag and goes on, where no option takes it as its
// value ("--gpu -h100" does), is an unknown option; "--" before it passes it as a value.
void check_short_flag_words(const CLI::App& app, int argc, char** argv) {
  const CLI::App* current = &app;
  std::string path = "gpuplan";
  bool value_next = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--" && value_next) {
      // CLI11 ends the options there and leaves the flag without its value ("--model -- -hx"
      // printed the help and exited 0).
      throw gpuplan::InputError(fmt::format("{}: '--' is no value; a value that starts with '-' is written {}=VALUE",
                                            argv[i - 1], argv[i - 1]));
    }
    if (word == "--") {
      return;
    }
    if (value_next) {
      value_next = false;
      continue;
    }
    if (word.starts_with("--")) {
      const std::size_t eq = word.find('=');
      const CLI::Option* opt = current->get_option_no_throw(std::string(word.substr(0, eq)));
      value_next = opt != nullptr && eq == std::string_view::npos && opt->get_items_expected_min() > 0;
      continue;
    }
    if (word.size() > 2 && word[0] == '-' && current->get_option_no_throw(std::string(word.substr(0, 2))) != nullptr &&
        current->get_option_no_throw(std::string(word)) == nullptr) {
      throw gpuplan::InputError(fmt::format("unknown option '{}' for '{}' ({} is a flag of its own; a value that "
                                            "starts with '-' goes after '--') (see '{} --help')",
                                            word, path, word.substr(0, 2), path));
    }
    for (const CLI::App* sub : current->get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == word) {
        current = sub;
        path += " " + sub->get_name();
        break;
      }
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

namespace {

// Every command, in the order `gpuplan --help` lists them.
struct Command {
  std::string_view name;
  void (*add)(CLI::App&, Exit&);
};
constexpr std::array kCommands{
    Command{"fit", add_fit_command},         Command{"perf", add_perf_command},
    Command{"validate", add_validate_command}, Command{"cost", add_cost_command},
    Command{"compare", add_compare_command}, Command{"scale", add_scale_command},
    Command{"train", add_train_command},     Command{"plan", add_plan_command},
    Command{"batch", add_batch_command},     Command{"catalog", add_catalog_command},
    Command{"check", add_check_command},     Command{"report", add_report_command},
    Command{"diff", add_diff_command},
};
// "--batch 8," or "--batch 1,,8": CLI11 drops the empty item and runs the rest. Checked on the
// words after the command's options that split at a delimiter.
void check_empty_list_items(const CLI::App& app, int argc, char** argv) {
  const CLI::App* current = &app;
  const CLI::Option* taking = nullptr;  // the delimited option whose values follow
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") {
      return;
    }
    if (word.starts_with("-") && word.size() > 1) {
      taking = nullptr;
      const std::size_t eq = word.find('=');
      const std::string name(word.substr(0, eq));
      const CLI::Option* opt = current->get_option_no_throw(name);
      if (opt == nullptr || opt->get_delimiter() == '\0') {
        continue;
      }
      if (eq == std::string_view::npos) {
        taking = opt;
      } else if (const auto why = gpuplan::cli::empty_list_item(*opt, word.substr(eq + 1))) {
        throw gpuplan::InputError(fmt::format("{}: {}", name, *why));
      }
      continue;
    }
    if (taking != nullptr) {
      if (const auto why = gpuplan::cli::empty_list_item(*taking, word)) {
        throw gpuplan::InputError(fmt::format("{}: {}", taking->get_name(), *why));
      }
      continue;
    }
    for (const CLI::App* sub : current->get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == word) {
        current = sub;
        break;
      }
    }
  }
}

const Command* find_command(std::string_view word) {
  const auto* it = std::find_if(kCommands.begin(), kCommands.end(),
                                [word](const Command& c) { return c.name == word; });
  return it == kCommands.end() ? nullptr : it;
}

void add_top_level(CLI::App& app) {
  // Computed only when asked for: it hashes the whole embedded catalog.
  app.set_version_flag("--version", std::function<std::string()>(version_text));
  app.require_subcommand(1);
  // After parsing, before any command runs.
  app.parse_complete_callback([&app] { check_list_lengths(app); });
}

}  // namespace

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Command& c : kCommands) {
    names.emplace_back(c.name);
  }
  return names;
}

void add_commands(CLI::App& app, Exit& exit_code) {
  add_top_level(app);
  for (const Command& c : kCommands) {
    c.add(app, exit_code);
  }
}

bool add_named_command(CLI::App& app, Exit& exit_code, int argc, char** argv) {
  const Command* named = argc >= 2 ? find_command(argv[1]) : nullptr;
  // A later word that names another command: CLI11 may treat it as one, so let it see them all.
  const bool names_another =
      std::any_of(argv + std::min(argc, 2), argv + argc, [](const char* w) { return find_command(w) != nullptr; });
  if (named == nullptr || names_another) {
    add_commands(app, exit_code);
    return false;
  }
  add_top_level(app);
  named->add(app, exit_code);
  return true;
}

int parse_and_run(CLI::App& app, const Exit& exit_code, int argc, char** argv, bool* parse_error) {
  try {
    check_argument_lengths(app, argc, argv);
    check_empty_assignments(argc, argv);
    check_empty_list_items(app, argc, argv);
    // A mistyped command gets the closest names, not CLI11's "A subcommand is required".
    check_command_words(app, argc, argv);
    check_short_flag_words(app, argc, argv);
    app.parse(argc, argv);
    return code(exit_code);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (parse_error != nullptr) {
      *parse_error = true;  // the caller answers it
      return code(Exit::bad_input);
    }
    write_stderr_line(fmt::format("gpuplan: error: {}", gpuplan::limits::escaped(with_hint(app, e, argc, argv))));
    return code(Exit::bad_input);
  } catch (const gpuplan::InputError& e) {
    // Escaped here, where every error is printed: a message may quote input (a name, a value
    // from a file) whose ESC sequence would drive the terminal or whose newline would split the
    // one error line in two.
    write_stderr_line(fmt::format("gpuplan: error: {}", gpuplan::limits::escaped(e.what())));
    return code(Exit::bad_input);
  } catch (const std::system_error& e) {
    // fmt::print throws this when stdout cannot take the output (a full disk).
    write_stderr_line(fmt::format("gpuplan: error: writing the output failed: {}", e.what()));
    return code(Exit::bad_input);
  } catch (const std::exception& e) {
    write_stderr_line(fmt::format("gpuplan: internal error: {} (please report)", gpuplan::limits::escaped(e.what())));
    return code(Exit::internal);
  }
}

}  // namespace gpuplan::cli

// The fuzzer (tests/fuzz/fuzz_cli.cpp) compiles this file with its own main.
#ifndef GPUPLAN_CLI_NO_MAIN
namespace {
constexpr const char* kDescription = "gpuplan: capacity planner for LLM inference on GPUs";
}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and exits 2 like a full disk,
  // instead of the process being killed by SIGXFSZ.
  (void)std::signal(SIGXFSZ, SIG_IGN);
  // `--version` alone answers before the commands are built (scripts call it to check the tool:
  // start-to-exit near a bare process). It prints what CLI11's version flag would.
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    fmt::print("{}\n", gpuplan::cli::version_text());
    return 0;
  }
  // Only the command argv[1] names is built: building all of them is most of a short run's
  // work in CLI11. A parse error may depend on the others (closest command names), so the whole
  // app answers it, exactly as before; parse errors come before any command runs.
  CLI::App app{kDescription};
  Exit exit_code = Exit::ok;
  if (!gpuplan::cli::add_named_command(app, exit_code, argc, argv)) {
    return gpuplan::cli::parse_and_run(app, exit_code, argc, argv);
  }
  bool parse_error = false;
  const int code = gpuplan::cli::parse_and_run(app, exit_code, argc, argv, &parse_error);
  if (!parse_error) {
    // A full disk or closed pipe must not leave a CI job green with nothing written.
    if (code != static_cast<int>(gpuplan::cli::Exit::bad_input) && (std::fflush(stdout) != 0 || std::ferror(stdout) != 0)) {
      gpuplan::cli::write_stderr_line("gpuplan: error: writing the output to standard output failed");
      return static_cast<int>(gpuplan::cli::Exit::bad_input);
    }
    return code;
  }
  CLI::App whole{kDescription};
  Exit whole_exit_code = Exit::ok;
  gpuplan::cli::add_commands(whole, whole_exit_code);
  return gpuplan::cli::parse_and_run(whole, whole_exit_code, argc, argv);
}
#endif
