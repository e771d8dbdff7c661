#include <gpuplan/input_limits.hpp>

#include <fstream>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan::limits {

std::string excerpt(std::string_view text) {
  std::string out(text.substr(0, kMaxQuotedChars));
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      c = '?';
    }
  }
  if (text.size() > kMaxQuotedChars) {
    out += fmt::format("... ({} bytes)", text.size());
  }
  return out;
}

std::string read_stream(std::istream& in, std::string_view what, std::uintmax_t max_bytes) {
  std::string text;
  std::string chunk(std::size_t{64} << 10, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    text.append(chunk, 0, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      throw InputError(fmt::format("{} is larger than the limit of {} MiB", what, max_bytes >> 20));
    }
  }
  return text;
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::uintmax_t max_bytes) {
  std::error_code ec;
  if (path.empty()) {
    throw InputError(fmt::format("{}: the path is empty", what));
  }
  if (!std::filesystem::exists(path, ec)) {
    throw InputError(fmt::format("{}: {} does not exist", path.string(), what));
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: {} is a directory, not a file", path.string(), what));
  }
  // Devices and pipes (/dev/zero, a FIFO) would block or never end.
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(fmt::format("{}: {} is not a regular file", path.string(), what));
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > max_bytes) {
    throw InputError(fmt::format("{}: {} is {} bytes, larger than the limit of {} MiB", path.string(),
                                 what, size, max_bytes >> 20));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(fmt::format("{}: cannot read {}", path.string(), what));
  }
  // The file may have grown since it was measured.
  return read_stream(in, fmt::format("{}: {}", path.string(), what), max_bytes);
}

}  // namespace gpuplan::limits
