#pragma once
// One JSON Lines request -> the command line it stands for, checked against the subcommand's own
// CLI11 definition: {"command":"fit","gpus":2,"context":"32k"} is `fit --gpus=2 --context=32k`.
// Each field keeps its CLI11 option, so batch can also hand the values to the options directly.
// Field names are the flags' names with '_' for '-' (gpu_memory_utilization); the values are
// then parsed and validated by the very options the single command uses.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>

namespace gpuplan::cli {

/// A request that is not a command line: the JSON field at fault (empty: the line as a whole).
struct RequestError {
  std::string field;
  std::string message;
};

/// A field a request may carry: one of the command's long option names.
struct RequestField {
  std::string flag;               ///< "--gpu-memory-utilization"
  std::string name;               ///< "gpu-memory-utilization", as CLI11 names it
  CLI::Option* option = nullptr;  ///< the subcommand's own option
  bool is_flag = false;           ///< takes no value: true gives the flag, false leaves it out
  bool repeatable = false;        ///< takes several values: a JSON array
};

/// One line read: the command and its fields' values in the order given, not yet parsed by the
/// options. Reused from line to line (its buffers keep their capacity).
struct Request {
  struct Argument {
    const RequestField* field = nullptr;
    std::string value;  ///< the text after --flag=; empty for a flag
  };
  std::string command;
  CLI::App* app = nullptr;
  CLI::Option* format = nullptr;  ///< the command's --format (batch always asks for JSON)
  std::vector<Argument> arguments;
};

class RequestReader {
 public:
  /// `commands` holds the subcommands a batch answers; `other_commands` are gpuplan's other
  /// commands (named in the error when a request asks for one).
  RequestReader(CLI::App& commands, std::vector<std::string> other_commands);
  /// Reads one line into `request`; throws RequestError.
  void read(std::string_view line, Request& request) const;
  /// The request as a command line: the command word, --format=json, then one argument per field
  /// (or per array item), in order.
  [[nodiscard]] static std::vector<std::string> command_line(const Request& request);
  /// The field a CLI message is about: its first known "--flag" as a field name ("" if none).
  [[nodiscard]] std::string field_in(std::string_view command, std::string_view message) const;
  /// The message with each "--flag" that is a field of `command` spelled as the field a line
  /// gives ("--model-config" -> "model_config"): a batch line has fields, not flags.
  [[nodiscard]] std::string in_field_names(std::string_view command, std::string_view message) const;

  /// A flag's field name: "--gpu-memory-utilization" -> "gpu_memory_utilization".
  static std::string field_name(std::string_view flag);

 private:
  template <typename Each>
  void for_each_field(std::string_view command, std::string_view message, Each each) const;

  struct Command {
    CLI::App* app = nullptr;
    CLI::Option* format = nullptr;
    std::unordered_map<std::string, RequestField> fields;
    std::vector<std::string> names;  ///< for closest matches
  };
  const Command& command(std::string_view name) const;
  std::unordered_map<std::string, Command> commands_;
  std::vector<std::string> command_names_;
  std::vector<std::string> other_commands_;
};

}  // namespace gpuplan::cli
