#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/hf_layer_shapes.hpp"

namespace gpuplan::detail {
namespace {

// DeciLM's MLP width from ffn_mult: int(2 * ffn_mult * hidden / 3) rounded up to a multiple of
// 256 (vLLM vllm/model_executor/models/nemotron_nas.py @00bd1493 and TensorRT-LLM
// tensorrt_llm/_torch/models/modeling_nemotron_nas.py @0193dbd4, _ffn_mult_to_intermediate_size
// and _find_multiple). The product is taken in Python's order, in doubles, as they do.
std::uint64_t nas_ffn_width(double ffn_mult, std::uint64_t hidden) {
  constexpr std::uint64_t kMultiple = 256;
  const auto width = static_cast<std::uint64_t>(2.0 * ffn_mult * static_cast<double>(hidden) / 3.0);
  return width % kMultiple == 0 ? width : width + kMultiple - width % kMultiple;
}

/// A block part (attention or ffn) as built: left out (no_op, its norm with it), one linear layer
/// (replace_with_linear), or the part itself; no_op is checked first, as both engines do.
enum class NasPart { present, none, linear };
NasPart nas_part(ObjectReader& part) {
  if (part.boolean("no_op", false)) {
    return NasPart::none;
  }
  return part.boolean("replace_with_linear", false) ? NasPart::linear : NasPart::present;
}

}  // namespace

void read_nemotron_nas_blocks(ModelSpec& m, ObjectReader& r) {
  const Json* blocks = r.value("block_configs");
  if (blocks == nullptr || !blocks->is_array()) {
    r.fail("block_configs", "missing: model_type \"nemotron-nas\" lays out each layer in a list of "
                            "{\"attention\": {...}, \"ffn\": {...}} blocks, one a layer");
  }
  if (blocks->size() != m.num_hidden_layers) {
    r.fail("block_configs", fmt::format("{} blocks for num_hidden_layers {}: one block a layer (vLLM and "
                                        "TensorRT-LLM build layer i from block_configs[i])",
                                        blocks->size(), m.num_hidden_layers));
  }
  const std::uint64_t layers = m.num_hidden_layers;
  const std::uint64_t heads = m.num_attention_heads;
  std::vector<std::uint64_t> kv_heads(layers, 0);
  std::vector<std::uint64_t> widths(layers, 0);
  std::vector<bool> no_mixer(layers, false);
  std::vector<bool> no_mlp(layers, false);
  std::vector<bool> linear_mixer(layers, false);
  std::vector<bool> linear_mlp(layers, false);
  for (std::uint64_t i = 0; i < layers; ++i) {
    const JsonPointer at = r.pointer() / "block_configs" / i;
    ObjectReader block((*blocks)[i], r.origin(), at);
    const Json* attention_json = block.value("attention");
    const Json* ffn_json = block.value("ffn");
    if (attention_json == nullptr || ffn_json == nullptr) {
      block.fail(attention_json == nullptr ? "attention" : "ffn", "missing: each block has an attention and an ffn");
    }
    ObjectReader attention(*attention_json, r.origin(), at / "attention");
    // A skipped attention leaves input_layernorm out with it.
    const NasPart mixer = nas_part(attention);
    no_mixer[i] = mixer != NasPart::present;
    linear_mixer[i] = mixer == NasPart::linear;
    if (mixer == NasPart::present) {
      // num_key_value_heads = num_attention_heads // n_heads_in_group (vLLM DeciLMDecoderLayer,
      // TensorRT-LLM NemotronNASModel); a remainder would leave heads without a group.
      const std::uint64_t group = attention.integer("n_heads_in_group", 1, heads);
      if (heads % group != 0) {
        attention.fail("n_heads_in_group", fmt::format("{} does not divide num_attention_heads {}: the query heads "
                                                       "would not split into whole KV groups",
                                                       group, heads));
      }
      kv_heads[i] = heads / group;
      // Attention sinks, windows and sparsity change the cache or the compute; none of the
      // published checkpoints sets them, and vLLM does not read them.
      for (const char* key : {"window_length", "num_sink_tokens", "sparsify"}) {
        if (const Json* v = attention.value(key); v != nullptr) {
          attention.fail(key, fmt::format("{}: this attention variant is not modeled (the KV cache would be "
                                          "wrong); vLLM and TensorRT-LLM read no such field either",
                                          v->dump()));
        }
      }
    }
    ObjectReader ffn(*ffn_json, r.origin(), at / "ffn");
    const NasPart mlp = nas_part(ffn);
    no_mlp[i] = mlp != NasPart::present;
    linear_mlp[i] = mlp == NasPart::linear;
    if (mlp == NasPart::present) {
      // ffn_mult 0 or below would build no MLP, yet the block is not no_op; vLLM takes
      // block_config.ffn.intermediate_size where ffn_mult is absent.
      widths[i] = ffn.has("ffn_mult") || !ffn.has("intermediate_size")
                      ? nas_ffn_width(ffn.number("ffn_mult", 1000.0), m.hidden_size)
                      : ffn.integer("intermediate_size", 1, 1u << 22);
    }
    if (const Json* act = ffn.value("hidden_act"); act != nullptr && *act != "silu") {
      ffn.fail("hidden_act", fmt::format("{}: a block's own activation other than silu is not modeled", act->dump()));
    }
  }
  const auto attention_layers = std::count_if(kv_heads.begin(), kv_heads.end(), [](std::uint64_t k) { return k > 0; });
  if (attention_layers == 0) {
    r.fail("block_configs", "no block has attention (all no_op or replace_with_linear): a model without attention "
                            "is not modeled");
  }
  // The fewest KV heads stand for the model where one count is asked (TP's KV replication);
  // layer_kv_heads holds each layer's, and layers without attention hold the same count.
  std::uint64_t fewest = heads;
  for (const std::uint64_t k : kv_heads) {
    fewest = k > 0 ? std::min(fewest, k) : fewest;
  }
  m.num_key_value_heads = fewest;
  for (std::uint64_t& k : kv_heads) {
    k = k > 0 ? k : fewest;
  }
  const bool uniform_kv = std::all_of(kv_heads.begin(), kv_heads.end(), [fewest](std::uint64_t k) { return k == fewest; });
  m.layer_kv_heads = uniform_kv ? std::vector<std::uint64_t>() : kv_heads;
  // The widest MLP stands for the model where one width is asked (activation buffers).
  const std::uint64_t widest = *std::max_element(widths.begin(), widths.end());
  if (widest == 0) {
    r.fail("block_configs", "no block has an MLP of its own (all no_op or replace_with_linear): not modeled");
  }
  m.intermediate_size = widest;
  for (std::uint64_t& w : widths) {
    w = w > 0 ? w : widest;
  }
  m.layer_intermediate_size = widths;
  const auto any = [](const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) != v.end(); };
  m.layer_without_mixer = any(no_mixer) ? no_mixer : std::vector<bool>();
  m.layer_without_mlp = any(no_mlp) ? no_mlp : std::vector<bool>();
  m.layer_linear_mixer = any(linear_mixer) ? linear_mixer : std::vector<bool>();
  m.layer_linear_mlp = any(linear_mlp) ? linear_mlp : std::vector<bool>();
  m.norm_per_block = true;
}

}  // namespace gpuplan::detail
