#include "command_io.hpp"

#include <cstdio>
#include <map>
#include <optional>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include <gpuplan/input_limits.hpp>

namespace gpuplan::cli {

struct BatchCapture::State {
  const Catalog* catalog = nullptr;
  std::string* document = nullptr;
  std::unordered_set<std::string> notes;
  std::optional<std::string> error;
  FitCache fit_cache;
};

namespace {

BatchCapture::State*& active() {
  static BatchCapture::State* state = nullptr;
  return state;
}

}  // namespace

const Catalog& command_catalog(const CommonOptions& opts) {
  if (active() != nullptr) {
    return *active()->catalog;
  }
  static std::optional<Catalog> loaded;
  return loaded.emplace(load_catalog(opts));
}

void print_document(std::string_view text) {
  if (active() != nullptr) {
    active()->document->append(text);
    return;
  }
  fmt::print("{}", text);
}

bool json_lines() { return active() != nullptr; }

FitCache* batch_fit_cache() { return active() != nullptr ? &active()->fit_cache : nullptr; }

void set_batch_error(std::string message) { active()->error = std::move(message); }

std::optional<std::string> take_batch_error() {
  return active() != nullptr ? std::exchange(active()->error, std::nullopt) : std::nullopt;
}

void print_note(std::string_view line) {
  if (active() != nullptr && !active()->notes.emplace(line).second) {
    return;
  }
  // What stdout holds so far goes first: a merged CI log (2>&1) keeps every line whole.
  std::fflush(stdout);
  write_stderr_line(limits::bidi_escaped(line));
}

void write_stderr_line(std::string_view line) noexcept {
  // Nothing to do when stderr cannot take it: the exit code still says what happened.
  (void)std::fwrite(line.data(), 1, line.size(), stderr);
  (void)std::fputc('\n', stderr);
}

BatchCapture::BatchCapture(const Catalog& catalog, std::string& document)
    : state_(std::make_unique<State>()) {
  state_->catalog = &catalog;
  state_->document = &document;
  active() = state_.get();
}

BatchCapture::~BatchCapture() { active() = nullptr; }

namespace {
std::map<const CLI::App*, CommandHooks>& hooks() {
  static std::map<const CLI::App*, CommandHooks> registered;
  return registered;
}
}  // namespace

void register_command_hooks(const CLI::App& sub, CommandHooks command_hooks) {
  hooks()[&sub] = std::move(command_hooks);
}

const CommandHooks* command_hooks(const CLI::App& sub) {
  const auto found = hooks().find(&sub);
  return found == hooks().end() ? nullptr : &found->second;
}

}  // namespace gpuplan::cli
