#include <gpuplan/weight_format.hpp>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/units.hpp>

#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

using detail::d;
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

// Named schemes as checkpoints ship them (sources in README "Weight formats").
const std::array<std::pair<std::string_view, WeightFormat>, 10>& presets() {
  static const std::array<std::pair<std::string_view, WeightFormat>, 10> kPresets{{
      // DeepSeek-V3 inference/README, config weight_block_size [128, 128]; scales fp32.
      {"fp8-block128", {.element = DType::fp8, .scheme = ScaleScheme::per_block, .block = 128, .scale_bits = 32}},
      {"fp8-tensor", {.element = DType::fp8, .scheme = ScaleScheme::per_tensor, .scale_bits = 32}},
      {"fp8-channel", {.element = DType::fp8, .scheme = ScaleScheme::per_channel, .scale_bits = 32}},
      {"int8-tensor", {.element = DType::int8, .scheme = ScaleScheme::per_tensor, .scale_bits = 32}},
      // Weight-only INT8 with a 16-bit scale per output channel (llm-compressor's W8A16 scheme,
      // ModelOpt W8A16): the GEMMs run in 16 bits.
      {"w8a16", {.element = DType::int8, .scheme = ScaleScheme::per_channel, .scale_bits = 16, .activation_bits = 16}},
      // GPTQ and AWQ store a bf16/fp16 scale and a packed 4-bit zero point per group.
      {"int4-g128-zp", {.element = DType::int4, .scheme = ScaleScheme::per_group, .block = 128, .scale_bits = 16, .zero_bits = 4}},
      {"int4-g32", {.element = DType::int4, .scheme = ScaleScheme::per_group, .block = 32, .scale_bits = 16}},
      // bitsandbytes 4-bit: fp32 absmax per 64; with double quantization 8-bit absmax and an
      // fp32 scale per 256 blocks.
      {"nf4", {.element = DType::int4, .scheme = ScaleScheme::per_group, .block = 64, .scale_bits = 32}},
      {"nf4-dq", {.element = DType::int4, .scheme = ScaleScheme::per_group, .block = 64, .scale_bits = 8, .second_level_group = 256}},
      {"int4-channel", {.element = DType::int4, .scheme = ScaleScheme::per_channel, .scale_bits = 16}},
  }};
  return kPresets;
}

}  // namespace

double WeightFormat::matrix_bytes(std::uint64_t rows, std::uint64_t cols) const {
  const double elements_bits = d(rows) * d(cols) * element_bits(element);
  double scale_count = 0;
  double zero_count = 0;
  switch (scheme) {
    case ScaleScheme::none: break;
    case ScaleScheme::per_tensor: scale_count = 1; break;
    case ScaleScheme::per_channel: scale_count = d(rows); break;
    case ScaleScheme::per_block: scale_count = d(ceil_div(rows, block)) * d(ceil_div(cols, block)); break;
    case ScaleScheme::per_group:
      scale_count = d(rows) * d(ceil_div(cols, block));
      zero_count = zero_bits > 0 ? scale_count : 0;
      break;
  }
  double bits = elements_bits + scale_count * scale_bits + zero_count * zero_bits + matrix_bits;
  if (second_level_group > 0) {
    bits += std::ceil(scale_count / d(second_level_group)) * 32.0;
  }
  return bits / units::kBitsPerByte;
}

WeightFormat default_format(DType dtype) {
  switch (dtype) {
    case DType::fp32:
    case DType::bf16:
    case DType::fp16: return {.element = dtype};
    case DType::fp8:
    case DType::int8: return {.element = dtype, .scheme = ScaleScheme::per_channel, .scale_bits = 32};
    case DType::int4: return {.element = dtype, .scheme = ScaleScheme::per_group, .block = 128, .scale_bits = 16};
    // NVFP4 (ModelOpt / compressed-tensors nvfp4): E4M3 scale per 16 and an fp32 global scale.
    case DType::fp4: return {.element = dtype, .scheme = ScaleScheme::per_group, .block = 16, .scale_bits = 8, .matrix_bits = 32};
    // OCP MX: one E8M0 exponent per 32 elements (gpt-oss experts).
    case DType::mxfp4: return {.element = dtype, .scheme = ScaleScheme::per_group, .block = 32, .scale_bits = 8};
  }
  return {};
}

namespace {
// The scheme spelled out whatever its preset name: "int4-g128" for int4's default.
std::string spelled_out_name(const WeightFormat& f) {
  const std::string_view scheme = f.scheme == ScaleScheme::per_tensor    ? "tensor"
                                  : f.scheme == ScaleScheme::per_channel ? "channel"
                                  : f.scheme == ScaleScheme::per_block   ? "block"
                                  : f.scheme == ScaleScheme::per_group   ? "g"
                                                                         : "";
  return fmt::format("{}-{}{}{}{}", to_string(f.element), scheme,
                     f.block > 0 ? std::to_string(f.block) : std::string(), f.zero_bits > 0 ? "-zp" : "",
                     f.activation_bits == 16 && f.element == DType::int8 ? "-a16" : "");
}
}  // namespace

std::string to_string(const WeightFormat& f) {
  if (f == default_format(f.element)) {
    return std::string(to_string(f.element));
  }
  for (const auto& [name, preset] : presets()) {
    if (preset == f) {
      return std::string(name);
    }
  }
  return spelled_out_name(f);
}

namespace {
// How a format stores its scales, for the closest-name hint: "groups of 128, 16-bit scales, no zero point".
std::string scheme_text(const WeightFormat& f) {
  std::string out = std::string(to_string(f.element));
  switch (f.scheme) {
    case ScaleScheme::none: return out + ", no scales";
    case ScaleScheme::per_tensor: out += ", one scale per tensor"; break;
    case ScaleScheme::per_channel: out += ", one scale per channel"; break;
    case ScaleScheme::per_block: out += fmt::format(", one scale per {}x{} block", f.block, f.block); break;
    case ScaleScheme::per_group: out += fmt::format(", one {}-bit scale per {}", f.scale_bits, f.block); break;
  }
  if (f.element == DType::int4 || f.element == DType::int8) {
    out += f.zero_bits > 0 ? ", zero points" : ", no zero point";
  }
  return out;
}
}  // namespace

namespace {

// Every name --weights-dtype takes: the dtypes, NVIDIA's nvfp4 and the presets.
std::vector<std::string> known_weight_formats() {
  std::vector<std::string> names;
  for (DType dtype : all_dtypes()) {
    names.emplace_back(to_string(dtype));
  }
  names.emplace_back("nvfp4");
  for (const auto& [name, preset] : presets()) {
    names.emplace_back(name);
  }
  return names;
}

}  // namespace

WeightFormat parse_weight_format(std::string_view text, std::string_view field) {
  for (DType dtype : all_dtypes()) {
    if (to_string(dtype) == text) {
      return default_format(dtype);
    }
  }
  if (text == "nvfp4") {
    return default_format(DType::fp4);
  }
  // Quantization-method words, read as gpuplan reads them in checkpoint names (checkpoint_name.cpp:
  // "-AWQ" int4-g128-zp, "-GPTQ" and "quantized.w4a16" int4): --weights-dtype gptq had been refused
  // with fp32, fp16 and fp8 as its closest names (helper s56 tasks F3).
  if (text == "awq") {
    return parse_weight_format("int4-g128-zp", field);
  }
  if (text == "gptq" || text == "w4a16") {
    return default_format(DType::int4);
  }
  for (const auto& [name, preset] : presets()) {
    if (name == text) {
      return preset;
    }
  }
  // The closest names, each with its scheme: "int4-g128" is plain int4 (groups of 128, no zero
  // point) or int4-g128-zp, and the list alone does not say which (helper s53 logs F8).
  const std::vector<std::string> known = known_weight_formats();
  std::vector<std::string> close;
  // A name that spells out a known format's scheme ("int4-g128" is int4's own) comes first.
  for (const std::string& name : known) {
    if (spelled_out_name(parse_weight_format(name, field)) == text) {
      close.push_back(fmt::format("{} (the same scheme: {})", name, scheme_text(parse_weight_format(name, field))));
    }
  }
  for (const std::string& name : closest_names(text, known)) {
    if (close.empty() || !close.front().starts_with(name + " ")) {
      close.push_back(fmt::format("{} ({})", name, scheme_text(parse_weight_format(name, field))));
    }
  }
  throw InputError(fmt::format("{}: unknown weight format '{}'{}; known: {}", field, text,
                               close.empty() ? "" : fmt::format(", closest: {}", fmt::join(close, ", ")),
                               weight_format_names()));
}

std::string weight_format_names() {
  return fmt::format("{}", fmt::join(known_weight_formats(), ", "));
}

}  // namespace gpuplan
