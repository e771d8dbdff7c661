// closest_names(): the "did you mean" list for unknown ids (ninja's SpellcheckStringV idea).
#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/name_fold.hpp>

#include "detail/ascii.hpp"

namespace gpuplan {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

namespace {

using detail::lower;
using detail::tokens;

std::size_t common_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) {
    ++n;
  }
  return n;
}

std::string reversed(std::string_view s) { return {s.rbegin(), s.rend()}; }

// An id without its family's version ("llama-3.3-70b" -> "llama-70b", "qwen2.5-32b" ->
// "qwen-32b"): what a distilled model's name keeps of its student.
std::string without_family_version(const std::string& id) {
  const auto version_char = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.'; };
  std::string out = id;
  std::size_t end = out.find('-');
  if (end == std::string::npos) {
    return out;
  }
  std::size_t start = end;
  while (start > 0 && version_char(out[start - 1])) {
    --start;
  }
  if (start > 0 && start < end) {  // "qwen2.5-32b"
    out.erase(start, end - start);
    return out;
  }
  const std::size_t next = out.find('-', end + 1);
  const std::size_t word_end = next == std::string::npos ? out.size() : next;
  if (word_end > end + 1 && std::all_of(out.begin() + static_cast<std::ptrdiff_t>(end) + 1,
                                        out.begin() + static_cast<std::ptrdiff_t>(word_end), version_char) &&
      next != std::string::npos) {  // "llama-3.3-70b"
    out.erase(end, word_end - end);
  }
  return out;
}

// Whether `part` occurs in `whole` with no letter or digit right before or after it.
bool contains_words(std::string_view whole, std::string_view part) {
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t at = whole.find(part); at != std::string_view::npos; at = whole.find(part, at + 1)) {
    const std::size_t end = at + part.size();
    if ((at == 0 || !word_char(whole[at - 1])) && (end == whole.size() || !word_char(whole[end]))) {
      return true;
    }
  }
  return false;
}

// Superscript and subscript digits as the digits they raise or lower, for closeness only: "h\u00b9\u2070\u2070"
// names no GPU (a raised digit is no digit of an id, so fold_name keeps it), but its closest name
// is h100, not none at all (helper s55 bad-input F10).
std::string with_script_digits_plain(std::string text) {
  static constexpr std::pair<std::string_view, char> kDigits[] = {
      {"\u2070", '0'}, {"\u00b9", '1'}, {"\u00b2", '2'}, {"\u00b3", '3'}, {"\u2074", '4'}, {"\u2075", '5'},
      {"\u2076", '6'}, {"\u2077", '7'}, {"\u2078", '8'}, {"\u2079", '9'}, {"\u2080", '0'}, {"\u2081", '1'},
      {"\u2082", '2'}, {"\u2083", '3'}, {"\u2084", '4'}, {"\u2085", '5'}, {"\u2086", '6'}, {"\u2087", '7'},
      {"\u2088", '8'}, {"\u2089", '9'}};
  for (const auto& [from, to] : kDigits) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + 1)) {
      text.replace(at, from.size(), 1, to);
    }
  }
  return text;
}

}  // namespace

std::string_view without_owner(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return slash != std::string_view::npos && slash + 1 < name.size() ? name.substr(slash + 1) : name;
}

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& known,
                                       std::size_t limit) {
  // A distilled model ("DeepSeek-R1-Distill-Llama-70B") has its student's architecture: the names
  // closest to the student's, never the teacher (a 671B MoE for a dense 70B).
  // A pasted look-alike ("Ｈ100", "h100\u2010sxm") is as close as the ASCII it stands for.
  std::string needle = lower(with_script_digits_plain(fold_name(name).text));
  // A name cut short when pasted ends in an ellipsis (U+2026, or "...") or a replacement
  // character (U+FFFD, a multi-byte character cut in two): the closest are the name's without it.
  {
    std::string plain = needle;
    bool cut = false;
    for (const std::string_view mark : {std::string_view("\xE2\x80\xA6"), std::string_view("\xEF\xBF\xBD")}) {
      for (std::size_t at = plain.find(mark); at != std::string::npos; at = plain.find(mark, at)) {
        plain.erase(at, mark.size());
        cut = true;
      }
    }
    if (cut || plain.ends_with("...")) {
      plain.erase(plain.find_last_not_of(".-_ ") + 1);
    }
    if (!plain.empty()) {
      needle = std::move(plain);
    }
  }
  const bool distilled = [&needle] {
    const std::size_t at = needle.find("distill-");
    if (at == std::string::npos || at + 8 >= needle.size()) {
      return false;
    }
    needle.erase(0, at + 8);
    return true;
  }();
  struct Scored {
    std::size_t score;  // edits, less half the shared prefix and suffix
    std::size_t affix;  // shared prefix + suffix: breaks ties
    const std::string* name;
  };
  std::vector<Scored> scored;
  const std::vector<std::string> typed_words = tokens(needle);
  for (const std::string& k : known) {
    // The student's name states its family and size, not which release: every release of that
    // size is as close, the newest first (below).
    const std::string candidate = distilled ? without_family_version(lower(k)) : lower(k);
    std::size_t score = edit_distance(needle, candidate);
    // A name written as a table writes it ("A100 80GB HBM2e") shares whole words with ids that an
    // edit distance over the whole string misses: the family's word makes a candidate, each shared
    // word a closer one.
    // Only for names written with spaces, as tables write them: ids and fields are one word.
    const auto typed = [&typed_words](const std::string& w) {
      return std::find(typed_words.begin(), typed_words.end(), w) != typed_words.end();
    };
    const std::vector<std::string> id_words = tokens(candidate);
    const bool family = needle.find(' ') != std::string::npos && !id_words.empty() && typed(id_words.front());
    // A name that contains what was typed (or is contained in it) as whole words is a strong
    // hint ("a10" is not in "a100 40gb": the digit after it continues the word).
    if (!needle.empty() && (contains_words(candidate, needle) || contains_words(needle, candidate))) {
      score = std::min<std::size_t>(score, 1);
    }
    // Shared beginnings and endings ("num_kv_heads" vs "num_key_value_heads") count in favour.
    const std::size_t affix = common_prefix(needle, candidate) + common_prefix(reversed(needle), reversed(candidate));
    const std::size_t tolerance = std::max<std::size_t>(3, needle.size() / 2);
    if (family) {
      const auto shared = static_cast<std::size_t>(std::count_if(id_words.begin(), id_words.end(), typed));
      score = std::min(score, tolerance) - std::min(tolerance, shared);
    }
    if (score <= tolerance || 2 * affix >= needle.size() + 2) {
      scored.push_back({score > affix / 2 ? score - affix / 2 : 0, affix, &k});
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [distilled](const Scored& a, const Scored& b) {
    if (a.score != b.score) {
      return a.score < b.score;
    }
    if (a.affix != b.affix) {
      return a.affix > b.affix;
    }
    return distilled && *a.name > *b.name;  // "llama-3.3-70b" before "llama-3.1-70b"
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i) {
    out.push_back(*scored[i].name);
  }
  return out;
}

}  // namespace gpuplan
