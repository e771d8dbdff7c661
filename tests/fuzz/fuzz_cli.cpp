// The command line: argument vectors through the same CLI11 app as gpuplan (flags, validators,
// transforms, the command-word and size checks), stopped after parsing, before any command
// runs. Input: arguments separated by NUL bytes, or by whitespace when there is no NUL (so
// tests/cli/*.args lines are seeds as they are).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app.hpp"
#include "fuzz_support.hpp"

namespace {

struct Parsed {};  // thrown once parsing succeeded; not a std::exception, so it passes through

std::vector<std::string> split(std::string_view text) {
  const bool nul = text.find('\0') != std::string_view::npos;
  const auto separates = [nul](char c) { return nul ? c == '\0' : (c == ' ' || c == '\n' || c == '\t'); };
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (char c : text) {
    if (separates(c)) {
      if (in_word || nul) {
        words.push_back(std::move(word));
      }
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) {
    words.push_back(std::move(word));
  }
  return words;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words = split(gpuplan::fuzz::text_of(data, size));
  if (words.size() > 64) {
    return -1;  // not worth keeping; real command lines are short
  }
  words.insert(words.begin(), "gpuplan");
  std::vector<char*> argv;
  for (std::string& w : words) {
    argv.push_back(w.data());
  }
  argv.push_back(nullptr);

  CLI::App app{"gpuplan"};
  gpuplan::cli::Exit exit_code = gpuplan::cli::Exit::ok;
  gpuplan::cli::add_commands(app, exit_code);
  app.parse_complete_callback([&app] {
    gpuplan::cli::check_list_lengths(app);
    throw Parsed{};
  });
  try {
    const int code = gpuplan::cli::parse_and_run(app, exit_code, static_cast<int>(words.size()), argv.data());
    if (code == static_cast<int>(gpuplan::cli::Exit::internal)) {
      std::abort();  // "internal error" while only parsing
    }
  } catch (const Parsed&) {
  }
  return 0;
}
