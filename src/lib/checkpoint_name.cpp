#include <gpuplan/checkpoint_name.hpp>

#include <utility>

#include "detail/ascii.hpp"

namespace gpuplan {
namespace {

// Format words of quantized releases and the format each states; nullopt inside: a qualifier
// that states none by itself ("dynamic", "kv", "block"); nullopt: not a format word.
std::optional<std::optional<WeightFormat>> suffix_token(std::string_view t) {
  const auto of = [](std::string_view preset) { return std::optional(parse_weight_format(preset, "format")); };
  if (t == "fp8") return of("fp8");
  if (t == "fp4" || t == "nvfp4") return of("fp4");
  if (t == "mxfp4") return of("mxfp4");
  if (t == "awq") return of("int4-g128-zp");
  if (t == "gptq" || t == "int4" || t == "w4a16" || t == "w4a8" || t == "quantized.w4a16" || t == "quantized.w4a8") {
    return of("int4");
  }
  if (t == "w8a16" || t == "quantized.w8a16") return of("w8a16");
  if (t == "int8" || t == "w8a8" || t == "quantized.w8a8") return of("int8");
  if (t == "bnb" || t == "4bit") return of("nf4");
  if (t == "dynamic" || t == "static" || t == "kv" || t == "block" || t == "8bit") {
    return std::optional<WeightFormat>{};
  }
  return std::nullopt;  // not a format token: the model's own name ends here
}

// The format stated by format tokens `words` (right to left): the last stating word decides,
// but a word naming the element format (FP8, NVFP4, INT8) outranks a weights/activations
// scheme (W8A8 is INT8 in llm-compressor's names, FP8 in "FP8 W8A8"). AWQ's 4 bits keep their
// zero points.
struct Stated {
  std::optional<WeightFormat> format;
  std::optional<WeightFormat> scheme;
  bool awq = false;
  bool gptq = false;
  bool eight_bit = false;  // "8bit" beside AWQ or GPTQ (TechxGenus/...-AWQ-8bit)

  void add(std::string_view word, const std::optional<WeightFormat>& f) {
    const bool scheme_word = word.starts_with("w") || word.starts_with("quantized.");
    std::optional<WeightFormat>& slot = scheme_word ? scheme : format;
    if (f && !slot) {
      slot = f;
    }
    awq = awq || word == "awq";
    gptq = gptq || word == "gptq";
    eight_bit = eight_bit || word == "8bit";
  }
  [[nodiscard]] std::optional<WeightFormat> result() const {
    std::optional<WeightFormat> stated = format ? format : scheme;
    if ((awq || gptq) && eight_bit && stated && stated->element == DType::int4) {
      stated = default_format(DType::int8);  // the method's 4 bits were only its default
    }
    if (awq && stated && stated->element == DType::int4) {
      return parse_weight_format("int4-g128-zp", "format");
    }
    // GPTQ and AWQ are weight-only: their 8 bits ("GPTQ-Int8") dequantize into 16-bit GEMMs, in
    // groups of 128 with a 16-bit scale each (Qwen's GPTQ-Int8 releases).
    if ((awq || gptq) && stated && stated->element == DType::int8) {
      return WeightFormat{.element = DType::int8, .scheme = ScaleScheme::per_group, .block = 128, .scale_bits = 16,
                          .activation_bits = 16};
    }
    return stated;
  }
};

}  // namespace

CheckpointName read_checkpoint_name(std::string_view name) {
  const std::string_view bare = name.substr(name.rfind('/') + 1);
  std::string lowered = detail::lower(bare);
  CheckpointName out;
  if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) {
    out.owner = detail::lower(name.substr(0, slash));
  }
  Stated stated;
  std::size_t end = lowered.size();
  std::size_t cut = end;  // where the format suffix starts
  // A re-release of a quantized checkpoint ("DeepSeek-R1-0528-FP4-v2"): "v" and digits after a
  // format word revise the checkpoint, not the model ("DeepSeek-V2" has no format word before).
  // Words are apart by "-", "_" or, as tables write names ("Llama 3.1 8B AWQ"), spaces.
  if (const std::size_t sep = lowered.find_last_of("-_ "); sep != std::string::npos && sep > 0 &&
      lowered.size() - sep > 2 && lowered[sep + 1] == 'v' &&
      lowered.find_first_not_of("0123456789", sep + 2) == std::string::npos) {
    const std::size_t before = lowered.find_last_of("-_ ", sep - 1);
    const std::size_t start = before == std::string::npos ? 0 : before + 1;
    if (start > 0 && suffix_token(std::string_view(lowered).substr(start, sep - start))) {
      end = sep;
    }
  }
  while (end > 0) {
    const std::size_t sep = lowered.find_last_of("-_ ", end - 1);
    const std::size_t start = sep == std::string::npos ? 0 : sep + 1;
    const std::string_view word = std::string_view(lowered).substr(start, end - start);
    const auto token = suffix_token(word);
    if (!token || start == 0) {
      break;  // the whole name is never a suffix
    }
    stated.add(word, *token);
    cut = sep;
    end = sep;
  }
  out.format = stated.result();
  if (out.format) {
    out.format_text = std::string(bare.substr(cut + 1));
    lowered.resize(cut);
  }
  out.model = std::move(lowered);
  return out;
}

std::optional<WeightFormat> format_of_precision(std::string_view text) {
  const std::string lowered = detail::lower(text);
  Stated stated;
  std::size_t end = lowered.size();
  while (end > 0) {
    const std::size_t sep = lowered.find_last_of("-_ ,/()", end - 1);
    const std::size_t start = sep == std::string::npos ? 0 : sep + 1;
    const std::string_view word = std::string_view(lowered).substr(start, end - start);
    if (const auto token = suffix_token(word)) {
      stated.add(word, *token);
    }
    end = sep == std::string::npos ? 0 : sep;
  }
  return stated.result();
}

}  // namespace gpuplan
