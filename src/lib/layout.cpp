#include <gpuplan/layout.hpp>

#include <array>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan {

void validate_layout(const Layout& layout, const ModelSpec& model) {
  if (std::optional<std::string> problem = layout_problem(layout, model)) {
    throw InputError(std::move(*problem));
  }
}

std::string gpus_text(std::uint64_t gpus) { return fmt::format("{} GPU{}", gpus, gpus == 1 ? "" : "s"); }

std::string layout_label(const Layout& l) {
  return l.ep > 1 ? fmt::format("TP {} PP {} EP {} DP {}", l.tp, l.pp, l.ep, l.dp)
                  : fmt::format("TP {} PP {} DP {}", l.tp, l.pp, l.dp);
}

std::optional<std::string> layout_problem(const Layout& layout, const ModelSpec& model) {
  static constexpr std::uint64_t kMaxDegree = 1u << 16;
  // Every degree in range (the usual case) checked at once, without the loop that names the
  // degree out of range: a layout search asks for each of its layouts.
  const bool degrees_in_range = layout.tp - 1 < kMaxDegree && layout.pp - 1 < kMaxDegree &&
                                layout.ep - 1 < kMaxDegree && layout.dp - 1 < kMaxDegree;
  if (!degrees_in_range) {
    for (const auto& [name, value] : {std::pair<std::string_view, std::uint64_t>{"tp", layout.tp},
                                      {"pp", layout.pp}, {"ep", layout.ep}, {"dp", layout.dp}}) {
      if (value < 1 || value > kMaxDegree) {
        return fmt::format("layout.{}: must be between 1 and {}, got {}", name, kMaxDegree, value);
      }
    }
  }
  // Each degree is at most 2^16, so the product cannot overflow 64 bits.
  if (layout.gpus() > kMaxDegree) {
    return fmt::format("layout.gpus: {} GPUs is more than the {} supported", layout.gpus(), kMaxDegree);
  }
  if (!model.has_architecture()) {
    if (layout.ep > 1) {
      return "layout.ep: expert parallelism needs a model with experts, and a bare parameter count has none";
    }
    return std::nullopt;
  }
  // Per-layer head counts (Laguna's 48 and 72): every layer's must split evenly.
  if (model.tp_divisible_heads() % layout.tp != 0) {
    return fmt::format("layout.tp: {} does not divide the {} attention heads of '{}'", layout.tp,
                       model.layer_attention_heads.empty()
                           ? std::to_string(model.num_attention_heads)
                           : fmt::format("{} (per layer: a multiple of {})", model.num_attention_heads,
                                         model.tp_divisible_heads()),
                       model.id);
  }
  // Engines shard KV heads evenly or replicate them: TP must divide the KV heads or be a
  // multiple of them (vLLM's rule).
  // Every attention layer's KV heads where they differ from layer to layer (Nemotron-NAS's
  // n_heads_in_group per block, Gemma 4's global KV heads).
  const auto kv_splits = [&layout](std::uint64_t kv) { return kv % layout.tp == 0 || layout.tp % kv == 0; };
  if (!model.caches_latent() && !kv_splits(model.num_key_value_heads)) {
    return fmt::format("layout.tp: {} neither divides nor is a multiple of the {} KV heads of '{}'",
                       layout.tp, model.num_key_value_heads, model.id);
  }
  for (std::uint64_t i = 0; !model.caches_latent() && i < model.layer_kv_heads.size(); ++i) {
    if (model.holds_token_kv(i) && !kv_splits(model.layer_kv_heads[i])) {
      return fmt::format("layout.tp: {} neither divides nor is a multiple of the {} KV heads of layer {} of '{}'",
                         layout.tp, model.layer_kv_heads[i], i, model.id);
    }
  }
  if (layout.pp > model.num_hidden_layers) {
    return fmt::format("layout.pp: {} stages for {} layers of '{}'", layout.pp, model.num_hidden_layers,
                       model.id);
  }
  if (layout.ep > 1) {
    if (!model.moe) {
      return fmt::format("layout.ep: '{}' is not a mixture-of-experts model", model.id);
    }
    if (model.moe->routed_experts % layout.ep != 0) {
      return fmt::format("layout.ep: {} does not divide the {} experts of '{}'", layout.ep,
                         model.moe->routed_experts, model.id);
    }
    if ((layout.tp * layout.dp) % layout.ep != 0) {
      return fmt::format("layout.ep: {} does not divide the {} GPUs of a pipeline stage (TP {} x DP {})", layout.ep,
                         layout.tp * layout.dp, layout.tp, layout.dp);
    }
  }
  return std::nullopt;
}

namespace {

// The group (GPTQ/AWQ group_size: integer weights with 16-bit scales) or block edge (FP8
// weight_block_size) a part's inputs are quantized in; 0 where the part has none, or where the
// engines pad or flatten rather than refuse: MXFP4 experts (vLLM's mxfp4.py rounds the
// intermediate width up; gpt-oss-120b runs at TP 8 with 2,880 / 8 = 360), NVFP4's groups of 16,
// bitsandbytes' blocks of 64 over the flattened weight (fp32 absmax). Only the checkpoint's own
// format, whose config.json gives the widths its groups tile: a format asked of a 16-bit model
// describes a release whose producer may pad the widths to whole groups (Qwen2-72B-Instruct-GPTQ-
// Int4 pads intermediate_size 29,568 to 29,696 and runs at TP 4: vllm#9722).
std::uint64_t input_group(const ModelSpec& m, const WeightFormats& formats, WeightPart part) {
  const WeightFormat& f = formats[part];
  if (!m.shipped_formats || !((*m.shipped_formats)[part] == f)) {
    return 0;
  }
  constexpr std::uint32_t kSixteenBitScale = 16;
  const bool gptq_awq = f.scheme == ScaleScheme::per_group &&
                        (f.element == DType::int4 || f.element == DType::int8) && f.scale_bits == kSixteenBitScale;
  const bool fp8_blocks = f.scheme == ScaleScheme::per_block && f.element == DType::fp8;
  return gptq_awq || fp8_blocks ? f.block : 0;
}

struct ShardedInput {
  WeightPart part;
  std::string_view what;
  std::uint64_t width;
};

// The first input of a row-parallel weight whose TP share is not a whole number of groups.
std::optional<std::pair<ShardedInput, std::uint64_t>> unaligned_input(const Layout& l, const ModelSpec& m,
                                                                      const WeightFormats& formats) {
  std::array<ShardedInput, 4> inputs{};
  std::size_t n = 0;
  const bool dense_layers = !m.moe || m.moe->first_dense_layers > 0 || m.moe->layer_step > 1 ||
                            !m.moe->dense_layers.empty();
  if (dense_layers && m.intermediate_size > 0) {
    // Widths per layer (Nemotron-NAS's ffn_mult per block): the first that splits into no whole
    // number of groups, else the widest.
    std::uint64_t width = m.intermediate_size;
    const std::uint64_t group = input_group(m, formats, WeightPart::dense_mlp);
    for (std::uint64_t i = 0; group > 0 && i < m.layer_intermediate_size.size(); ++i) {
      const std::uint64_t w = m.layer_intermediate_size[i];
      if (m.has_mlp(i) && (w % l.tp != 0 || (w / l.tp) % group != 0)) {
        width = w;
        break;
      }
    }
    inputs[n++] = {WeightPart::dense_mlp, "MLP's intermediate width", width};
  }
  // Experts split by EP are whole on their rank; split by TP, each holds a share of every one.
  if (m.moe && l.ep <= 1 && m.moe->expert_intermediate > 0) {
    inputs[n++] = {WeightPart::routed_experts, "experts' intermediate width", m.moe->expert_intermediate};
  }
  if (m.moe && m.moe->shared_experts > 0) {
    const std::uint64_t width = m.moe->shared_expert_intermediate > 0 ? m.moe->shared_expert_intermediate
                                                                      : m.moe->expert_intermediate;
    inputs[n++] = {WeightPart::shared_experts, "shared experts' intermediate width", m.moe->shared_experts * width};
  }
  const std::uint64_t o_input = m.num_attention_heads * (m.mla ? m.mla->v_head_dim : m.head_dim);
  if (o_input > 0) {
    inputs[n++] = {WeightPart::attention, "attention output's input (heads x head_dim)", o_input};
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t group = input_group(m, formats, inputs[i].part);
    if (group > 0 && (inputs[i].width % l.tp != 0 || (inputs[i].width / l.tp) % group != 0)) {
      return std::pair{inputs[i], group};
    }
  }
  return std::nullopt;
}

}  // namespace

// vLLM refuses such a share when it creates the weights: GPTQ and AWQ "The input size is not
// aligned with the quantized weight shape. This can be caused by too large tensor parallel size."
// (vllm/model_executor/layers/quantization/gptq.py and awq.py create_weights; the Marlin kernels'
// verify_marlin_supports_shape: "input_size_per_partition ... is not divisible by group_size"),
// FP8 blocks validate_fp8_block_shape (quantization/utils/fp8_utils.py: "input_size_per_partition
// ... is not divisible by weight quantization block_k"); SGLang's copies of both say the same.
// Reported on Qwen2.5-VL-72B-AWQ at TP 8 (vllm-project/vllm#13980).
std::optional<std::string> quantized_shard_problem(const Layout& layout, const ModelSpec& model,
                                                   const WeightFormats& formats) {
  if (layout.tp <= 1 || !model.has_architecture()) {
    return std::nullopt;
  }
  const auto bad = unaligned_input(layout, model, formats);
  if (!bad) {
    return std::nullopt;
  }
  const auto& [input, group] = *bad;
  std::string fine;
  constexpr std::uint64_t kLargestListed = 64;
  for (std::uint64_t tp = 1; tp <= kLargestListed; ++tp) {
    Layout other = layout;
    other.tp = tp;
    if (!layout_problem(other, model) && !unaligned_input(other, model, formats)) {
      fine += fmt::format("{}{}", fine.empty() ? "" : ", ", tp);
    }
  }
  const WeightFormat& f = formats[input.part];
  return fmt::format("layout.tp: {} splits the {} of {} into {:.6g} per GPU, not a whole number of the {}-wide {} "
                     "its {} weights ({}) are quantized in: vLLM and SGLang refuse to load that (\"The input size "
                     "is not aligned with the quantized weight shape\"){}",
                     layout.tp, input.what, input.width, static_cast<double>(input.width) / static_cast<double>(layout.tp),
                     group, f.scheme == ScaleScheme::per_block ? "blocks" : "groups", to_string(input.part),
                     to_string(f), fine.empty() ? "" : fmt::format("; TP {} keep whole groups", fine));
}

}  // namespace gpuplan
