#include "output_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>

#include <unistd.h>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan::cli {

namespace {

// The file a chain of symbolic links ends at (existing or not): renaming over the link itself
// would replace the link by a file and leave its target stale.
std::filesystem::path final_target(const std::string& path, std::string_view flag) {
  namespace fs = std::filesystem;
  constexpr int kMaxLinks = 40;  // Linux's own limit (ELOOP)
  fs::path p(path);
  for (int hops = 0;; ++hops) {
    std::error_code ec;
    if (fs::symlink_status(p, ec).type() != fs::file_type::symlink) {
      return p;
    }
    if (hops == kMaxLinks) {
      throw InputError(fmt::format("{}: {} is a symbolic link loop (or a chain of over {} links)", flag, path,
                                   kMaxLinks));
    }
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) {
      throw InputError(fmt::format("{}: cannot read the symbolic link {}: {}", flag, p.string(), ec.message()));
    }
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
}

// A path naming one of this process's own descriptors (/dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N): under a pipe its link resolves to "pipe:[N]", no path at all, so the text is
// written through the inherited descriptor.
std::optional<int> inherited_fd(const std::string& path) {
  if (path == "/dev/stdout") {
    return 1;
  }
  if (path == "/dev/stderr") {
    return 2;
  }
  for (const std::string_view prefix : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/")}) {
    if (path.starts_with(prefix) && path.size() > prefix.size() && path.size() - prefix.size() <= 6 &&
        path.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
      return std::stoi(path.substr(prefix.size()));
    }
  }
  return std::nullopt;
}

void write_to_fd(int fd, std::string_view text, const std::string& path, std::string_view flag) {
  std::cout.flush();  // what was printed to stdout before comes first
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      throw InputError(fmt::format("{}: cannot write {}: {}", flag, path, std::strerror(errno)));
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

void check_output_path(const std::string& path, std::string_view flag) {
  if (!path.empty() && path.find_first_not_of(" \t\n\r\v\f") == std::string::npos) {
    throw InputError(fmt::format("{}: '{}' is only white space; name a file", flag, path));
  }
  if (path.size() > 1 && path.front() == '-') {
    throw InputError(fmt::format("{}: '{}' reads as a flag, not a file (- is stdout); write ./{} for a file of that "
                                 "name",
                                 flag, path, path));
  }
}

void write_file_atomically(const std::string& path, std::string_view text, std::string_view flag) {
  check_output_path(path, flag);
  if (const std::optional<int> fd = inherited_fd(path)) {
    write_to_fd(*fd, text, path, flag);
    return;
  }
  const std::filesystem::path target = final_target(path, flag);
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) {
    throw InputError(fmt::format("{}: {} is a directory", flag, path));
  }
  // A device or pipe (/dev/stdout, a FIFO) is written in place: a rename would replace the node.
  if (std::filesystem::exists(target, ec) && !std::filesystem::is_regular_file(target, ec)) {
    if (std::filesystem::is_fifo(target, ec)) {
      // Opened without waiting: a FIFO no process reads would block the open forever.
      const int fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) {
        const int error = errno;
        throw InputError(error == ENXIO ? fmt::format("{}: no process is reading the FIFO {}", flag, path)
                                        : fmt::format("{}: cannot open {}: {}", flag, path, std::strerror(error)));
      }
      // Written blocking once a reader is there: it takes the text at its own pace.
      (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      try {
        write_to_fd(fd, text, path, flag);
      } catch (...) {
        ::close(fd);
        throw;
      }
      ::close(fd);
      return;
    }
    std::ofstream out(target, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      throw InputError(fmt::format("{}: writing {} failed", flag, path));
    }
    return;
  }
  // Beside the target, so the rename stays within one file system; the pid keeps two runs apart.
  const std::filesystem::path temp = target.parent_path() / fmt::format(".{}.{}.tmp", target.filename().string(), getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) {
      const int error = errno;  // the OS's reason: no such directory, permission denied, ...
      // An existing file whose directory takes no new file (/proc/version): the reason is the
      // temporary file's, and saying it of the target would be wrong.
      if (std::filesystem::exists(target, ec)) {
        throw InputError(fmt::format("{}: cannot write {}: cannot create a temporary file beside it to rename over it "
                                     "({}: {})",
                                     flag, path, temp.string(), std::strerror(error)));
      }
      throw InputError(fmt::format("{}: cannot write {}: {}", flag, path, std::strerror(error)));
    }
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temp, ec);
      throw InputError(fmt::format("{}: writing {} failed", flag, path));
    }
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw InputError(fmt::format("{}: cannot replace {}: {}", flag, path, ec.message()));
  }
}

void refuse_output_onto_input(const std::string& output, const std::string& input, std::string_view flag,
                              std::string_view what) {
  std::error_code ec;  // either missing: not the same file (the read reports a missing input)
  if (std::filesystem::equivalent(output, input, ec) && !ec) {
    throw InputError(fmt::format("{}: {} is {} ({}): the report would replace it; write it elsewhere", flag, output,
                                 what, input));
  }
}

}  // namespace gpuplan::cli
