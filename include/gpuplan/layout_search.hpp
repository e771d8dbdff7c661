#pragma once
// Which layout (TP x PP x EP x DP) a deployment of N GPUs should run. fit evaluates every layout
// the model allows and chooses the one serving the most concurrent sequences at the requested
// context; perf, cost and compare still take the smallest replica that fits.

#include <cstdint>
#include <gpuplan/gpu.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>
#include <optional>
#include <vector>

namespace gpuplan {

/// Where a layout's TP group communicates. TP stays within a node first: the scale-up domain
/// (NVLink, xGMI) or, on GPUs without one or past it, PCIe inside the node. TP across nodes is
/// evaluated only when no layout within a node fits.
enum class TpSpan { scale_up, node, across_nodes };

struct LayoutSearchOptions {
  std::uint64_t gpus = 1;           ///< GPUs of the deployment; every layout uses all of them
  std::uint64_t gpus_per_node = 8;  ///< bounds TP over PCIe and says when TP leaves a node
};

/// One evaluated layout: the figures of the layouts table.
struct LayoutOption {
  Layout layout;
  bool fits = false;
  bool weights_fit = false;
  double kv_budget_bytes = 0;                             ///< per GPU
  double shortfall_bytes = 0;                             ///< per GPU, 0 when it fits
  std::optional<std::uint64_t> max_concurrent_sequences;  ///< whole deployment, at the context
  std::optional<std::uint64_t> max_context_tokens;        ///< at the requested concurrency
  bool kv_replicated = false;                             ///< TP beyond the KV heads (or MLA latent): copies per rank
  TpSpan tp_span = TpSpan::scale_up;
  /// Pipeline stages share a node (PP > 1 and a stage smaller than a node): chosen only when
  /// no layout without it fits, as serving recipes pipeline between nodes, not inside one.
  bool pp_within_node = false;
};

/// Why the first option was chosen.
enum class LayoutChoice {
  given,           ///< the request named the layout (--tp/--pp)
  most_sequences,  ///< the fitting layout with the most concurrent sequences at the context
  none_fits,       ///< nothing fits; the closest layout (most sequences, then least shortfall)
};

struct LayoutSearch {
  FitResult chosen;                   ///< the full fit of options.front()
  std::vector<LayoutOption> options;  ///< best first (the ranking of `choice`)
  LayoutChoice choice = LayoutChoice::given;
  bool across_nodes_tried = false;  ///< TP across nodes evaluated: nothing within a node fits
};

/// Evaluates every layout of `options.gpus` GPUs: TP dividing the attention heads (and
/// dividing or multiplying the KV heads), PP up to the layers, DP filling the GPUs. For MoE
/// each TP x DP group also runs with experts spread over all of it (EP = TP x DP, vLLM's
/// --enable-expert-parallel, SGLang's DP-attention + EP); a request with EP > 1 keeps that EP.
/// Ranking: fits; layouts without pipeline stages inside a node before those with; most
/// concurrent sequences; fewer pipeline stages, fewer GPUs per replica, no EP before EP (same
/// memory), smaller TP. A MIG slice is one replica per slice.
LayoutSearch search_layouts(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                            const LayoutSearchOptions& options);

/// The request's own layout as a search of one (choice `given`).
LayoutSearch given_layout(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                          const LayoutSearchOptions& options);

/// True when the model's heads allow this TP (the rule validate_layout checks).
bool tp_allowed(const ModelSpec& model, std::uint64_t tp);
/// The same, and every TP share of a group- or block-quantized weight holds whole groups
/// (quantized_shard_problem) when served in `formats`.
bool tp_allowed(const ModelSpec& model, const WeightFormats& formats, std::uint64_t tp);
/// Largest TP within one node: the scale-up domain, or PCIe across the node's GPUs.
std::uint64_t tp_within_node(const GpuSpec& gpu, const LayoutSearchOptions& options);

/// The table figures of one fit.
LayoutOption layout_option(const FitResult& fit, const GpuSpec& gpu, const LayoutSearchOptions& options);

/// Chooses the smallest replica (TP x PP GPUs, TP preferred within the scale-up domain) that
/// fits on `gpus` GPUs and fills the rest with replicas; if none fits, returns the largest
/// layout tried (fits == false). request.layout.ep is kept. Used by perf, cost and compare.
FitResult fit_smallest_layout(const ModelSpec& model, const GpuSpec& gpu, FitRequest request, std::uint64_t gpus);

}  // namespace gpuplan
