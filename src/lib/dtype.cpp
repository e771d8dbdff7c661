#include <gpuplan/dtype.hpp>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>

namespace gpuplan {
namespace {

constexpr std::array kAll{DType::fp32, DType::bf16,  DType::fp16, DType::fp8,
                          DType::int8, DType::int4, DType::fp4,  DType::mxfp4};
constexpr std::array kKv{DType::fp32, DType::bf16, DType::fp16, DType::fp8, DType::int8};

template <typename Range>
DType parse_from(std::string_view text, std::string_view field, const Range& allowed,
                 std::string_view what) {
  // torch's and the engines' spellings of the same formats.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kSpellings{{
      {"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"}, {"float32", "fp32"}, {"float", "fp32"},
      {"float8", "fp8"}, {"e4m3", "fp8"}, {"fp8_e4m3", "fp8"}, {"float8_e4m3fn", "fp8"}, {"nvfp4", "fp4"}}};
  // The refusal echoes what was given: 'nvfp4' refused as 'fp4' named a word the user did not
  // type (helper s56 tasks F6).
  const std::string_view given = text;
  for (const auto& [spelling, name] : kSpellings) {
    if (text == spelling) {
      text = name;
    }
  }
  std::vector<std::string_view> names;
  for (DType d : allowed) {
    if (to_string(d) == text) {
      return d;
    }
    names.push_back(to_string(d));
  }
  const auto close = closest_names(text, std::vector<std::string>(names.begin(), names.end()), 1);
  throw InputError(fmt::format("{}: unknown {} '{}'{}; known: {}", field, what, given,
                               close.empty() ? "" : fmt::format("; closest: {}", close.front()), fmt::join(names, ", ")));
}

}  // namespace

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::fp32: return "fp32";
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp8: return "fp8";
    case DType::int8: return "int8";
    case DType::int4: return "int4";
    case DType::fp4: return "fp4";
    case DType::mxfp4: return "mxfp4";
  }
  return "?";
}

double element_bits(DType dtype) {
  switch (dtype) {
    case DType::fp32: return 32.0;
    case DType::bf16:
    case DType::fp16: return 16.0;
    case DType::fp8:
    case DType::int8: return 8.0;
    case DType::int4:
    case DType::fp4:
    case DType::mxfp4: return 4.0;
  }
  return 0.0;
}

double bits_per_element(DType dtype) {
  // The element itself plus its share of the quantization scales.
  switch (dtype) {
    case DType::int4: return element_bits(dtype) + 16.0 / 128.0;  // one bf16 scale per group of 128 (GPTQ/AWQ g128)
    case DType::fp4: return element_bits(dtype) + 8.0 / 16.0;     // NVFP4: one fp8 (E4M3) scale per 16 values
    case DType::mxfp4: return element_bits(dtype) + 8.0 / 32.0;   // OCP MXFP4: one 8-bit exponent per 32 values
    default: return element_bits(dtype);                          // per-tensor/channel scales are negligible
  }
}

bool is_quantized(DType dtype) { return bits_per_element(dtype) < 16.0; }

std::span<const DType> all_dtypes() { return kAll; }

DType parse_dtype(std::string_view text, std::string_view field) {
  return parse_from(text, field, kAll, "dtype");
}

DType parse_kv_dtype(std::string_view text, std::string_view field) {
  return parse_from(text, field, kKv, "KV-cache dtype");
}

}  // namespace gpuplan
