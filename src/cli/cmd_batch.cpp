// gpuplan batch: fit, perf and cost requests from JSON Lines, one JSON line answered for each,
// through the same subcommand definitions and code as the single commands.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/render.hpp>

#include "app.hpp"
#include "batch_request.hpp"
#include "command_io.hpp"
#include "common.hpp"
#include "line_reader.hpp"

namespace gpuplan::cli {
namespace {

/// A request is one short JSON object; a longer line is answered with an error, not held.
constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

struct BatchOptions {
  std::string input = "-";
  std::vector<std::string> catalogs;
};

/// Answers collected and written in large blocks; flushed before waiting for more input.
class Output {
 public:
  void add(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= (std::size_t{1} << 16)) {
      flush();
    }
  }
  void flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), stdout) != buffer_.size()) {
      throw std::runtime_error(fmt::format("writing the answers: {}", std::strerror(errno)));
    }
    buffer_.clear();
    std::fflush(stdout);
  }

 private:
  std::string buffer_;
};

/// The request file, or stdin for "-"; closed when done.
struct Input {
  explicit Input(const std::string& path) {
    if (path != "-") {
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
      }
    }
  }
  ~Input() {
    if (fd > 0) {
      ::close(fd);
    }
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  int fd = 0;
};

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

Exit run_batch(const BatchOptions& o) {
  const std::string name = o.input == "-" ? "stdin" : o.input;
  const Input input(o.input);
  const Catalog catalog = load_catalog(CommonOptions{.catalogs = o.catalogs});

  // The single commands' own definitions, parsed again for every line.
  CLI::App commands;
  Exit ignored = Exit::ok;  // a line's verdict is in its JSON
  add_fit_command(commands, ignored);
  add_perf_command(commands, ignored);
  add_cost_command(commands, ignored);
  // gpuplan builds only the command it runs: the others are named from the list of them all.
  const RequestReader requests(commands, command_names());

  Output out;
  std::string document;
  const BatchCapture capture(catalog, document);
  LineReader lines(input.fd, name, kMaxLineBytes, [&out] { out.flush(); });
  Exit result = Exit::ok;
  LineReader::Line line;
  while (lines.next(line)) {
    if (line.too_long) {
      out.add(render_batch_error(line.number, "",
                                 fmt::format("longer than {} bytes; a request is one JSON object on one line",
                                             kMaxLineBytes)));
      continue;
    }
    if (blank(line.text)) {
      continue;
    }
    std::string command;
    try {
      std::vector<std::string> args = requests.arguments(line.text);
      command = args.front();
      std::reverse(args.begin(), args.end());  // CLI11 takes them last first
      document.clear();
      commands.clear();
      commands.parse(args);
      out.add(render_json_line(document));
    } catch (const RequestError& e) {
      out.add(render_batch_error(line.number, e.field, e.message));
    } catch (const CLI::ParseError& e) {
      out.add(render_batch_error(line.number, requests.field_in(command, e.what()), e.what()));
    } catch (const InputError& e) {
      out.add(render_batch_error(line.number, requests.field_in(command, e.what()), e.what()));
    } catch (const std::exception& e) {
      // A defect, not bad input: answered like the others, and the exit code says so.
      out.add(render_batch_error(line.number, "", fmt::format("internal error: {} (please report)", e.what())));
      result = Exit::internal;
    }
  }
  out.flush();
  return result;
}

}  // namespace

void add_batch_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<BatchOptions>();
  CLI::App* sub = app.add_subcommand(
      "batch", "Answer fit, perf and cost requests from JSON Lines, one JSON line each (see README)");
  sub->add_option("input", o->input, "JSON Lines file of requests; - (default) reads stdin")->capture_default_str();
  sub->add_option("--catalog", o->catalogs, "Extra catalog file (repeatable), read once for every request")
      ->check(non_empty());
  sub->callback([o, &exit_code] { exit_code = run_batch(*o); });
}

}  // namespace gpuplan::cli
