// gpuplan batch: fit, perf and cost requests from JSON Lines, one JSON line answered for each,
// through the same subcommand definitions and code as the single commands.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
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
      // A full disk or closed pipe is the output's fault, not gpuplan's: exit 2 as every command.
      throw std::system_error(errno, std::generic_category(), "writing the answers");
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
      limits::check_stream_input(path, "batch FILE");  // stdin ('-') may be anything
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

/// A subcommand as answer_directly() drives it: its hooks, and its options in definition order
/// (the order CLI11 runs their callbacks in) with the rules CLI11 checks after them.
struct DirectCommand {
  struct Rule {
    CLI::Option* option = nullptr;
    bool required = false;
    std::vector<const CLI::Option*> needs;
    std::vector<const CLI::Option*> excludes;
  };
  const CommandHooks* hooks = nullptr;
  std::vector<Rule> rules;
};

DirectCommand direct_command(CLI::App& sub) {
  DirectCommand c{.hooks = command_hooks(sub), .rules = {}};
  for (CLI::Option* opt : sub.get_options()) {
    const std::set<CLI::Option*> needs = opt->get_needs();
    const std::set<CLI::Option*> excludes = opt->get_excludes();
    c.rules.push_back(DirectCommand::Rule{.option = opt,
                                          .required = opt->get_required(),
                                          .needs = {needs.begin(), needs.end()},
                                          .excludes = {excludes.begin(), excludes.end()}});
  }
  return c;
}

/// Answers `request` as CLI11's parse of its command line would (the subcommand's own options take
/// the values, with their validators, transforms and conversions, then its callback runs), without
/// that parse, which cost more than the answer. False, having answered nothing, when the request
/// needs the whole parse: an empty value (CLI11 reads the next argument as the value), a missing
/// required option, options that exclude or need one another, or a value an option rejects (the
/// parse then gives the very message the single command prints). Once the options are set the
/// callback runs as after a parse, so what it throws is the request's answer.
bool answer_directly(const DirectCommand& command, const Request& request) {
  if (command.hooks == nullptr || request.format == nullptr) {
    return false;
  }
  request.app->clear();
  command.hooks->reset();
  try {
    request.format->add_result("json");
    for (const Request::Argument& a : request.arguments) {
      CLI::Option& opt = *a.field->option;
      if (a.field->is_flag) {
        opt.add_result(opt.get_flag_value(a.field->name, std::string()));
      } else if (a.value.empty()) {
        return false;
      } else {
        opt.add_result(a.value);
      }
    }
    for (const DirectCommand::Rule& rule : command.rules) {
      if (rule.option->count() > 0) {
        rule.option->run_callback();
      }
    }
  } catch (const CLI::Error&) {
    return false;
  }
  const auto given = [](const CLI::Option* opt) { return opt->count() > 0; };
  for (const DirectCommand::Rule& rule : command.rules) {
    if (!given(rule.option)) {
      if (rule.required) {
        return false;
      }
      continue;
    }
    if (!std::all_of(rule.needs.begin(), rule.needs.end(), given) ||
        std::any_of(rule.excludes.begin(), rule.excludes.end(), given)) {
      return false;
    }
  }
  command.hooks->run();
  return true;
}

/// The command's document as one JSON line: fit and perf write it so in a batch; the others are
/// indented and compacted here.
void add_answer(Output& out, std::string_view document) {
  if (!document.empty() && document.find('\n') == document.size() - 1) {
    out.add(document);
  } else {
    out.add(render_json_line(document));
  }
}

// The field an error is about: its "--flag" as a field, else the field whose value (a path) the
// message begins with ("/dev/zero: model config is not a regular file" is model_config's: the
// file readers name the path, not the flag).
std::string field_of(const RequestReader& requests, const Request& request, std::string_view message) {
  std::string field = requests.field_in(request.command, message);
  for (const Request::Argument& a : request.arguments) {
    if (!field.empty()) {
      break;
    }
    const std::size_t n = a.value.size();
    if (n > 0 && message.size() > n && message.starts_with(a.value) && (message[n] == ':' || message[n] == '/')) {
      field = RequestReader::field_name(a.field->name);
    }
  }
  return field;
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
  std::map<const CLI::App*, DirectCommand> direct;
  for (CLI::App* sub : commands.get_subcommands([](CLI::App*) { return true; })) {
    direct.emplace(sub, direct_command(*sub));
  }

  Output out;
  std::string document;
  const BatchCapture capture(catalog, document);
  LineReader lines(input.fd, name, kMaxLineBytes, [&out] { out.flush(); });
  Exit result = Exit::ok;
  LineReader::Line line;
  Request request;
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
    try {
      requests.read(line.text, request);
    } catch (const RequestError& e) {
      out.add(render_batch_error(line.number, e.field, e.message));
      continue;
    }
    document.clear();
    (void)take_batch_error();
    try {
      if (!answer_directly(direct.at(request.app), request)) {
        std::vector<std::string> args = RequestReader::command_line(request);
        std::reverse(args.begin(), args.end());  // CLI11 takes them last first
        document.clear();
        commands.clear();
        commands.parse(args);
      }
      // The command's own error (flags named), handed over rather than thrown: answered as
      // the InputError below would be.
      if (const std::optional<std::string> error = take_batch_error()) {
        out.add(render_batch_error(line.number, field_of(requests, request, *error),
                                       requests.in_field_names(request.command, *error)));
      } else {
        add_answer(out, document);
      }
    } catch (const CLI::ParseError& e) {
      out.add(render_batch_error(line.number, field_of(requests, request, e.what()),
                                     requests.in_field_names(request.command, e.what())));
    } catch (const InputError& e) {
      out.add(render_batch_error(line.number, field_of(requests, request, e.what()),
                                     requests.in_field_names(request.command, e.what())));
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
      ->check(non_empty())
      ->allow_extra_args(false);  // one file a --catalog: a following word is the next argument
  sub->callback([o, &exit_code] { exit_code = run_batch(*o); });
}

}  // namespace gpuplan::cli
