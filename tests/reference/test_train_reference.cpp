// Published training figures `gpuplan train` must reproduce: the ZeRO paper's model-state
// memory, DeepSpeed's ZeRO-2/ZeRO-3 estimators, Korthikanti et al.'s activation memory, PEFT's
// LoRA parameter count, and the throughputs of data/train_measurements.json within the band.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/train_plan.hpp>

#include "test_support.hpp"

using namespace gpuplan;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// A GPT-3-style model (LayerNorm, 4h GeLU MLP, biases, tied embeddings) as Megatron trains it.
ModelSpec gpt(std::uint64_t hidden, std::uint64_t layers, std::uint64_t heads, std::uint64_t vocab) {
  ModelSpec m;
  m.id = "gpt";
  m.model_type = "gpt2";
  m.hidden_size = hidden;
  m.num_hidden_layers = layers;
  m.num_attention_heads = heads;
  m.num_key_value_heads = heads;
  m.head_dim = hidden / heads;
  m.intermediate_size = 4 * hidden;
  m.vocab_size = vocab;
  m.max_position_embeddings = 2048;
  m.tie_word_embeddings = true;
  m.attention_bias = true;
  m.mlp_gated = false;
  m.mlp_bias = true;
  m.layer_norm = true;
  return m;
}

using gpuplan::test::gpu;

TrainRequest data_parallel(std::uint64_t dp, Sharding s) {
  TrainRequest r;
  r.layout.dp = dp;
  r.sharding = s;
  r.seq_tokens = 1024;
  return r;
}

}  // namespace

TEST_CASE("train reference: ZeRO paper model states of a 7.5B model on 64 GPUs", "[train][reference]") {
  // Rajbhandari et al. 2020, "ZeRO", Figure 1 / section 3: Psi = 7.5B, N_d = 64, Adam mixed
  // precision (K = 12): baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB.
  const ModelSpec m = gpt(4096, 36, 32, 51200);  // Megatron's 7.5B configuration
  const double psi = 7.5e9;
  const auto per_param = [&](Sharding s) {
    const TrainMemory mem = train_memory(m, gpu("a100-sxm-80gb"), data_parallel(64, s));
    return mem.model_states() / mem.params_per_gpu;
  };
  CHECK_THAT(per_param(Sharding::none) * psi / 1e9, WithinAbs(120.0, 0.05));
  CHECK_THAT(per_param(Sharding::zero1) * psi / 1e9, WithinAbs(31.4, 0.05));
  CHECK_THAT(per_param(Sharding::zero2) * psi / 1e9, WithinAbs(16.6, 0.05));
  CHECK_THAT(per_param(Sharding::zero3) * psi / 1e9, WithinAbs(1.9, 0.05));
  // FSDP's FULL_SHARD partitions what ZeRO-3 does.
  CHECK_THAT(per_param(Sharding::fsdp), WithinRel(per_param(Sharding::zero3), 1e-12));
  // The architecture itself is the 7.5B model: within 1 % of the paper's 120 GB.
  const TrainMemory none = train_memory(m, gpu("a100-sxm-80gb"), data_parallel(64, Sharding::none));
  CHECK_THAT(none.model_states() / 1e9, WithinRel(120.0, 0.01));
}

TEST_CASE("train reference: DeepSpeed's ZeRO-2 and ZeRO-3 memory estimators", "[train][reference]") {
  // deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs and
  // stage3.py estimate_zero3_model_states_mem_needs (microsoft/DeepSpeed), GPU side:
  //   ZeRO-2, cpu_offload:        2 Psi
  //   ZeRO-2, no offload:         4 Psi + 16 Psi / N
  //   ZeRO-3, offload params:     4 L                (L: largest layer's parameters)
  //   ZeRO-3, offload optimizer:  4 L + 2 Psi / N
  //   ZeRO-3, no offload:         4 L + 18 Psi / N
  const ModelSpec m = gpt(4096, 32, 32, 50304);
  const std::uint64_t n = 16;
  const auto states = [&](Sharding s, Offload o) {
    TrainRequest r = data_parallel(n, s);
    r.offload = o;
    return train_memory(m, gpu("a100-sxm-80gb"), r);
  };
  const double psi = states(Sharding::none, Offload::none).params_per_gpu;
  const double nn = static_cast<double>(n);
  // Offloaded, both keep exactly the 16-bit parameters DeepSpeed counts.
  CHECK_THAT(states(Sharding::zero2, Offload::optimizer).model_states(), WithinRel(2.0 * psi, 1e-12));
  CHECK_THAT(states(Sharding::zero3, Offload::optimizer).model_states(), WithinRel(2.0 * psi / nn, 1e-12));
  CHECK(states(Sharding::zero3, Offload::params).model_states() <= 0.0);
  // Without offload the estimator is more conservative than the paper's accounting: its ZeRO-2
  // figure keeps full 16-bit gradients (ZeRO-1's 2 Psi + 2 Psi + 12 Psi / N) plus a 4-byte fp32
  // gradient partition; its ZeRO-3 figure counts 18 bytes per parameter where the paper counts 16.
  CHECK_THAT(4.0 * psi + 16.0 * psi / nn,
             WithinRel(states(Sharding::zero1, Offload::none).model_states() + 4.0 * psi / nn, 1e-12));
  CHECK_THAT(18.0 * psi / nn, WithinRel(states(Sharding::zero3, Offload::none).model_states() + 2.0 * psi / nn, 1e-12));
  // Both are upper bounds of ours: ours never exceeds the estimator on model states.
  CHECK(states(Sharding::zero2, Offload::none).model_states() < 4.0 * psi + 16.0 * psi / nn);
}

TEST_CASE("train reference: Korthikanti et al. activation memory per layer (GPT-3 175B)", "[train][reference]") {
  // Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
  // Table 2, per layer and micro-batch (16-bit activations, dropout, no FlashAttention):
  //   no parallelism:                  s b h (34 + 5 a s / h)
  //   tensor parallel t:               s b h (10 + 24 / t + 5 a s / (h t))
  //   tensor + sequence parallel:      s b h / t (34 + 5 a s / h)
  //   TP + SP + selective recompute:   34 s b h / t
  //   full recompute (TP + SP):        2 s b h / t
  // GPT-3 175B (their Table 3): a = 96, h = 12288, s = 2048, t = 8.
  const ModelSpec m = gpt(12288, 96, 96, 51200);
  const double s = 2048;
  const double h = 12288;
  const double a = 96;
  const double t = 8;
  TrainRequest r;
  r.seq_tokens = 2048;
  r.dropout = true;
  r.flash_attention = false;
  r.framework = gpuplan::TrainFramework::megatron;  // the paper's fused softmax: bf16 scores
  const auto per_token = [&](std::uint64_t tp, bool sp, Recompute rc) {
    TrainRequest q = r;
    q.layout.tp = tp;
    q.sequence_parallel = sp;
    q.recompute = rc;
    return layer_activation_bytes_per_token(m, q).stored;
  };
  CHECK_THAT(per_token(1, false, Recompute::none), WithinRel(h * (34 + 5 * a * s / h), 1e-12));
  CHECK_THAT(per_token(8, false, Recompute::none), WithinRel(h * (10 + 24 / t + 5 * a * s / (h * t)), 1e-12));
  CHECK_THAT(per_token(8, true, Recompute::none), WithinRel(h / t * (34 + 5 * a * s / h), 1e-12));
  CHECK_THAT(per_token(8, true, Recompute::selective), WithinRel(34 * h / t, 1e-12));
  CHECK_THAT(per_token(8, true, Recompute::full), WithinRel(2 * h / t, 1e-12));
  // Per layer: 2.87 GB without parallelism, 108 MB with TP 8 + SP + selective recompute.
  CHECK_THAT(per_token(1, false, Recompute::none) * s / 1e9, WithinRel(2.87, 0.01));
  CHECK_THAT(per_token(8, true, Recompute::selective) * s / 1e6, WithinRel(107.0, 0.01));
}

TEST_CASE("train reference: LoRA r=16 on all linear layers of Llama 3 8B", "[train][reference]") {
  // PEFT's print_trainable_parameters() for Llama-3-8B, r = 16, target_modules = q, k, v, o,
  // gate, up, down: "trainable params: 41,943,040" (widely reproduced in fine-tuning tutorials).
  CHECK_THAT(lora_adapter_params(Catalog::builtin().model("llama-3.1-8b"), 16), WithinAbs(41'943'040.0, 0.5));
}

TEST_CASE("train reference: published throughputs within the band", "[train][reference]") {
  std::ifstream in(std::string(GPUPLAN_EXAMPLES_DIR) + "/../data/train_measurements.json");
  REQUIRE(in.good());
  const auto data = nlohmann::json::parse(in);
  const TrainEfficiency e;
  std::vector<double> residuals;
  for (const auto& run : data.at("runs")) {
    INFO(run.at("id").get<std::string>());
    const ModelSpec m = run.contains("catalog_model")
                            ? Catalog::builtin().model(run.at("catalog_model").get<std::string>())
                            : gpt(run.at("model").at("hidden_size"), run.at("model").at("num_hidden_layers"),
                                  run.at("model").at("num_attention_heads"), run.at("model").at("vocab_size"));
    TrainRequest r;
    r.layout.tp = run.at("tp");
    r.layout.pp = run.at("pp");
    r.layout.cp = run.at("cp");
    r.layout.vpp = run.value("vpp", std::uint64_t{1});
    r.layout.dp = run.at("gpus").get<std::uint64_t>() / (r.layout.tp * r.layout.pp * r.layout.cp);
    r.seq_tokens = run.at("seq");
    r.global_batch_tokens = run.at("global_batch_sequences").get<std::uint64_t>() * r.seq_tokens;
    r.recompute = parse_recompute(run.at("recompute").get<std::string>(), "recompute");
    r.sharding = Sharding::zero1;  // Megatron's distributed optimizer
    const GpuSpec& g = gpu(run.at("gpu").get<std::string>());
    // The GPU matmul factor leaves the fit alone: every measured GPU is at or above its reference.
    CHECK(g.achievable_matmul_share.value_or(kTrainCalibratedMatmulShare) >= kTrainCalibratedMatmulShare);
    const TrainStep s = train_step(m, g, r, e);
    CHECK_THAT(s.matmul_factor, Catch::Matchers::WithinRel(1.0, 1e-12));
    const double estimate = run.at("measured") == "mfu" ? s.mfu : s.hfu * s.peak_flop_per_s / 1e12;
    const double residual = run.at("value").get<double>() / estimate - 1.0;
    CHECK(residual >= e.band_low);
    CHECK(residual <= e.band_high);
    residuals.push_back(residual);
  }
  // TrainEfficiency::compute is the fit: the median residual is within 2 % of zero (the band is
  // set by runs never fitted on: tests/heldout/run_train_heldout.cmake).
  std::sort(residuals.begin(), residuals.end());
  CHECK(std::abs(residuals[residuals.size() / 2]) < 0.02);
}

// NeMo 24.07's FP8 pre-training table on DGX-H100 (NVIDIA/NeMo docs/source/performance/
// performance_summary.md): Llama 3 8B (8 GPUs, CP 2, 8K), Llama 3 70B (64, TP 4 PP 4 CP 2 VP 5,
// 8K) and Llama 2 70B (64, TP 4 PP 4 VP 20, 4K) at 12,036, 1,533 and 1,707 tokens/s per GPU,
// global batch 128. FP8's GEMM share follows the measured max-achievable matmul ratio (H100 FP8
// 0.709 of peak against bf16's 0.803), not the inference fit: the median within 10 %, each within
// 25 % (at 0.73, the earlier exponent, they were -8 %, -24 % and -27 %).
TEST_CASE("train reference: NeMo's FP8 Llama runs on H100", "[train][reference]") {
  struct Run {
    const char* model;
    TrainLayout layout;
    std::uint64_t seq_tokens;
    double tokens_per_s_per_gpu;
  };
  const Run runs[] = {
      {"llama-3.1-8b", {.tp = 1, .pp = 1, .cp = 2, .ep = 1, .dp = 4, .vpp = 1}, 8192, 12036},
      {"llama-3.1-70b", {.tp = 4, .pp = 4, .cp = 2, .ep = 1, .dp = 2, .vpp = 5}, 8192, 1533},
      {"llama-2-70b", {.tp = 4, .pp = 4, .cp = 1, .ep = 1, .dp = 4, .vpp = 20}, 4096, 1707},
  };
  std::vector<double> errors;
  for (const Run& run : runs) {
    INFO(run.model);
    TrainRequest r;
    r.layout = run.layout;
    r.seq_tokens = run.seq_tokens;
    r.global_batch_tokens = 128 * run.seq_tokens;
    r.precision = TrainPrecision::fp8;
    r.sharding = Sharding::zero1;
    const TrainStep s = train_step(Catalog::builtin().model(run.model), gpu("h100-sxm"), r, TrainEfficiency{});
    const double per_gpu = s.tokens_per_step / s.step_s / static_cast<double>(run.layout.gpus());
    const double error = per_gpu / run.tokens_per_s_per_gpu - 1.0;
    CHECK(std::abs(error) < 0.25);
    errors.push_back(std::abs(error));
  }
  std::sort(errors.begin(), errors.end());
  CHECK(errors[1] < 0.10);
}
