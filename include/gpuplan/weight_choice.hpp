#pragma once
// Which format each part of the weights is counted in: the checkpoint's own formats by
// default, `--weights-dtype` for every linear layer, and per-part overrides on top.

#include <optional>
#include <string>

#include <gpuplan/checkpoint_name.hpp>
#include <gpuplan/dtype.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/weight_format.hpp>

namespace gpuplan {

/// What the user asked for; every field unset = the formats the model ships in.
struct WeightChoice {
  std::optional<WeightFormat> all;         ///< every linear layer (not embeddings, router, vision)
  std::optional<WeightFormat> experts;     ///< routed and shared experts
  std::optional<WeightFormat> attention;
  std::optional<WeightFormat> embeddings;  ///< embedding table and LM head
};

/// What a published release's name says of its parts: `all` in the format its suffix states, and
/// for Meta's own FP8 releases (meta-llama/...-FP8, fbgemm_fp8) the parts they keep in bf16 (the
/// Llama 3 paper, section 6.2: self-attention and the first and last layers are not quantized;
/// Llama 4's FP8 quantizes the routed experts). `note` says so when it applies. Empty: no format named.
WeightChoice named_release_choice(const ModelSpec& model, const CheckpointName& named, std::string* note);

/// The per-part formats for `model`. With `all` set: linear layers in it, embeddings in bf16 when
/// it is quantized (as quantized checkpoints ship them), otherwise in it. Unset: the shipped
/// formats (bf16 when the model records none). Overrides for parts the model lacks throw
/// InputError naming the field ("weights.experts", "weights.attention").
WeightFormats choose_weight_formats(const ModelSpec& model, const WeightChoice& choice);

/// "experts mxfp4, rest bf16": the format most parts share is "rest"; parts the model lacks
/// are left out.
std::string describe_formats(const ModelSpec& model, const WeightFormats& formats);

/// The element type holding the most weight bytes (decides the compute type of a step).
DType dominant_dtype(const ModelSpec& model, const WeightFormats& formats);

}  // namespace gpuplan
