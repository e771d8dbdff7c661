#pragma once
// Where a command reads its catalog and writes its document and notes. A single command loads
// the catalog from its flags and prints to stdout/stderr; inside `gpuplan batch` every request
// shares the catalog parsed once and its document is captured, so batch and the single commands
// run the very same code.

#include <memory>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include <gpuplan/catalog.hpp>

#include "common.hpp"

namespace gpuplan::cli {

/// The catalog for this command: load_catalog(opts), or the batch's shared catalog.
const Catalog& command_catalog(const CommonOptions& opts);
/// The command's output document: stdout, or the batch's capture.
void print_document(std::string_view text);
/// One "gpuplan: note: ..." or "gpuplan: warning: ..." line on stderr; in a batch each distinct
/// line only once (a sweep of 100,000 requests would repeat it 100,000 times).
void print_note(std::string_view line);

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

/// Restores a subcommand's options to their state after registration before each parse, so a
/// subcommand parsed again (batch) starts from the defaults, not from the last request's values.
template <typename Options>
void reset_before_parse(CLI::App& sub, const std::shared_ptr<Options>& options) {
  sub.preparse_callback([options, initial = *options](std::size_t) { *options = initial; });
}

}  // namespace gpuplan::cli
