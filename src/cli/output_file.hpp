#pragma once
// Writing an output file so that a reader never sees half of it.

#include <string>
#include <string_view>

namespace gpuplan::cli {

/// Writes `text` to a temporary file beside `path`, then renames it over `path` (atomic on
/// POSIX within one file system). Failures throw InputError naming `flag` and the path.
void write_file_atomically(const std::string& path, std::string_view text, std::string_view flag);

/// Throws InputError naming `flag` when `output` is the same file as `input` (by device and
/// inode, so through symlinks and other spellings too): the write would replace an input that
/// was read to make it. `what` names the input, e.g. "the plan file being reported".
void refuse_output_onto_input(const std::string& output, const std::string& input, std::string_view flag,
                              std::string_view what);

}  // namespace gpuplan::cli
