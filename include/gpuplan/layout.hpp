#pragma once
// How a deployment splits a model over GPUs: tensor (TP), pipeline (PP), expert (EP)
// parallelism and data-parallel replicas (DP). One replica spans TP x PP GPUs.

#include <cstdint>
#include <optional>
#include <string>

#include <gpuplan/model_spec.hpp>

namespace gpuplan {

/// GPUs per node when none is given: the common 8-GPU server (HGX boards, 8-card PCIe chassis).
inline constexpr std::uint64_t kDefaultGpusPerNode = 8;

struct Layout {
  std::uint64_t tp = 1;  ///< tensor-parallel degree
  std::uint64_t pp = 1;  ///< pipeline stages
  std::uint64_t ep = 1;  ///< expert-parallel degree (MoE only): experts split EP ways
  std::uint64_t dp = 1;  ///< replicas

  [[nodiscard]] std::uint64_t gpus() const { return tp * pp * dp; }
  [[nodiscard]] std::uint64_t gpus_per_replica() const { return tp * pp; }
  /// Ways the routed experts are split: EP when set, otherwise TP (each expert TP-sharded).
  [[nodiscard]] std::uint64_t expert_shards() const { return ep > tp ? ep : tp; }
  /// Data-parallel attention: the DP ranks share the experts (EP spans more than one rank), so
  /// they run as one engine (vLLM --data-parallel-size with --enable-expert-parallel, SGLang
  /// --enable-dp-attention, TensorRT-LLM enable_attention_dp), each with its own batch and KV cache.
  [[nodiscard]] bool dp_attention() const { return dp > 1 && ep > tp; }
  /// Attention-DP ranks one expert-parallel group spans (EP / TP); 0 without attention DP or
  /// when such groups do not tile the ranks.
  [[nodiscard]] std::uint64_t ranks_per_expert_group() const {
    return dp_attention() && ep % tp == 0 && dp % (ep / tp) == 0 ? ep / tp : 0;
  }
  /// Independent expert-parallel groups of attention-DP ranks (DeepSeek-V3 on 24 GPUs with EP 8:
  /// 3 engines, each with its own all-to-all); 1 without attention DP.
  [[nodiscard]] std::uint64_t expert_groups() const {
    const std::uint64_t ranks = ranks_per_expert_group();
    return ranks > 0 ? dp / ranks : 1;
  }
};

/// Checks a layout against a model: every degree >= 1, TP divides the attention heads,
/// PP at most the layers, EP divides the routed experts and the GPUs of the deployment
/// divided by PP, EP > 1 only for MoE. Throws InputError naming the `layout.*` field.
void validate_layout(const Layout& layout, const ModelSpec& model);

/// The same checks without throwing: the message validate_layout would throw, or nullopt when
/// the layout is valid (for searches that skip a layout and go on).
std::optional<std::string> layout_problem(const Layout& layout, const ModelSpec& model);

/// A group- or block-quantized checkpoint (GPTQ/AWQ group_size, FP8 weight_block_size) that this
/// TP cannot load: some row-parallel input (the MLP's or experts' intermediate width, attention's
/// heads x head_dim) splits into shares that are not whole groups, which vLLM and SGLang refuse
/// at load. Only parts served in the checkpoint's own format (a format asked of a 16-bit model
/// may be a release with padded widths). The message names the width, the share and the TP
/// degrees that keep whole groups; nullopt when every share holds whole groups.
std::optional<std::string> quantized_shard_problem(const Layout& layout, const ModelSpec& model,
                                                   const WeightFormats& formats);

/// "TP 1 PP 1 EP 4 DP 4": the degrees as the reports name them, EP only when the experts are split.
std::string layout_label(const Layout& layout);

/// "1 GPU", "8 GPUs".
std::string gpus_text(std::uint64_t gpus);

}  // namespace gpuplan
