#include <gpuplan/layout.hpp>

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
  if (!model.caches_latent() && model.num_key_value_heads % layout.tp != 0 &&
      layout.tp % model.num_key_value_heads != 0) {
    return fmt::format("layout.tp: {} neither divides nor is a multiple of the {} KV heads of '{}'",
                       layout.tp, model.num_key_value_heads, model.id);
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

}  // namespace gpuplan
