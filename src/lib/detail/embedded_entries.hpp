#pragma once
// The built-in GPUs and models one entry at a time (generated at build time by
// tools/embed_entries.cpp): a command that needs one GPU and one model parses only those.

#include <cstddef>
#include <span>
#include <string_view>

namespace gpuplan::detail {

struct EmbeddedEntry {
  std::string_view id;                        ///< as in the file ("" when it has none)
  std::span<const std::string_view> aliases;  ///< GPU aliases as in the file
  std::size_t index;                          ///< position in the file's array, for JSON pointers
  std::string_view json;                      ///< the entry alone, as JSON
};

extern const std::span<const EmbeddedEntry> kEmbeddedGpuEntries;
extern const std::span<const EmbeddedEntry> kEmbeddedModelEntries;

}  // namespace gpuplan::detail
