// Helper s62 (train): autocast over fp32 weights (--master-weights autocast), the PyTorch stack's
// mixed precision without a 16-bit weight copy, and --zero-sub-group's upper bound.
//
// The measurement behind it: ATorch's Llama-2-7B FSDP runs (intelligent-machine-learning/dlrover
// atorch/examples/llama2/README.md @11bf2fbf, fsdp_llama2.py @c1346539: amp_native = torch.autocast
// around the forward, FSDP with no MixedPrecision policy, the model built in fp32 by from_config)
// peaked at 39,596 MiB (full, 8 A100s) and 33,354 MiB (LoRA r16) of max allocated at 4 x 4096 tokens
// with gradient checkpointing; the bf16 counting read 27.0 and 17.4 GiB.
#include <string>

#include <catch2/catch.hpp>

#include <gpuplan/error.hpp>
#include <gpuplan/train_memory.hpp>
#include <gpuplan/train_step.hpp>

#include "test_support.hpp"

using namespace gpuplan;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

using gpuplan::test::gpu;
using gpuplan::test::model;

// ATorch's FSDP recipe: 8 x A100-80GB, 4 x 4096 tokens per GPU, full recompute, HF's loss.
TrainRequest atorch_fsdp(TrainMethod method, MasterWeights w) {
  TrainRequest t;
  t.layout.dp = 8;
  t.sharding = Sharding::fsdp;
  t.micro_batch = 4;
  t.seq_tokens = 4096;
  t.recompute = Recompute::full;
  t.method = method;
  t.lora_rank = 16;
  t.loss = LossKernel::unfused;
  t.master_weights = w;
  return t;
}

}  // namespace

TEST_CASE("train s62: autocast keeps the residual stream fp32, doubling each checkpointed layer input",
          "[train][memory]") {
  const ModelSpec& m = model("llama-2-7b");
  const TrainMemory bf16 = train_memory(m, gpu("a100-sxm-80gb"), atorch_fsdp(TrainMethod::full, MasterWeights::fp32));
  const TrainMemory amp = train_memory(m, gpu("a100-sxm-80gb"), atorch_fsdp(TrainMethod::full, MasterWeights::autocast));
  // Full recompute stores each layer's input: 4 x 4096 tokens x 4096 x 32 layers, 2 bytes -> 4.
  const double tokens = 4.0 * 4096.0;
  CHECK_THAT(bf16.activations_per_micro_batch, WithinRel(2.0 * tokens * 4096.0 * 32.0, 1e-9));
  CHECK_THAT(amp.activations_per_micro_batch, WithinRel(4.0 * tokens * 4096.0 * 32.0, 1e-9));
}

TEST_CASE("train s62: autocast's model states are fp32 weights, gradients and moments, no master", "[train][memory]") {
  const ModelSpec& m = model("llama-2-7b");
  TrainRequest t = atorch_fsdp(TrainMethod::full, MasterWeights::autocast);
  const TrainMemory amp = train_memory(m, gpu("a100-sxm-80gb"), t);
  const double p = amp.params_per_gpu;
  CHECK_THAT(amp.parameters, WithinRel(4.0 * p / 8.0, 1e-9));
  CHECK_THAT(amp.gradients, WithinRel(4.0 * p / 8.0, 1e-9));
  CHECK_THAT(amp.master_weights, Catch::Matchers::WithinAbs(0.0, 1e-9));
  CHECK_THAT(amp.optimizer_states, WithinRel(8.0 * p / 8.0, 1e-9));
  // Mixed precision's bf16 + bf16 + fp32 master + moments is the same 16 bytes a parameter.
  const TrainMemory mixed = train_memory(m, gpu("a100-sxm-80gb"), atorch_fsdp(TrainMethod::full, MasterWeights::fp32));
  CHECK_THAT(amp.model_states(), WithinRel(mixed.model_states(), 1e-9));
  // FSDP gathers fp32 units: twice mixed precision's bf16 buckets (recomputed, so no bf16 copies held).
  CHECK_THAT(amp.buckets, WithinRel(2.0 * mixed.buckets, 1e-9));
}

TEST_CASE("train s62: autocast LoRA keeps its frozen base in fp32", "[train][memory]") {
  const ModelSpec& m = model("llama-2-7b");
  const TrainMemory amp = train_memory(m, gpu("a100-sxm-80gb"), atorch_fsdp(TrainMethod::lora, MasterWeights::autocast));
  const TrainMemory bf16 = train_memory(m, gpu("a100-sxm-80gb"), atorch_fsdp(TrainMethod::lora, MasterWeights::fp32));
  // Base 6.74 B parameters over 8 ranks: 4 bytes against 2 (the adapters are fp32 either way).
  CHECK_THAT(amp.parameters - bf16.parameters, WithinRel(2.0 * 6.738e9 / 8.0, 0.01));
}

TEST_CASE("train s62: the ATorch FSDP rows come closer to their measured peak under autocast", "[train][memory]") {
  const ModelSpec& m = model("llama-2-7b");
  // max_memory_allocated in MiB (report_memory divides by 1024^2), against the allocated peak.
  const auto ratio = [&](TrainMethod method, MasterWeights w, double mib) {
    return train_memory(m, gpu("a100-sxm-80gb"), atorch_fsdp(method, w)).allocated_peak() / (mib * 1024 * 1024);
  };
  // Full: 0.70 of the measured peak with bf16 counting, 0.86 under autocast.
  CHECK(ratio(TrainMethod::full, MasterWeights::fp32, 39596.3) < 0.75);
  CHECK(ratio(TrainMethod::full, MasterWeights::autocast, 39596.3) > 0.8);
  CHECK(ratio(TrainMethod::full, MasterWeights::autocast, 39596.3) < 1.0);
  // LoRA: 0.53 against 0.76 (the rest: transformers' shift_logits copy of that era, not counted).
  CHECK(ratio(TrainMethod::lora, MasterWeights::fp32, 33354.1) < 0.6);
  CHECK(ratio(TrainMethod::lora, MasterWeights::autocast, 33354.1) > 0.7);
  CHECK(ratio(TrainMethod::lora, MasterWeights::autocast, 33354.1) < 1.0);
}

TEST_CASE("train s62: DDP under autocast holds the cast cache's bf16 weights, FSDP with recompute does not",
          "[train][memory]") {
  const ModelSpec& m = model("llama-3.2-1b");
  TrainRequest ddp = atorch_fsdp(TrainMethod::full, MasterWeights::autocast);
  ddp.sharding = Sharding::none;
  ddp.layout.dp = 1;
  CHECK(autocast_weight_copies_held(ddp));
  TrainRequest mixed = ddp;
  mixed.master_weights = MasterWeights::fp32;
  const TrainMemory a = train_memory(m, gpu("h100-sxm"), ddp);
  const TrainMemory b = train_memory(m, gpu("h100-sxm"), mixed);
  CHECK_THAT(a.buckets - b.buckets, WithinRel(2.0 * a.params_per_gpu, 1e-9));
  CHECK_FALSE(autocast_weight_copies_held(atorch_fsdp(TrainMethod::full, MasterWeights::autocast)));
  TrainRequest no_recompute = atorch_fsdp(TrainMethod::lora, MasterWeights::autocast);
  no_recompute.recompute = Recompute::none;
  CHECK(autocast_weight_copies_held(no_recompute));
  CHECK_FALSE(autocast_weight_copies_held(atorch_fsdp(TrainMethod::lora, MasterWeights::autocast)));
}

TEST_CASE("train s62: autocast reduces fp32 gradients and gathers fp32 units", "[train][step]") {
  const ModelSpec& m = model("llama-2-7b");
  TrainRequest amp = atorch_fsdp(TrainMethod::full, MasterWeights::autocast);
  amp.layout.dp = 64;
  TrainRequest mixed = amp;
  mixed.master_weights = MasterWeights::fp32;
  const TrainEfficiency e;
  const TrainStep a = train_step(m, gpu("a100-sxm-80gb"), amp, e);
  const TrainStep b = train_step(m, gpu("a100-sxm-80gb"), mixed, e);
  // Every byte moved doubles: ring time is bytes over bandwidth plus the same latencies.
  CHECK(a.dp_comm_s > 1.9 * b.dp_comm_s);
  CHECK(a.dp_comm_s < 2.0 * b.dp_comm_s + 1e-12);
}

TEST_CASE("train s62: autocast is refused where its stack does not run", "[train][validate]") {
  const ModelSpec& m = model("llama-2-7b");
  const GpuSpec& g = gpu("a100-sxm-80gb");
  const auto refused = [&](TrainRequest t, const std::string& says) {
    CHECK_THROWS_WITH(train_memory(m, g, t), Contains("train.master_weights: autocast") && Contains(says));
  };
  TrainRequest t = atorch_fsdp(TrainMethod::full, MasterWeights::autocast);
  t.sharding = Sharding::zero3;
  refused(t, "DeepSpeed");
  t = atorch_fsdp(TrainMethod::full, MasterWeights::autocast);
  t.framework = TrainFramework::megatron;
  t.sharding = Sharding::none;
  refused(t, "Megatron");
  t = atorch_fsdp(TrainMethod::qlora, MasterWeights::autocast);
  refused(t, "QLoRA");
  t = atorch_fsdp(TrainMethod::full, MasterWeights::autocast);
  t.precision = TrainPrecision::fp8;
  CHECK_THROWS_WITH(train_memory(m, gpu("h100-sxm"), t), Contains("train.master_weights: autocast") && Contains("fp8"));
  t = atorch_fsdp(TrainMethod::full, MasterWeights::autocast);
  t.offload = Offload::params;
  refused(t, "offload");
  CHECK(parse_master_weights("autocast", "--master-weights") == MasterWeights::autocast);
  CHECK(to_string(MasterWeights::autocast) == "autocast");
}

TEST_CASE("train s62: --zero-sub-group takes its advertised 1e15 and names the range otherwise", "[train][validate]") {
  const ModelSpec& m = model("llama-2-7b");
  TrainRequest t;
  t.layout.dp = 8;
  t.sharding = Sharding::zero3;
  t.zero_sub_group_params = 1e15;
  CHECK_NOTHROW(train_memory(m, gpu("h100-sxm"), t));
  t.zero_sub_group_params = 2e15;
  CHECK_THROWS_WITH(train_memory(m, gpu("h100-sxm"), t), Contains("from 1 to 1e15") && Contains("2e+15"));
}
