#pragma once
// One JSON Lines request -> the command line it stands for, checked against the subcommand's own
// CLI11 definition: {"command":"fit","gpus":2,"context":"32k"} is `fit --gpus=2 --context=32k`.
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

class RequestReader {
 public:
  /// `commands` holds the subcommands a batch answers; `other_commands` are gpuplan's other
  /// commands (named in the error when a request asks for one).
  RequestReader(const CLI::App& commands, std::vector<std::string> other_commands);
  /// The arguments in command-line order: the command word, --format=json, then one per field
  /// (or per array item); throws RequestError.
  [[nodiscard]] std::vector<std::string> arguments(std::string_view line) const;
  /// The field a CLI message is about: its first known "--flag" as a field name ("" if none).
  [[nodiscard]] std::string field_in(std::string_view command, std::string_view message) const;

  /// A flag's field name: "--gpu-memory-utilization" -> "gpu_memory_utilization".
  static std::string field_name(std::string_view flag);

 private:
  struct Field {
    std::string flag;  ///< "--gpu-memory-utilization"
    bool is_flag = false;   ///< takes no value: true gives the flag, false leaves it out
    bool repeatable = false;  ///< takes several values: a JSON array
  };
  struct Command {
    std::unordered_map<std::string, Field> fields;
    std::vector<std::string> names;  ///< for closest matches
  };
  const Command& command(std::string_view name) const;
  std::unordered_map<std::string, Command> commands_;
  std::vector<std::string> command_names_;
  std::vector<std::string> other_commands_;
};

}  // namespace gpuplan::cli
