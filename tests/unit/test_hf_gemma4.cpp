// Gemma 4 (31B, 26B-A4B, E2B, E4B): per-layer head widths and KV heads, keys reused as values,
// layers sharing an earlier layer's KV, double-wide MLPs, per-layer input embeddings, an MoE
// block beside the dense MLP and the audio conformer, counted against the checkpoints and the
// model card. Fixture sources: tests/fixtures/hf-s59-sources.md.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/perf.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

gpuplan::ModelSpec gemma4(const char* name) {
  return gpuplan::model_from_hf_config_file(gpuplan::test::fixture(name));
}

// Within `share` of `expected`.
bool near(double value, double expected, double share) { return std::abs(value / expected - 1.0) <= share; }

}  // namespace

TEST_CASE("gemma4: the 31B's count is the model card's, its KV the layer list's", "[hf][gemma4]") {
  const gpuplan::ModelSpec m = gemma4("hf-gemma-4-31b-it.json");
  const gpuplan::ParamCount c = gpuplan::count_params(m);
  // Google's 30.7B is the language model; the vision tower (0.55B) is beside it.
  CHECK(near(c.total() - c.vision, 30.7e9, 0.01));
  CHECK(c.vision > 0.5e9);
  CHECK(c.vision < 0.6e9);
  // Before: refused at /text_config/global_head_dim. Read as Gemma 3 (every layer 16 KV heads of
  // 256, a V projection everywhere) the language model would be 30.1B and the KV 983,040 bytes.
  // By hand: 50 sliding layers of 16 KV heads x 256, 10 full ones of 4 x 512 (K and V, bf16).
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(50.0 * 2 * 16 * 256 * 2 + 10.0 * 2 * 4 * 512 * 2));
  // TP 8: two sliding heads a GPU; the four global heads are one a GPU, replicated.
  const gpuplan::KvShape shape = gpuplan::kv_shape(m, gpuplan::DType::bf16, gpuplan::Layout{.tp = 8});
  REQUIRE(shape.layer_bytes.size() == 60);
  CHECK(shape.layer_bytes[0] == Approx(2.0 * 2 * 256 * 2));
  CHECK(shape.layer_bytes[5] == Approx(2.0 * 1 * 512 * 2));
  CHECK(shape.replicated);
  // 4,096 tokens: sliding layers hold their 1,024-token window, full ones all of it.
  CHECK(gpuplan::sequence_kv_bytes(shape, 4096, 16) == Approx(50.0 * 1024 * 2048 + 10.0 * 4096 * 2048));
}

TEST_CASE("gemma4: the 26B-A4B's total and active counts are the model card's", "[hf][gemma4]") {
  const gpuplan::ModelSpec m = gemma4("hf-s59-gemma-4-26b-a4b-it.json");
  REQUIRE(m.moe);
  CHECK(m.moe->beside_dense_mlp);
  CHECK(m.moe->experts_per_token == 8);  // top_k_experts
  const gpuplan::ParamCount c = gpuplan::count_params(m);
  // Model card: 25.2B total, 3.8B active (with the token table). The dense MLP beside the experts
  // is in both; read as a plain MoE (no dense MLP on MoE layers) it was 24.7B and 3.29B.
  CHECK(near(c.total(), 25.2e9, 0.01));
  CHECK(near(c.active(), 3.8e9, 0.01));
  CHECK(c.dense_mlp > 0.5e9);
  // 25 sliding layers of 8 KV heads x 256, 5 full ones of 2 x 512.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(25.0 * 2 * 8 * 256 * 2 + 5.0 * 2 * 2 * 512 * 2));
}

TEST_CASE("gemma4: E2B and E4B match their checkpoints, the KV-sharing layers hold no cache", "[hf][gemma4]") {
  const gpuplan::ModelSpec e2b = gemma4("hf-s59-gemma-4-e2b-it.json");
  const gpuplan::ParamCount c2 = gpuplan::count_params(e2b);
  // model.safetensors: 10,246,621,918 bytes in bf16 (the language model, vision and audio).
  CHECK(near(c2.total(), 10'246'621'918.0 / 2, 0.01));
  // "2.3B effective": without the per-layer embedding table (35 x 256 wide, 262,144 rows) nor the encoders.
  CHECK(near(c2.total() - c2.vision - 262'144.0 * 35 * 256, 2.3e9, 0.01));
  // 15 layers keep KV (12 sliding, 3 full; K and V separate: no attention_k_eq_v), 1 KV head each.
  CHECK(gpuplan::kv_bytes_per_token(e2b, gpuplan::DType::bf16) == Approx(12.0 * 2 * 256 * 2 + 3.0 * 2 * 512 * 2));
  CHECK(gpuplan::kv_shape(e2b, gpuplan::DType::bf16, gpuplan::Layout{}).layers_per_gpu() == 15);
  REQUIRE(e2b.audio);
  CHECK(e2b.audio->conformer);

  const gpuplan::ModelSpec e4b = gemma4("hf-s59-gemma-4-e4b-it.json");
  const gpuplan::ParamCount c4 = gpuplan::count_params(e4b);
  // model.safetensors: 15,992,595,884 bytes in bf16.
  CHECK(near(c4.total(), 15'992'595'884.0 / 2, 0.01));
  // 24 layers keep KV: 20 sliding and 4 full, 2 KV heads each.
  CHECK(gpuplan::kv_bytes_per_token(e4b, gpuplan::DType::bf16) == Approx(20.0 * 2 * 2 * 256 * 2 + 4.0 * 2 * 2 * 512 * 2));
}

TEST_CASE("gemma4: what cannot be laid out is refused by name", "[hf][gemma4]") {
  const std::string text = R"({"model_type": "gemma4_text", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
      "global_head_dim": 32, "vocab_size": 100, "max_position_embeddings": 64, "sliding_window": 8,
      "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"], )";
  // The last layer is the only full one: sharing KV from the first layer on, it has no earlier one.
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(text + R"("num_kv_shared_layers": 1})", "config.json"),
                    Contains("/num_kv_shared_layers: layer 3 (full attention)"));
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(text + R"("enable_moe_block": true})", "config.json"),
                    Contains("/num_experts: missing or at most 1, while enable_moe_block is true"));
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(text + R"("attention_k_eq_v": true, "num_global_key_value_heads": 3})",
                                                  "config.json"),
                    Contains("/num_global_key_value_heads: 3 does not divide num_attention_heads 4"));
  // Gemma 3n's AltUp and LAuReL blocks are still not modeled.
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(text + R"("altup_num_inputs": 4})", "config.json"),
                    Contains("/altup_num_inputs") && Contains("not modeled"));
  // Switched off, the fields change nothing.
  const gpuplan::ModelSpec plain = gpuplan::model_from_hf_config(
      text + R"("num_kv_shared_layers": 0, "hidden_size_per_layer_input": 0, "enable_moe_block": false})", "config.json");
  CHECK(plain.layer_reuses_kv.empty());
  CHECK(plain.per_layer_input_width == 0);
  CHECK_FALSE(plain.moe);
}

// Decode past the sliding window grows only the full-attention layers' reads: at their own width
// and KV heads (4 x 512 on the 31B, 1 x 512 on E2B), not the mean layer's, and on E2B also in
// the four full layers that attend over an earlier layer's cache.
TEST_CASE("gemma4: decode reads each layer's own KV, shared layers included", "[hf][gemma4][perf]") {
  const auto step = [](const gpuplan::ModelSpec& m, std::uint64_t tp, double context) {
    gpuplan::PerfRequest r;
    r.fit.layout = gpuplan::Layout{.tp = tp};
    r.fit.weights_dtype = gpuplan::DType::bf16;
    r.input_tokens = 1024;
    r.output_tokens = 256;
    return gpuplan::PerfModel(m, gpuplan::test::cat().gpu("h200-sxm"), r).decode_step(1, context, gpuplan::Efficiency{});
  };
  const gpuplan::ModelSpec big = gemma4("hf-gemma-4-31b-it.json");
  const double more = 40000;  // both contexts past the 1,024-token window
  // TP 1: 10 full layers x 4 KV heads x 512 x (K, V) x 2 bytes = 81,920 bytes a context token.
  CHECK(step(big, 1, 80000).bytes - step(big, 1, 40000).bytes == Approx(more * 10 * 4 * 512 * 2 * 2));
  // Attention FLOPs: 10 layers x 32 heads x 512 x 4 (QK^T and AV, 2 each).
  CHECK(step(big, 1, 80000).flop - step(big, 1, 40000).flop == Approx(more * 10 * 32 * 512 * 4));
  // TP 8: one of the 4 KV heads a GPU (8 is past 4: replicated).
  CHECK(step(big, 8, 80000).bytes - step(big, 8, 40000).bytes == Approx(more * 10 * 1 * 512 * 2 * 2));
  // E2B: full layers 4, 9, 14 cache; 19, 24, 29, 34 read layer 14's cache (num_kv_shared_layers 20).
  const gpuplan::ModelSpec e2b = gemma4("hf-s59-gemma-4-e2b-it.json");
  CHECK(step(e2b, 1, 80000).bytes - step(e2b, 1, 40000).bytes == Approx(more * 7 * 1 * 512 * 2 * 2));
  CHECK(step(e2b, 1, 80000).flop - step(e2b, 1, 40000).flop == Approx(more * 7 * 8 * 512 * 4));
}

// TP 8 replicates only the full layers' 4 KV heads; the sliding layers' 16 split two a GPU.
TEST_CASE("gemma4: the TP replication note names the layers whose KV heads TP exceeds", "[hf][gemma4]") {
  const gpuplan::ModelSpec m = gemma4("hf-gemma-4-31b-it.json");
  gpuplan::FitRequest r;
  r.layout = gpuplan::Layout{.tp = 8};
  const gpuplan::FitResult res = gpuplan::fit(m, gpuplan::test::cat().gpu("h100-sxm"), r);
  CHECK(res.kv.replicated);
  const auto note = std::find_if(res.notes.begin(), res.notes.end(),
                                 [](const std::string& n) { return n.find("KV heads") != std::string::npos; });
  REQUIRE(note != res.notes.end());
  CHECK_THAT(*note, Contains("exceeds the 4 KV heads of 10 of the 60 layers that cache KV"));
  r.layout = gpuplan::Layout{.tp = 4};
  CHECK_FALSE(gpuplan::fit(m, gpuplan::test::cat().gpu("h100-sxm"), r).kv.replicated);
}
