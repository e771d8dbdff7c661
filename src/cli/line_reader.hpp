#pragma once
// Lines of a file or stdin, read in large chunks (batch reads 100,000 lines a second). A line
// longer than the limit is reported and skipped without being held in memory.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::cli {

class LineReader {
 public:
  struct Line {
    std::string_view text;     ///< without the newline; empty when too_long
    std::uint64_t number = 0;  ///< 1-based
    bool too_long = false;
  };
  /// `fd` stays owned by the caller; `name` is for errors. `before_wait` runs before each read
  /// (answers already written reach a pipe's reader before gpuplan waits for more input).
  LineReader(int fd, std::string name, std::size_t max_bytes, std::function<void()> before_wait);
  /// The next line; false at the end of the input. A read error throws InputError naming the input.
  bool next(Line& line);

 private:
  bool fill();
  int fd_;
  std::string name_;
  std::size_t max_bytes_;
  std::function<void()> before_wait_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::string partial_;  ///< a line that continues past the buffer
  std::uint64_t number_ = 0;
  bool eof_ = false;
};

}  // namespace gpuplan::cli
