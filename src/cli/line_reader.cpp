#include "line_reader.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan::cli {

LineReader::LineReader(int fd, std::string name, std::size_t max_bytes, std::function<void()> before_wait)
    : fd_(fd), name_(std::move(name)), max_bytes_(max_bytes), before_wait_(std::move(before_wait)),
      buffer_(std::size_t{1} << 16) {}

bool LineReader::fill() {
  if (eof_) {
    return false;
  }
  if (before_wait_) {
    before_wait_();
  }
  for (;;) {
    const ssize_t got = ::read(fd_, buffer_.data(), buffer_.size());
    if (got > 0) {
      begin_ = 0;
      end_ = static_cast<std::size_t>(got);
      return true;
    }
    if (got == 0) {
      eof_ = true;
      return false;
    }
    if (errno != EINTR) {
      throw InputError(fmt::format("{}: cannot read: {}", name_, std::strerror(errno)));
    }
  }
}

bool LineReader::next(Line& line) {
  partial_.clear();
  bool too_long = false;
  for (;;) {
    if (begin_ == end_ && !fill()) {
      if (partial_.empty() && !too_long) {
        return false;  // the input ended with a newline (or was empty)
      }
      line = Line{.text = too_long ? std::string_view() : std::string_view(partial_), .number = ++number_,
                  .too_long = too_long};
      return true;
    }
    const char* start = buffer_.data() + begin_;
    const std::size_t available = end_ - begin_;
    const auto* newline = static_cast<const char*>(std::memchr(start, '\n', available));
    const std::size_t length = newline == nullptr ? available : static_cast<std::size_t>(newline - start);
    begin_ += newline == nullptr ? available : length + 1;
    too_long = too_long || partial_.size() + length > max_bytes_;
    if (too_long) {
      partial_.clear();
    } else if (newline != nullptr && partial_.empty()) {
      line = Line{.text = std::string_view(start, length), .number = ++number_, .too_long = false};
      return true;
    } else {
      partial_.append(start, length);
    }
    if (newline != nullptr) {
      line = Line{.text = too_long ? std::string_view() : std::string_view(partial_), .number = ++number_,
                  .too_long = too_long};
      return true;
    }
  }
}

}  // namespace gpuplan::cli
