// Mamba2 hybrids (Nemotron-H, Granite-4.0-H, Falcon-H1): the Mamba2 mixers' weights, their fixed state per
// sequence and the attention layers' KV only. They were refused (helper s53 configs F1) though
// vLLM serves them. Expected figures: hand counts from the configs (tests/fixtures/hf), which the
// publishers' totals confirm within 1 % (tests/reference/test_hf_configs.cpp).
#include <catch2/catch.hpp>

#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/perf.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

gpuplan::ModelSpec hf(const std::string& name) {
  return gpuplan::model_from_hf_config_file(gpuplan::test::fixture(("hf/" + name + "/config.json").c_str()));
}

// One Mamba2 mixer: in_proj to z, x, B, C and dt; conv1d with bias; dt_bias, A_log, D; the gated
// norm; out_proj.
double mamba2(double hidden, double heads, double head_dim, double groups, double state, double kernel) {
  const double inner = heads * head_dim;
  const double conv = inner + 2 * groups * state;
  return hidden * (inner + conv + heads) + conv * kernel + conv + 3 * heads + inner + inner * hidden;
}

}  // namespace

TEST_CASE("hf import: Nemotron-Nano-9B-v2 (Mamba2, MLP and attention blocks)", "[hf][hybrid]") {
  const auto m = hf("nvidia-nemotron-nano-9b-v2");
  // 27 M, 25 -, 4 * blocks, one norm each; relu^2 MLP without a gate; untied head.
  const double expected = 2 * 131072.0 * 4480 + 27 * mamba2(4480, 128, 80, 8, 128, 4) +
                          4 * (2 * 4480.0 * 40 * 128 + 2 * 4480.0 * 8 * 128) + 25 * (2 * 4480.0 * 15680) +
                          57 * 4480.0;
  CHECK(gpuplan::count_params(m).total() == Approx(expected).epsilon(1e-12));
  CHECK(expected == Approx(8888227328.0).epsilon(1e-12));
  // KV on the 4 attention blocks only.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(4 * 2 * 8 * 128 * 2.0));
  // vLLM's NemotronH config hook keeps the SSM state in float32 when the file says nothing; the
  // convolution window in bf16: 27 x (128 x 80 x 128 x 4 + 3 x (10240 + 2 x 8 x 128) x 2).
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) == Approx(143548416.0));
}

TEST_CASE("hf import: Nemotron-3 Nano 30B-A3B (Mamba2, MoE and attention blocks)", "[hf][hybrid]") {
  const auto m = hf("nemotron-3-nano-30b-a3b");
  REQUIRE(m.moe);
  CHECK(m.moe_layer_count() == 23);
  const auto p = gpuplan::count_params(m);
  // 128 relu^2 experts of 1856, a shared one of 3712, a router with its correction bias.
  const double moe_layer = 128 * 2 * 2688.0 * 1856 + 2 * 2688.0 * 3712 + 128 * 2688.0 + 128;
  const double expected = 2 * 131072.0 * 2688 + 23 * mamba2(2688, 64, 64, 8, 128, 4) +
                          6 * (2 * 2688.0 * 32 * 128 + 2 * 2688.0 * 2 * 128) + 23 * moe_layer + 53 * 2688.0;
  CHECK(p.total() == Approx(expected).epsilon(1e-12));
  CHECK(p.total() == Approx(31.6e9).epsilon(0.01));  // NVIDIA's card: 31.6B total
  CHECK(p.active() == Approx(3.58e9).epsilon(0.01)); // card: 3.6B active with the embeddings
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) == Approx(23.0 * (64 * 64 * 128 * 4 + 3 * (4096 + 2048) * 2)));
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(6 * 2 * 2 * 128 * 2.0));
  // 63 GB of bf16 weights: on one 80 GB H100, not on a 24 GB L4.
  const auto& catalog = gpuplan::Catalog::builtin();
  CHECK(gpuplan::fit(m, catalog.gpu("h100-sxm"), gpuplan::FitRequest{}).fits);
  CHECK_FALSE(gpuplan::fit(m, catalog.gpu("l4"), gpuplan::FitRequest{}).fits);
  // The state is a fixed part of every sequence, per GPU.
  const auto fit = gpuplan::fit(m, catalog.gpu("h100-sxm"), gpuplan::FitRequest{});
  CHECK(fit.kv.state_bytes_per_sequence == Approx(gpuplan::linear_state_bytes_per_sequence(m)));
  CHECK(fit.kv.linear_layers == 23);
  CHECK(fit.kv.windows.size() == 6);
}

TEST_CASE("hf import: Granite-4.0-H-Small (Mamba2 and attention layers, each with MoE)", "[hf][hybrid]") {
  const auto m = hf("granite-4.0-h-small");
  const auto p = gpuplan::count_params(m);
  // 72 gated experts of 768 (10 a token), a shared MLP of 1536, router; two norms a layer; tied.
  const double moe_layer = 72 * 3 * 4096.0 * 768 + 3 * 4096.0 * 1536 + 72 * 4096.0;
  const double expected = 100352.0 * 4096 + 36 * mamba2(4096, 128, 64, 1, 128, 4) +
                          4 * (2 * 4096.0 * 32 * 128 + 2 * 4096.0 * 8 * 128) + 40 * moe_layer + 81 * 4096.0;
  CHECK(p.total() == Approx(expected).epsilon(1e-12));
  CHECK(p.total() == Approx(32.2e9).epsilon(0.01));
  CHECK(p.active() == Approx(8.80e9).epsilon(0.01));  // card: 9B active
  // vLLM keeps GraniteMoeHybrid's SSM state in the model dtype (bf16).
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) == Approx(36.0 * (128 * 64 * 128 * 2 + 3 * (8192 + 256) * 2)));
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(4 * 2 * 8 * 128 * 2.0));
}

TEST_CASE("hf import: Mamba2 hybrid fields are checked", "[hf][hybrid]") {
  const std::string base = R"({"model_type": "nemotron_h", "hidden_size": 1024, "num_hidden_layers": 4,
      "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 4096, "vocab_size": 32000,
      "max_position_embeddings": 4096, "mamba_num_heads": 32, "mamba_head_dim": 64, "ssm_state_size": 128,
      "n_groups": 8, "conv_kernel": 4, )";
  CHECK_NOTHROW(gpuplan::model_from_hf_config(base + R"("hybrid_override_pattern": "M-*-"})", "config.json"));
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(base + R"("hybrid_override_pattern": "M-*"})", "config.json"),
                    Contains("/hybrid_override_pattern: expected 4 letters"));
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(base + R"("hybrid_override_pattern": "M-*E"})", "config.json"),
                    Contains("n_routed_experts is missing"));
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(base + R"("hybrid_override_pattern": "M-*-",
      "mamba_ssm_cache_dtype": "fp8"})", "config.json"),
                    Contains("/mamba_ssm_cache_dtype"));
  // Falcon-H1 with attention on some layers only is not read.
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(
                        R"({"model_type": "falcon_h1", "hidden_size": 1024, "num_hidden_layers": 4,
      "num_attention_heads": 8, "intermediate_size": 4096, "vocab_size": 32000, "max_position_embeddings": 4096,
      "mamba_d_ssm": 2048, "mamba_d_state": 128, "mamba_n_heads": 32, "mamba_d_head": 64,
      "attn_layer_indices": [1, 3]})", "config.json"),
                    Contains("/attn_layer_indices"));
}

TEST_CASE("hf import: Falcon-H1-7B (attention and Mamba2 side by side in every layer)", "[hf][hybrid]") {
  const auto m = hf("falcon-h1-7b-base");
  CHECK(m.state_beside_attention);
  // No gated norm (mamba_rms_norm false), no out_proj bias; a gated MLP of 12288; two norms a layer.
  const double mixer = mamba2(3072, 24, 128, 1, 256, 4) - 3072;
  const double layer = mixer + 2 * 3072.0 * 12 * 128 + 2 * 3072.0 * 2 * 128 + 3 * 3072.0 * 12288 + 2 * 3072.0;
  const double expected = 2 * 130048.0 * 3072 + 44 * layer + 3072;
  CHECK(gpuplan::count_params(m).total() == Approx(expected).epsilon(1e-12));
  CHECK(expected == Approx(7.59e9).epsilon(0.01));  // HF model page: 7.59B
  // Every layer attends (KV on all 44) and keeps a state (model dtype, bf16).
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(44 * 2 * 2 * 128 * 2.0));
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) == Approx(44.0 * (24 * 128 * 256 * 2 + 3 * (3072 + 512) * 2)));
  const auto fit = gpuplan::fit(m, gpuplan::Catalog::builtin().gpu("h100-sxm"), gpuplan::FitRequest{});
  CHECK(fit.fits);
  CHECK(fit.kv.windows.size() == 44);
  CHECK(fit.kv.linear_layers == 44);
}

TEST_CASE("hf import: Jamba 1.5 Mini (Mamba1 and attention layers, MoE every other layer)", "[hf][hybrid]") {
  const auto m = hf("jamba-1.5-mini");
  REQUIRE(m.linear_attention);
  CHECK(m.moe_layer_count() == 16);
  // JambaMambaMixer, intermediate 8192, d_state 16, dt_rank 256: in_proj, conv1d with bias, x_proj,
  // dt_proj with bias, A_log, D, out_proj, RMSNorms on dt, B and C.
  const double inner = 8192;
  const double mixer = 4096 * 2 * inner + inner * 4 + inner + inner * (256 + 32) + 256 * inner + inner + inner * 16 +
                       inner + inner * 4096 + 256 + 32;
  const double attention = 2 * 4096.0 * 4096 + 2 * 4096.0 * 1024;
  const double moe = 16 * 3 * 4096.0 * 14336 + 16 * 4096.0;
  const double expected = 2 * 65536.0 * 4096 + 4 * attention + 28 * mixer + 16 * moe + 16 * 3 * 4096.0 * 14336 +
                          65 * 4096.0;
  const auto p = gpuplan::count_params(m);
  CHECK(p.total() == Approx(expected).epsilon(1e-12));
  CHECK(p.total() == Approx(51.6e9).epsilon(0.01));
  CHECK(p.active() == Approx(12.1e9).epsilon(0.01));  // card: 12B active
  // Attention on layers 4, 12, 20, 28; the Mamba layers keep 8192 x 16 and 3 x 8192 in bf16.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(4 * 2 * 8 * 128 * 2.0));
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) == Approx(28 * (8192 * 16 * 2 + 3 * 8192 * 2.0)));
  CHECK_FALSE(gpuplan::fit(m, gpuplan::Catalog::builtin().gpu("h100-sxm"), gpuplan::FitRequest{}).fits);  // 103 GB
}

TEST_CASE("perf: a decode step reads and writes every sequence's recurrent state", "[hf][hybrid][perf]") {
  const auto m = hf("nvidia-nemotron-nano-9b-v2");
  // The same model with its SSM state in bf16 instead of float32: 27 x 128 x 80 x 128 x 2 bytes
  // less a sequence, read and written back each step.
  gpuplan::ModelSpec half = m;
  half.linear_attention->ssm_state_element_bytes = 2.0;
  const double saved = 27.0 * 128 * 80 * 128 * 2;
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) - gpuplan::linear_state_bytes_per_sequence(half) == Approx(saved));
  const auto& h100 = gpuplan::Catalog::builtin().gpu("h100-sxm");
  const gpuplan::PerfRequest r;
  const auto bytes = [&](const gpuplan::ModelSpec& spec) {
    return gpuplan::PerfModel(spec, h100, r).decode_step(64, 2048, gpuplan::Efficiency{}).bytes;
  };
  CHECK(bytes(m) - bytes(half) == Approx(64 * 2 * saved));
}
