#pragma once
// How a checkpoint stores one part of a model's weights: an element type plus a scale scheme.
// Bytes are computed from the tensor shapes, because block and group scales depend on them
// (a 128x128-block FP8 matrix of 576 x 7168 has ceil(576/128) x ceil(7168/128) = 280 scales).

#include <cstdint>
#include <string>
#include <string_view>

#include <gpuplan/dtype.hpp>

namespace gpuplan {

/// Where the quantization scales sit. Groups run along the input dimension (columns).
enum class ScaleScheme {
  none,         ///< bf16/fp16/fp32: no scales
  per_tensor,   ///< one scale per matrix
  per_channel,  ///< one scale per output row
  per_block,    ///< one scale per `block` x `block` tile (DeepSeek-V3 FP8: 128x128)
  per_group,    ///< one scale (and maybe a zero point) per `block` inputs of a row
};

struct WeightFormat {
  DType element = DType::bf16;
  ScaleScheme scheme = ScaleScheme::none;
  std::uint32_t block = 0;        ///< block edge (per_block) or group size (per_group)
  std::uint32_t scale_bits = 0;   ///< bits of one scale: fp32 32, bf16 16, E4M3/E8M0 8
  std::uint32_t zero_bits = 0;    ///< bits of one zero point per group (asymmetric GPTQ/AWQ)
  std::uint32_t matrix_bits = 0;  ///< extra bits per matrix (NVFP4's fp32 global scale)
  /// bitsandbytes double quantization: the 8-bit group scales carry an fp32 scale per 256.
  std::uint32_t second_level_group = 0;
  /// 16: weight-only INT8 (W8A16: GPTQ and AWQ 8-bit, ModelOpt W8A16, compressed-tensors without
  /// input activations): the kernels dequantize to the GEMM's 16-bit inputs, no INT8 tensor cores.
  /// 0: the element's own (INT8 is W8A8, SmoothQuant). A 4-byte member keeps the struct's bytes
  /// comparable at once (WeightFormats' operator==).
  std::uint32_t activation_bits = 0;

  friend bool operator==(const WeightFormat&, const WeightFormat&) = default;

  /// Bytes of a [rows x cols] matrix (rows = output features, cols = input features), scales
  /// included.
  [[nodiscard]] double matrix_bytes(std::uint64_t rows, std::uint64_t cols) const;
  /// True when elements are narrower than 16 bits.
  [[nodiscard]] bool quantized() const { return is_quantized(element); }
};

/// The format `--weights-dtype X` means: bf16/fp16/fp32 plain; fp8 and int8 with an fp32 scale
/// per output channel (vLLM's W8A8 layers); int4 with a bf16 scale per group of 128 (symmetric);
/// fp4 = NVFP4 (E4M3 scale per 16, fp32 per tensor); mxfp4 (E8M0 scale per 32).
WeightFormat default_format(DType dtype);

/// Short name: a preset name ("fp8-block128", "int4-g128-zp", "nf4-dq", "mxfp4") or the dtype
/// name for the default format.
std::string to_string(const WeightFormat& format);

/// Parses a dtype name or a preset name (see `weight_format_names`); unknown names throw
/// InputError naming `field` and listing the names.
WeightFormat parse_weight_format(std::string_view text, std::string_view field);

/// Every name parse_weight_format accepts, comma-separated, for help texts.
std::string weight_format_names();

}  // namespace gpuplan
