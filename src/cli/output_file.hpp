#pragma once
// Writing an output file so that a reader never sees half of it.

#include <string>
#include <string_view>

namespace gpuplan::cli {

/// Throws InputError naming `flag` for a path that is no file name as typed: white space only
/// (' '), or starting with '-' ("--" would be written as a file named "--"; "-" is stdout).
void check_output_path(const std::string& path, std::string_view flag);

/// Writes `text` to a temporary file beside `path`, then renames it over `path` (atomic on
/// POSIX within one file system); a symbolic link is followed to its final target, which is
/// replaced (the link stays), as a shell's `>` writes through it. Failures throw InputError
/// naming `flag` and the path.
void write_file_atomically(const std::string& path, std::string_view text, std::string_view flag);

/// Throws InputError naming `flag` when `output` is the same file as `input` (by device and
/// inode, so through symlinks and other spellings too): the write would replace an input that
/// was read to make it. `what` names the input, e.g. "the plan file being reported".
void refuse_output_onto_input(const std::string& output, const std::string& input, std::string_view flag,
                              std::string_view what);

}  // namespace gpuplan::cli
