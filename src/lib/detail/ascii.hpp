#pragma once
// ASCII case folding for names, ids and units people type in any case. Private to the library.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::detail {

/// `text` with ASCII letters lower-cased (bytes outside ASCII unchanged).
inline std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// Tokens of a name, lower-cased: runs of letters and digits between other characters
/// ("H100-SXM 80GB" -> h100 sxm 80gb).
inline std::vector<std::string> tokens(std::string_view name) {
  std::vector<std::string> out(1);
  for (const char raw : name) {
    if (std::isalnum(static_cast<unsigned char>(raw)) == 0) {
      out.emplace_back();
      continue;
    }
    out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(raw)));
  }
  std::erase_if(out, [](const std::string& t) { return t.empty(); });
  return out;
}

/// `text` for a one-line message: control characters (a pasted newline or tab) as escapes, so
/// an error about a name stays the one line it should be.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      constexpr std::string_view kHex = "0123456789abcdef";
      out += c == '\n' ? std::string("\\n") : c == '\t' ? std::string("\\t") : std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace gpuplan::detail
