#include <gpuplan/flag_words.hpp>

#include <cctype>

namespace gpuplan {

std::vector<FlagWord> flag_words(std::string_view text) {
  std::vector<FlagWord> out;
  for (std::size_t at = text.find("--"); at != std::string_view::npos; at = text.find("--", at + 2)) {
    if (at > 0 && text[at - 1] != ' ' && text[at - 1] != '(' && text[at - 1] != '[') {
      continue;
    }
    std::size_t end = at + 2;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '-' ||
                                 text[end] == '_')) {
      ++end;
    }
    if (end > at + 2) {
      out.push_back({.begin = at, .end = end});
      at = end - 2;  // the search resumes after this word
    }
  }
  return out;
}

}  // namespace gpuplan
