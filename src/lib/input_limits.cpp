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

std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : bidi_escaped(text)) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return out;
}

std::string bidi_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    // U+202A..U+202E and U+2066..U+2069 are E2 80 AA..AE and E2 81 A6..A9 in UTF-8.
    if (i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xE2) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      const auto b2 = static_cast<unsigned char>(text[i + 2]);
      if ((b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9)) {
        out += fmt::format("<U+{:04X}>", 0x2000U + ((b1 & 0x3FU) << 6U) + (b2 & 0x3FU));
        i += 2;
        continue;
      }
    }
    out += text[i];
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

bool optional_file_present(const std::filesystem::path& path, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status own = fs::symlink_status(path, ec);
  if (own.type() == fs::file_type::not_found) {
    return false;
  }
  const fs::file_status target = fs::status(path, ec);
  if (target.type() == fs::file_type::regular) {
    return true;
  }
  std::string kind;
  if (own.type() == fs::file_type::symlink && target.type() == fs::file_type::not_found) {
    std::error_code read_ec;
    const fs::path to = fs::read_symlink(path, read_ec);
    // What `cp -a` of a Hugging Face cache snapshot leaves: links into ../../blobs not copied.
    kind = fmt::format("a dangling symbolic link (to {}, which does not exist; a copied Hugging Face cache "
                       "snapshot needs its blobs: copy with cp -L)",
                       read_ec ? std::string("?") : excerpt(to.string()));
  } else if (ec) {
    kind = fmt::format("a symbolic link that cannot be followed ({})", ec.message());
  } else {
    switch (target.type()) {
      case fs::file_type::directory: kind = "a directory"; break;
      case fs::file_type::fifo: kind = "a FIFO (named pipe)"; break;
      case fs::file_type::socket: kind = "a socket"; break;
      case fs::file_type::block:
      case fs::file_type::character: kind = "a device"; break;
      default: kind = "not a regular file"; break;
    }
  }
  throw InputError(fmt::format("{}: {} is {}, not a file (rename or remove it to read config.json alone)",
                               path.string(), what, kind));
}

void check_stream_input(const std::filesystem::path& path, std::string_view flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_type type = fs::status(path, ec).type();
  if (type == fs::file_type::regular || type == fs::file_type::not_found || ec) {
    return;  // a missing or unreadable file is reported by the open, with the OS's reason
  }
  const std::string text = path.string();
  if (type == fs::file_type::fifo && (text.starts_with("/dev/fd/") || text.starts_with("/proc/self/fd/") ||
                                       text == "/dev/stdin")) {
    return;  // process substitution or a pipe into stdin: its writer is already running
  }
  const char* kind = type == fs::file_type::directory ? "a directory"
                     : type == fs::file_type::fifo    ? "a named pipe (FIFO), which waits for a writer"
                     : type == fs::file_type::socket  ? "a socket"
                                                      : "a device";
  throw InputError(fmt::format("{}: '{}' is {}, not a file (pipe the data in as <(...) or /dev/stdin instead)", flag,
                               excerpt(text), kind));
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::uintmax_t max_bytes) {
  std::error_code ec;
  if (path.empty()) {
    throw InputError(fmt::format("{}: the path is empty", what));
  }
  if (!std::filesystem::exists(path, ec)) {
    // '-' is stdin in batch only: elsewhere say so, not that a file named '-' is missing.
    throw InputError(path == "-" ? fmt::format("-: {} is read from a file; '-' (standard input) is taken only by "
                                               "gpuplan batch: give the file's path",
                                               what)
                                 : fmt::format("{}: {} does not exist", path.string(), what));
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
