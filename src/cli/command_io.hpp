#pragma once
// Where a command reads its catalog and writes its document and notes. A single command loads
// the catalog from its flags and prints to stdout/stderr; inside `gpuplan batch` every request
// shares the catalog parsed once and its document is captured, so batch and the single commands
// run the very same code.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/fit_cache.hpp>

#include "common.hpp"

namespace gpuplan::cli {

/// The catalog for this command: load_catalog(opts), or the batch's shared catalog.
const Catalog& command_catalog(const CommonOptions& opts);
/// The command's output document: stdout, or the batch's capture.
void print_document(std::string_view text);
/// One "gpuplan: note: ..." or "gpuplan: warning: ..." line on stderr; in a batch each distinct
/// line only once (a sweep of 100,000 requests would repeat it 100,000 times).
void print_note(std::string_view line);
/// `line` and a newline on stderr, never throwing: an error must reach exit code 2 even when
/// stderr is closed or full (fmt::print throws there, and a throw from a catch block aborts).
void write_stderr_line(std::string_view line) noexcept;

/// True inside `gpuplan batch`: the document is wanted as one JSON line (render_json_line()).
bool json_lines();
/// Inside `gpuplan batch`, the figures of the catalog's models kept across its requests (a
/// sweep asks about a few dozen models 100,000 times); nullptr for a single command.
FitCache* batch_fit_cache();

/// Inside `gpuplan batch`: the request's error (flags named), answered as its line instead of
/// thrown on to the batch (see with_flag_names()).
void set_batch_error(std::string message);
/// The error set for the request being answered, if any; clears it.
std::optional<std::string> take_batch_error();

/// While alive, commands read `catalog` and append their document to `document`.
class BatchCapture {
 public:
  BatchCapture(const Catalog& catalog, std::string& document);
  ~BatchCapture();
  BatchCapture(const BatchCapture&) = delete;
  BatchCapture& operator=(const BatchCapture&) = delete;
  struct State;

 private:
  std::unique_ptr<State> state_;
};

/// What `gpuplan batch` needs to answer a request with a subcommand's own options and code but
/// without CLI11's whole parse of a command line: set the options' results, run their callbacks
/// (validators, transforms, conversions), then these.
struct CommandHooks {
  std::function<void()> reset;  ///< the options back to their state after registration
  std::function<void()> run;    ///< the subcommand's callback
};
/// The hooks of a subcommand registered with set_command_callback(); nullptr for others.
const CommandHooks* command_hooks(const CLI::App& sub);
void register_command_hooks(const CLI::App& sub, CommandHooks hooks);

/// Restores a subcommand's options to their state after registration before each parse, so a
/// subcommand parsed again (batch) starts from the defaults, not from the last request's values;
/// `run` is its callback. Both are kept for batch (command_hooks()).
template <typename Options>
void set_command_callback(CLI::App& sub, const std::shared_ptr<Options>& options, std::function<void()> run) {
  auto reset = [options, initial = *options] { *options = initial; };
  sub.preparse_callback([reset](std::size_t) { reset(); });
  sub.callback(run);
  register_command_hooks(sub, CommandHooks{.reset = std::move(reset), .run = std::move(run)});
}

}  // namespace gpuplan::cli
