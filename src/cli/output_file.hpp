#pragma once
// Writing an output file so that a reader never sees half of it.

#include <string>
#include <string_view>

namespace gpuplan::cli {

/// Writes `text` to a temporary file beside `path`, then renames it over `path` (atomic on
/// POSIX within one file system). Failures throw InputError naming `flag` and the path.
void write_file_atomically(const std::string& path, std::string_view text, std::string_view flag);

}  // namespace gpuplan::cli
