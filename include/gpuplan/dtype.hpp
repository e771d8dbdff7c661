#pragma once
// Numeric formats of weights and KV cache, with their storage cost in bits per element
// including quantization scales (DESIGN "Memory model": int4 with a 16-bit scale per group of
// 128 is 4.125 bits). Widths are doubles so 4-bit formats stay exact.

#include <span>
#include <string_view>

namespace gpuplan {

enum class DType { fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4 };

/// The name users type and JSON carries ("bf16", "int4", ...).
std::string_view to_string(DType dtype);

/// Bits stored per element, scales included:
/// fp32 32, bf16/fp16 16, fp8/int8 8 (per-channel/tensor scales are negligible),
/// int4 4.125 (one 16-bit scale per group of 128), fp4 = NVFP4 4.5 (one fp8 scale per 16),
/// mxfp4 4.25 (one 8-bit scale per 32).
double bits_per_element(DType dtype);

/// Bits of the element alone, without scales: 32, 16, 8 or 4.
double element_bits(DType dtype);

/// True for formats narrower than 16 bits (their checkpoints keep embeddings in bf16).
bool is_quantized(DType dtype);

/// Every format, in the order they are listed to users.
std::span<const DType> all_dtypes();

/// Parses a weight dtype name; unknown names throw InputError naming `field` and listing
/// the known names.
DType parse_dtype(std::string_view text, std::string_view field);

/// Parses a KV-cache dtype (fp32, bf16, fp16, fp8, int8); others throw InputError.
DType parse_kv_dtype(std::string_view text, std::string_view field);

}  // namespace gpuplan
