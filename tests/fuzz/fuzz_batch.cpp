// JSON Lines requests (`gpuplan batch`): each line through the request reader into an argument
// vector, then through the fit/perf/cost definitions batch parses it with, stopped after
// parsing (fuzz_cli covers the flags; this covers the request format). A line's error must be a
// RequestError, a CLI11 parse error or an InputError, answered as batch answers it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include <gpuplan/render.hpp>

#include "app.hpp"
#include "batch_request.hpp"
#include "common.hpp"
#include "fuzz_support.hpp"

namespace {

struct Parsed {};  // thrown once a line parsed; not a std::exception, so it passes through

struct Batch {
  CLI::App commands;
  gpuplan::cli::Exit ignored = gpuplan::cli::Exit::ok;
  std::optional<gpuplan::cli::RequestReader> requests;
  Batch() {
    gpuplan::cli::add_fit_command(commands, ignored);
    gpuplan::cli::add_perf_command(commands, ignored);
    gpuplan::cli::add_cost_command(commands, ignored);
    commands.parse_complete_callback([] { throw Parsed{}; });
    requests.emplace(commands, gpuplan::cli::command_names());
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Batch batch;
  const std::string_view text = gpuplan::fuzz::text_of(data, size);
  std::uint64_t number = 0;
  for (std::size_t start = 0; start <= text.size() && number < 16;) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    std::string command;
    gpuplan::fuzz::expect_input_errors_only([&] {
      try {
        gpuplan::cli::Request request;
        batch.requests->read(line, request);
        command = request.command;
        std::vector<std::string> args = gpuplan::cli::RequestReader::command_line(request);
        std::reverse(args.begin(), args.end());  // CLI11 takes them last first
        batch.commands.clear();
        batch.commands.parse(args);
      } catch (const Parsed&) {
      } catch (const gpuplan::cli::RequestError& e) {
        (void)gpuplan::render_batch_error(number, e.field, e.message);
      } catch (const CLI::ParseError& e) {
        (void)gpuplan::render_batch_error(number, batch.requests->field_in(command, e.what()), e.what());
      } catch (const gpuplan::InputError& e) {
        (void)gpuplan::render_batch_error(number, batch.requests->field_in(command, e.what()), e.what());
      }
    });
  }
  return 0;
}
