#pragma once
// Command-line flags written inside free text: a batch line's error message names the command's
// flags, a measurement row's engine text may carry the engine's ("vLLM 0.9.1 (--enforce-eager)").

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpuplan {

/// One "--flag" word: [begin, end) in the text, the dashes included.
struct FlagWord {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// The "--flag" words of `text`: two dashes at the start of the text or after a space, '(' or
/// '[', then letters, digits, '-' or '_'. Dashes inside a word or a quoted value ("models--org--x",
/// "got '--engine'") are not flags.
std::vector<FlagWord> flag_words(std::string_view text);

}  // namespace gpuplan
