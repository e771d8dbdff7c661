#pragma once
// ASCII case folding for names, ids and units people type in any case. Private to the library.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace gpuplan::detail {

/// `text` with ASCII letters lower-cased (bytes outside ASCII unchanged).
inline std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace gpuplan::detail
