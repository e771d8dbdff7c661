// Training memory, step time and plan: behaviour that could be false.
#include <algorithm>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/comm.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/gemm_fill.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/train_plan.hpp>

#include "test_support.hpp"

using namespace gpuplan;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

using gpuplan::test::model;
using gpuplan::test::gpu;

TrainRequest fsdp16() {
  TrainRequest r;
  r.layout.dp = 16;
  r.sharding = Sharding::fsdp;
  r.seq_tokens = 8192;
  return r;
}

// FSDP over `dp` ranks with full recompute (the published single-node and multi-node runs below).
TrainRequest fsdp_recompute(std::uint64_t dp, std::uint64_t micro_batch, std::uint64_t seq_tokens) {
  TrainRequest r;
  r.layout.dp = dp;
  r.sharding = Sharding::fsdp;
  r.micro_batch = micro_batch;
  r.seq_tokens = seq_tokens;
  r.recompute = Recompute::full;
  return r;
}

// Unsloth's benchmark setup: QLoRA rank 32, batch 1, gradient checkpointing.
TrainRequest qlora32(std::uint64_t seq_tokens) {
  TrainRequest r;
  r.method = TrainMethod::qlora;
  r.lora_rank = 32;
  r.recompute = Recompute::full;
  r.seq_tokens = seq_tokens;
  return r;
}

}  // namespace

TEST_CASE("train: sharding stages only ever shrink model states", "[train]") {
  TrainRequest r = fsdp16();
  double last = 1e300;
  for (Sharding s : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3}) {
    r.sharding = s;
    const double states = train_memory(model("llama-3.1-70b"), gpu("h100-sxm"), r).model_states();
    CHECK(states < last);
    last = states;
  }
}

TEST_CASE("train: recompute policies order activation memory", "[train]") {
  TrainRequest r = fsdp16();
  r.flash_attention = false;
  const auto act = [&](Recompute p) {
    r.recompute = p;
    return train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r).activations;
  };
  CHECK(act(Recompute::full) < act(Recompute::selective));
  CHECK(act(Recompute::selective) < act(Recompute::none));
  CHECK(act(Recompute::full) < act(Recompute::selective_op));
  CHECK(act(Recompute::selective_op) < act(Recompute::selective));
}

// torchtitan's Llama 3.1 8B on 8 H100s (benchmarks/llama3_h100_202412_torchtitan.md, Table 1): FSDP,
// local batch 2 x 8192, op-level SAC, ran at 82.4 GiB reserved on 96 GB GPUs; Megatron's selective
// scheme counts 115 GiB for it.
TEST_CASE("train: torchtitan's op-level SAC saves every other matmul output and the attention op's", "[train]") {
  TrainRequest r;
  r.layout.dp = 8;
  r.sharding = Sharding::fsdp;
  r.micro_batch = 2;
  r.seq_tokens = 8192;
  r.loss = LossKernel::unfused;
  r.recompute = Recompute::selective_op;
  const ModelSpec& m = model("llama-3.1-8b");
  // Input h, Q 4096, V 1024, attention output 4096, SwiGLU's gate 14336, down h: bf16; fp32 LSE per head.
  const double per_token = 2.0 * (4096 + 4096 + 1024 + 4096 + 14336 + 4096) + 4.0 * 32;
  CHECK_THAT(layer_activation_bytes_per_token(m, r).stored, WithinRel(per_token, 1e-12));
  CHECK(parse_recompute("selective-op", "--recompute") == Recompute::selective_op);
  CHECK(to_string(Recompute::selective_op) == "selective-op");
  const TrainMemory op = train_memory(m, gpu("h100-sxm"), r);
  CHECK(op.total() / units::kGiB > 70.0);
  CHECK(op.total() / units::kGiB < 82.4);
  r.recompute = Recompute::selective;
  CHECK(train_memory(m, gpu("h100-sxm"), r).total() / units::kGiB > 100.0);
  // K, the output projection and SwiGLU's up are recomputed: 2 x (h x 1024 + 4096 x h + h x 14336) a layer.
  r.recompute = Recompute::selective_op;
  const TrainFlops f = train_flops(m, r);
  CHECK_THAT(f.hardware_flop_per_token - f.model_flop_per_token,
             WithinRel(32 * 2.0 * 4096.0 * (1024 + 4096 + 14336), 1e-12));
}

TEST_CASE("train: a 70B full fine-tune at 8K on 16 GPUs with FSDP and full recompute fits an H200, not an H100",
          "[train]") {
  // Model states alone are 16 B x 70.6B / 16 = 70.6 GB per GPU: an H100's 85 GB leaves too little
  // for 8K tokens' activations, logits and gathered layers.
  TrainRequest r = fsdp16();
  r.recompute = Recompute::full;
  const TrainMemory h100 = train_memory(model("llama-3.1-70b"), gpu("h100-sxm"), r);
  CHECK_THAT(h100.model_states() / 1e9, WithinRel(70.6, 0.01));
  CHECK_FALSE(h100.fits);
  CHECK(h100.shortfall_bytes > 0);
  CHECK(h100.free_bytes <= 0.0);
  CHECK(train_memory(model("llama-3.1-70b"), gpu("h200-sxm"), r).fits);
  r.sharding = Sharding::zero2;
  CHECK_FALSE(train_memory(model("llama-3.1-70b"), gpu("h200-sxm"), r).fits);
}

TEST_CASE("train: the pipeline's first stage holds PP micro-batches", "[train]") {
  TrainRequest r;
  r.layout.pp = 4;
  r.global_batch_tokens = 16 * 4096;
  const TrainMemory m = train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r);
  CHECK(m.micro_batches_in_flight == 4);
  CHECK_THAT(m.activations, WithinRel(4 * m.activations_per_micro_batch, 1e-12));
}

TEST_CASE("train: interleaved 1F1B's first stage holds 1 + (p-1)/(p v) times 1F1B's activations", "[train]") {
  // Megatron-LM theoretical_memory_usage.py's interleaved_schedule_memory_penalty (s56 tasks F1):
  // Llama 3.1 70B on 64 H100s, TP 8 PP 4 VPP 5, 18,432 tokens: 12.66 GB a micro-batch x 4 in
  // flight x 1.15 = 58.2 GB; with 27.2 GB of model states and the logits it does not fit (it said
  // 3.63 GB free without the penalty).
  TrainRequest r;
  r.layout = TrainLayout{.tp = 8, .pp = 4, .dp = 2, .vpp = 5};
  r.sharding = Sharding::zero1;
  r.seq_tokens = 18432;
  r.micro_batch = 1;
  r.global_batch_tokens = 4718592;
  r.recompute = Recompute::selective;
  const TrainMemory m = train_memory(model("llama-3.1-70b"), gpu("h100-sxm"), r);
  CHECK_THAT(m.interleave_penalty, WithinRel(1.15, 1e-12));
  CHECK_THAT(m.activations_per_micro_batch / 1e9, WithinRel(12.66, 0.005));
  CHECK_THAT(m.activations / 1e9, WithinRel(58.22, 0.005));
  CHECK_FALSE(m.fits);
  r.layout.vpp = 1;
  const TrainMemory plain = train_memory(model("llama-3.1-70b"), gpu("h100-sxm"), r);
  CHECK_THAT(plain.interleave_penalty, WithinRel(1.0, 1e-12));
  CHECK(plain.fits);
  // The penalty is largest at a small VPP under a deep pipeline: PP 8, VPP 2 is 1 + 7/16.
  r.layout = TrainLayout{.tp = 8, .pp = 8, .dp = 1, .vpp = 2};
  r.global_batch_tokens = 16 * 18432;
  CHECK_THAT(train_memory(model("llama-3.1-70b"), gpu("h100-sxm"), r).interleave_penalty, WithinRel(1.4375, 1e-12));
}

// Megatron-LM puts the embedding on the first stage and the output layer and loss on the last
// (s56 train report, PP stage split): memory is the heaviest stage's, and says which.
TEST_CASE("train: a pipeline is sized on its heaviest stage, the first or the last", "[train]") {
  const ModelSpec& m = model("llama-3.2-1b");  // 16 layers, a 128,256-entry vocabulary
  TrainRequest r;
  r.layout.pp = 2;
  r.micro_batch = 8;
  r.seq_tokens = 4096;
  r.global_batch_tokens = 8 * 4096 * 2;  // two micro-batches: both in flight on the first stage
  r.loss = LossKernel::unfused;
  const TrainMemory last = train_memory(m, gpu("h100-sxm"), r);
  // The logits (14 bytes x 128,256 per token) outweigh a second micro-batch of 8 layers.
  CHECK(last.peak_stage == PipelineStage::last);
  CHECK(last.stage_layers == 8);
  CHECK(last.micro_batches_in_flight == 1);
  CHECK(last.logits > 0.0);
  r.loss = LossKernel::fused_linear;
  const TrainMemory first = train_memory(m, gpu("h100-sxm"), r);
  CHECK(first.peak_stage == PipelineStage::first);
  CHECK(first.micro_batches_in_flight == 2);
  CHECK(first.logits <= 0.0);  // the loss is on the last stage
  // The first stage holds its layers and the embedding, as Megatron's most loaded shard.
  const ParamCount pc = count_params(m);
  CHECK_THAT(first.params_per_gpu, WithinRel((pc.total() - pc.embedding - pc.lm_head) / 2.0 + pc.embedding, 0.01));
  // Without a pipeline one stage holds everything.
  r.layout.pp = 1;
  CHECK(train_memory(m, gpu("h100-sxm"), r).peak_stage == PipelineStage::only);
}

TEST_CASE("train: uneven pipeline stages (Megatron's --decoder-first/last-pipeline-num-layers)", "[train]") {
  const ModelSpec& m = model("llama-3.1-8b");  // 32 layers
  TrainLayout l{.pp = 4};
  CHECK(stage_layers(m, l).first == 8);
  l.first_stage_layers = 5;
  l.last_stage_layers = 6;
  const StageLayers s = stage_layers(m, l);
  CHECK(s.first == 5);
  CHECK(s.middle == 11);  // 21 layers over the 2 middle stages, rounded up
  CHECK(s.last == 6);
  TrainRequest r;
  r.layout = l;
  r.global_batch_tokens = 16 * 4096;
  const TrainMemory mem = train_memory(m, gpu("h100-sxm"), r);
  // Stage 2 holds 11 layers x 3 micro-batches, more than the first's 5 x 4.
  CHECK(mem.peak_stage == PipelineStage::middle);
  CHECK(mem.stage_layers == 11);
  CHECK(mem.micro_batches_in_flight == 3);
  r.layout.first_stage_layers = 30;
  CHECK_THROWS_WITH(train_memory(m, gpu("h100-sxm"), r), Contains("train.first_stage_layers"));
  r.layout = TrainLayout{.first_stage_layers = 4};
  CHECK_THROWS_WITH(train_memory(m, gpu("h100-sxm"), r), Contains("PP > 1"));
}

TEST_CASE("train: offloading moves model states to the host", "[train]") {
  TrainRequest r = fsdp16();
  const TrainMemory on = train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r);
  r.offload = Offload::optimizer;
  const TrainMemory off = train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r);
  CHECK(off.optimizer_states <= 0.0);
  CHECK(off.master_weights <= 0.0);
  // The host's gradient partition is fp32 (DeepSpeed's single_partition_of_fp32_groups[i].grad):
  // twice the GPU's bf16 one; 16 bytes a parameter in all, as estimate_zero2_model_states_mem_needs.
  CHECK_THAT(off.host_bytes, WithinRel(on.optimizer_states + on.master_weights + 2.0 * on.gradients, 1e-12));
  CHECK_THAT(off.host_bytes, WithinRel(16.0 * off.optimizer_params_per_gpu, 1e-12));
}

// torchtune's Llama 3.1 8B full fine-tune on one RTX 4090 (README: batch 2 x 2048, 8-bit paged
// AdamW, optimizer in backward, activation checkpointing, 18.9 GiB peak) trains in pure bf16.
TEST_CASE("train: pure bf16 drops the fp32 master and halves the moments", "[train]") {
  TrainRequest r;
  r.micro_batch = 2;
  r.seq_tokens = 2048;
  r.recompute = Recompute::full;
  const ModelSpec& m = model("llama-3.1-8b");
  const double params = count_params(m).total();
  REQUIRE_THAT(params, WithinRel(8.03e9, 0.001));
  // Mixed precision: 2 (bf16) + 2 (gradients) + 4 (master) + 8 (fp32 m, v) = 16 B per parameter.
  const TrainMemory mixed = train_memory(m, gpu("rtx-4090"), r);
  CHECK_THAT(mixed.model_states(), WithinRel(16.0 * params, 1e-9));
  r.master_weights = MasterWeights::none;
  // Pure bf16: 2 + 2 + no master + 4 (bf16 m, v) = 8 B per parameter.
  const TrainMemory pure = train_memory(m, gpu("rtx-4090"), r);
  CHECK(pure.master_weights <= 0.0);
  CHECK_THAT(pure.model_states(), WithinRel(8.0 * params, 1e-9));
  // 8-bit AdamW's moments are int8 either way: 2 + 2 + 2 B.
  r.optimizer = Optimizer::adamw_8bit;
  CHECK_THAT(train_memory(m, gpu("rtx-4090"), r).model_states(), WithinRel(6.0 * params, 1e-9));
  // Optimizer in backward keeps one gradient at a time, the largest: the 128,256 x 4,096 bf16
  // embedding (or LM head), 1.05 GB, instead of 16.06 GB.
  r.optimizer_in_backward = true;
  const TrainMemory in_bwd = train_memory(m, gpu("rtx-4090"), r);
  CHECK_THAT(in_bwd.gradients, WithinRel(128256.0 * 4096 * 2, 1e-12));
  CHECK_FALSE(in_bwd.fits);  // 16.06 + 16.06 + 1.05 GB of states alone exceed 24 GB
  // With the states off the GPU, the bf16 weights are what remains: 16.06 GB, and it fits, as
  // measured (torchtune's paged 8-bit optimizer, the next test). CPU offload steps an fp32 AdamW
  // (DeepSpeedCPUAdam): bitsandbytes' 8-bit AdamW has no CPU step and is refused beside it.
  r.optimizer_in_backward = false;
  r.offload = Offload::optimizer;
  CHECK_THROWS_WITH(train_memory(m, gpu("rtx-4090"), r), Contains("train.optimizer") && Contains("no CPU step"));
  r.optimizer = Optimizer::adamw;
  const TrainMemory offloaded = train_memory(m, gpu("rtx-4090"), r);
  CHECK_THAT(offloaded.model_states(), WithinRel(2.0 * params, 1e-9));
  CHECK(offloaded.fits);
}

// The same torchtune run as it is configured: PagedAdamW8bit keeps its moments in unified memory,
// so they take what the GPU has left and the driver pages the rest to the host every step.
TEST_CASE("train: a paged optimizer fits where its states do not and pays for the paging", "[train]") {
  TrainRequest r;
  r.micro_batch = 2;
  r.seq_tokens = 2048;
  r.recompute = Recompute::full;
  r.master_weights = MasterWeights::none;
  r.optimizer = Optimizer::adamw_8bit;
  r.optimizer_in_backward = true;
  r.loss = LossKernel::fused;
  const ModelSpec& m = model("llama-3.1-8b");
  const GpuSpec& g = gpu("rtx-4090");
  const TrainMemory resident = train_memory(m, g, r);
  REQUIRE_FALSE(resident.fits);
  r.offload = Offload::paged;
  const TrainMemory paged = train_memory(m, g, r);
  CHECK(paged.fits);
  // The requirement is the rest: the paged states are up to all of them, not in the total; what the
  // rest leaves is theirs and the others are on the host.
  const double rest = resident.total() - resident.optimizer_states;
  CHECK(paged.optimizer_states <= 0.0);
  CHECK_THAT(paged.total(), WithinRel(rest, 1e-12));
  CHECK_THAT(paged.paged_optimizer_states, WithinRel(resident.optimizer_states, 1e-12));
  CHECK_THAT(paged.paged_states, WithinRel(resident.optimizer_states - (paged.capacity_bytes - rest), 1e-9));
  CHECK_THAT(paged.host_bytes, WithinRel(paged.paged_states, 1e-12));
  CHECK_THAT(paged.free_bytes, WithinRel(paged.capacity_bytes - rest, 1e-9));
  // Every step walks all the states, and LRU eviction misses on each page: all of them cross the
  // host link (both directions at once).
  TrainPlanRequest req;
  req.train = r;
  const TrainPlan plan = train_plan(Catalog::builtin(), m, g, req);
  CHECK_THAT(plan.step.offload_exposed_s, WithinRel(resident.optimizer_states / (g.host_link.bytes_per_s_per_direction *
                                                                                req.efficiency.link),
                                                   1e-9));
  // bitsandbytes' 32-bit paged AdamW keeps fp32 moments even for bf16 weights: 8 bytes a parameter.
  TrainRequest adamw = r;
  adamw.optimizer = Optimizer::adamw;
  CHECK_THAT(train_memory(m, g, adamw).paged_optimizer_states, WithinRel(8.0 * count_params(m).total(), 1e-9));
  CHECK(plan.step.cpu_optimizer_s <= 0.0);
  // On a GPU with room for everything nothing is paged and nothing is paid.
  const TrainMemory roomy = train_memory(m, gpu("h100-sxm"), r);
  CHECK(roomy.paged_states <= 0.0);
  CHECK_THAT(roomy.paged_optimizer_states, WithinRel(resident.optimizer_states, 1e-12));
  CHECK_THAT(roomy.total(), WithinRel(rest, 1e-12));
  // bitsandbytes has no paged SGD.
  r.optimizer = Optimizer::sgd;
  CHECK_THROWS_WITH(train_memory(m, g, r), Contains("train.offload") && Contains("no paged SGD"));
}

// Answer.AI's FSDP-QLoRA (Llama-2-7B, 2 x RTX 4090, micro-batch 10 x 2048, 21.0 GiB measured)
// computes Transformers' unfused loss on a model it never casts to fp32.
TEST_CASE("train: QLoRA without PEFT's k-bit preparation keeps a bf16 residual stream", "[train]") {
  TrainRequest r = fsdp_recompute(2, 10, 2048);
  r.method = TrainMethod::qlora;
  const ModelSpec& m = model("llama-2-7b");
  const TrainMemory prepared = train_memory(m, gpu("rtx-4090"), r);
  CHECK_FALSE(prepared.fits);
  r.kbit_prepared = false;
  const TrainMemory plain = train_memory(m, gpu("rtx-4090"), r);
  CHECK(plain.fits);
  // The checkpointed layer inputs halve (bf16, not fp32); the unfused loss's logits stay.
  CHECK_THAT(plain.activations_per_micro_batch, WithinRel(prepared.activations_per_micro_batch / 2.0, 1e-9));
  CHECK_THAT(plain.logits, WithinRel(prepared.logits, 1e-12));
  CHECK_THAT(plain.total() / units::kGiB, WithinRel(21.0, 0.10));
  // It means nothing for a bf16 base.
  r.method = TrainMethod::lora;
  CHECK_THROWS_WITH(train_memory(m, gpu("rtx-4090"), r), Contains("train.kbit_prepared"));
}

// KempnerForge's Llama 3.1 70B on 32 H200s with pure FSDP (micro-batch 2, 4 per step) ran out of
// memory: under no_sync each rank holds the whole fp32 gradient until the last micro-batch.
TEST_CASE("train: FSDP under no_sync holds the unsharded gradients until the last micro-batch", "[train]") {
  TrainRequest r = fsdp_recompute(32, 2, 4096);
  r.global_batch_tokens = 4 * 2 * 4096 * 32;
  r.master_weights = MasterWeights::none;
  const ModelSpec& m = model("llama-3.1-70b");
  const TrainMemory each = train_memory(m, gpu("h200-sxm"), r);
  CHECK(each.fits);
  r.sync_last_micro_batch = true;
  const TrainMemory last = train_memory(m, gpu("h200-sxm"), r);
  CHECK_FALSE(last.fits);
  // Pure bf16: the unsharded gradient has the bf16 parameters' dtype (141 GB: still no fit).
  CHECK_THAT(last.gradients, WithinRel(2.0 * count_params(m).total(), 1e-9));
  // Beside an fp32 master the flat parameters, and so the accumulated gradients, are fp32.
  r.master_weights = MasterWeights::fp32;
  CHECK_THAT(train_memory(m, gpu("h200-sxm"), r).gradients, WithinRel(4.0 * count_params(m).total(), 1e-9));
  r.master_weights = MasterWeights::none;
  // One micro-batch per step has nothing to accumulate: the same as each.
  r.global_batch_tokens = 2 * 4096 * 32;
  CHECK_THAT(train_memory(m, gpu("h200-sxm"), r).gradients, WithinRel(each.gradients, 1e-12));
  // DeepSpeed reduces every micro-batch into its partitions.
  r.sharding = Sharding::zero3;
  CHECK_THROWS_WITH(train_memory(m, gpu("h200-sxm"), r), Contains("train.sync_last_micro_batch"));
}

// lit-llama's pre-training (pretrain/redpajama.py @1444d24a): the model built in bf16
// (torch.set_default_dtype(torch.bfloat16)), FSDP over 4 A100-40GB, micro-batch 5 x 2048,
// accumulation under fabric.no_backward_sync; documented to run on 4 A100 40GB
// (howto/train_redpajama.md @113c0f66). fp32 gradients made it 6.5 GB short.
TEST_CASE("train: pure-bf16 FSDP under no_sync keeps bf16 gradients (lit-llama on 4 A100-40GB fits)", "[train]") {
  TrainRequest r = fsdp_recompute(4, 5, 2048);
  r.global_batch_tokens = 245760;
  r.master_weights = MasterWeights::none;
  r.loss = LossKernel::unfused;
  r.sync_last_micro_batch = true;
  const ModelSpec& m = model("llama-2-7b");
  const TrainMemory mem = train_memory(m, gpu("a100-sxm-40gb"), r);
  CHECK_THAT(mem.gradients, WithinRel(2.0 * mem.params_per_gpu, 1e-12));
  CHECK(mem.fits);
}

TEST_CASE("train: optimizer in backward needs full training and one micro-batch per step", "[train]") {
  TrainRequest r;
  r.optimizer_in_backward = true;
  CHECK_NOTHROW(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r));
  r.global_batch_tokens = 2 * 4096;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r),
                    Contains("train.optimizer_in_backward") && Contains("2 micro-batches"));
  r.global_batch_tokens = 0;
  r.method = TrainMethod::lora;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("train.optimizer_in_backward"));
  r.method = TrainMethod::full;
  r.offload = Offload::optimizer;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("train.optimizer_in_backward"));
}

// ZeRO-3/FSDP partitions over data-parallel ranks: on one GPU it changes nothing (the audit's L2),
// so the hint names what does shrink memory there.
TEST_CASE("train: the does-not-fit hint on one GPU names what helps there", "[train]") {
  TrainPlanRequest req;
  req.train.seq_tokens = 4096;
  const TrainPlan one = train_plan(Catalog::builtin(), model("llama-3.1-8b"), gpu("a100-sxm-80gb"), req);
  REQUIRE_FALSE(one.memory.fits);
  const std::string& hint = one.notes.back();
  CHECK_THAT(hint, Contains("does not fit") && Contains("--offload optimizer") && Contains("--optimizer adamw-8bit") &&
                       Contains("--master-weights none") && Contains("--optimizer-in-backward"));
  CHECK_THAT(hint, !Contains("ZeRO-3/FSDP sharding"));
  req.train.layout.dp = 2;
  const TrainPlan two = train_plan(Catalog::builtin(), model("llama-3.1-70b"), gpu("a100-sxm-80gb"), req);
  REQUIRE_FALSE(two.memory.fits);
  CHECK_THAT(two.notes.back(), Contains("ZeRO-3/FSDP sharding"));
}

TEST_CASE("train: QLoRA holds the base in about a quarter of LoRA's bytes", "[train]") {
  TrainRequest r;
  r.method = TrainMethod::lora;
  const TrainMemory lora = train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r);
  r.method = TrainMethod::qlora;
  r.loss = LossKernel::fused;  // without PEFT's fp32 embeddings and head
  const TrainMemory qlora = train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r);
  CHECK(qlora.parameters < 0.45 * lora.parameters);
  CHECK(lora.master_weights <= 0.0);
  CHECK(lora.gradients < 0.02 * lora.parameters);  // only the adapters'
  CHECK_THAT(lora.trainable_params, WithinRel(lora.adapter_params, 1e-15));
}

TEST_CASE("train: limits are the edge of fitting", "[train]") {
  TrainRequest r = fsdp16();
  r.recompute = Recompute::full;
  const TrainLimits l = train_limits(model("llama-3.1-70b"), gpu("h200-sxm"), r);
  REQUIRE(l.max_micro_batch >= 1);
  r.micro_batch = l.max_micro_batch;
  r.global_batch_tokens = 0;
  CHECK(train_memory(model("llama-3.1-70b"), gpu("h200-sxm"), r).fits);
  r.micro_batch = l.max_micro_batch + 1;
  CHECK_FALSE(train_memory(model("llama-3.1-70b"), gpu("h200-sxm"), r).fits);
  // The H100 holds less.
  r.micro_batch = 1;
  const TrainLimits h100 = train_limits(model("llama-3.1-70b"), gpu("h100-sxm"), r);
  CHECK(h100.max_seq_tokens < l.max_seq_tokens);
  CHECK(h100.max_micro_batch == 0);
}

TEST_CASE("train: step time splits into its parts and MFU stays physical", "[train]") {
  TrainRequest r;
  r.layout = {.tp = 8, .pp = 4, .cp = 1, .ep = 1, .dp = 4, .vpp = 1};
  r.seq_tokens = 8192;
  r.global_batch_tokens = 4 * 1024 * 1024;
  const TrainStep s = train_step(model("llama-3.1-70b"), gpu("h100-sxm"), r, TrainEfficiency{});
  CHECK_THAT(s.step_s, WithinRel(s.compute_s + s.exposed_comm_s() + s.bubble_s + s.gpu_optimizer_s, 1e-12));
  CHECK(s.gpu_optimizer_s > 0);
  CHECK(s.tp_comm_s > 0);
  CHECK(s.bubble_s > 0);
  CHECK(s.mfu > 0.1);
  CHECK(s.mfu < TrainEfficiency{}.compute);
  CHECK(s.tp_link == "nvlink4");
  CHECK(s.dp_link == "network");
  // Recompute costs time, not MFU's numerator.
  r.recompute = Recompute::full;
  const TrainStep full = train_step(model("llama-3.1-70b"), gpu("h100-sxm"), r, TrainEfficiency{});
  CHECK(full.step_s > s.step_s);
  CHECK(full.hfu > full.mfu);
}

// torchtitan's Llama 3.1 405B on 512 H100s (Table 5: TP 8, PP 8, FSDP 8, 82.5 GiB): under PP its
// FSDP keeps each stage gathered and the stage's gradients unsharded until the last micro-batch.
TEST_CASE("train: FSDP under a pipeline holds the whole stage gathered", "[train]") {
  TrainRequest r;
  r.layout = {.tp = 8, .pp = 8, .cp = 1, .ep = 1, .dp = 8, .vpp = 1};
  r.sharding = Sharding::fsdp;
  r.recompute = Recompute::full;
  r.micro_batch = 4;
  r.seq_tokens = 8192;
  r.global_batch_tokens = 2097152;
  r.precision = TrainPrecision::fp8;
  r.loss = LossKernel::unfused;
  const ModelSpec& m = model("llama-3.1-405b");
  const TrainMemory pp = train_memory(m, gpu("h100-sxm"), r);
  CHECK(fsdp_stage_unsharded(r));
  CHECK_THAT(pp.buckets, WithinRel(2.0 * pp.params_per_gpu, 1e-12));
  CHECK_THAT(pp.gradients, WithinRel(4.0 * pp.params_per_gpu, 1e-12));
  CHECK(pp.total() / units::kGiB > 65.0);
  // DeepSpeed's ZeRO-3 does not run under a pipeline (its engine asserts ZeRO-2/3 incompatible
  // with PP): refused, no longer compared (helper s55 bad-input F2).
  r.sharding = Sharding::zero3;
  CHECK_THROWS_WITH(train_memory(m, gpu("h100-sxm"), r), Contains("train.sharding"));
  // Without a pipeline FSDP reshards after forward.
  r.sharding = Sharding::fsdp;
  r.layout.pp = 1;
  r.layout.dp = 64;
  r.global_batch_tokens = 0;
  CHECK_FALSE(fsdp_stage_unsharded(r));
}

// Qwen-72B Q-LoRA on one A100-80 (QwenLM/Qwen README, "Profiling of Memory and Speed"): 27.4 s for
// 8 x 256 tokens and 59.5 s for 8 x 2048: a fixed cost per micro-batch that FLOPs do not explain.
TEST_CASE("train: QLoRA pays a fixed dequantization time per pass of each micro-batch", "[train]") {
  const ModelSpec& m = model("qwen2.5-72b");
  const GpuSpec& g = gpu("a100-sxm-80gb");
  const auto step = [&](std::uint64_t seq, TrainMethod method) {
    TrainRequest r;
    r.method = method;
    r.seq_tokens = seq;
    r.global_batch_tokens = 8 * seq;
    r.loss = LossKernel::unfused;
    r.recompute = Recompute::full;
    return train_step(m, g, r, TrainEfficiency{});
  };
  const TrainStep short_seq = step(256, TrainMethod::qlora);
  // ~72 B NF4 weights: 0.53 bytes read, bf16 written and read, three passes, at 79 % of 2.04 TB/s.
  CHECK(short_seq.dequant_s / 8.0 > 0.5);
  CHECK(short_seq.dequant_s / 8.0 < 0.75);
  CHECK_THAT(step(2048, TrainMethod::qlora).dequant_s, WithinRel(short_seq.dequant_s, 1e-12));
  CHECK(short_seq.dequant_s > short_seq.compute_s * 0.8);
  CHECK(step(256, TrainMethod::lora).dequant_s <= 0);
}

// PEFT's MetaMathQA full fine-tune (method_comparison, full-finetuning--llama-3.2-3B): pure bf16
// AdamW on one L40S, 4 x 210 tokens a step, measured 0.36 s a step; the step alone is ~66 ms.
TEST_CASE("train: the GPU optimizer step streams each rank's partition once per step", "[train]") {
  TrainRequest r;
  r.micro_batch = 4;
  r.seq_tokens = 210;
  r.master_weights = MasterWeights::none;
  r.loss = LossKernel::unfused;
  const ModelSpec& m = model("llama-3.2-3b");
  const GpuSpec& g = gpu("l40s");
  CHECK_THAT(TrainEfficiency{}.bandwidth, WithinRel(Efficiency{}.bandwidth, 1e-12));
  const double rate = g.memory_bandwidth_bytes_per_s * TrainEfficiency{}.bandwidth;
  const TrainStep s = train_step(m, g, r, TrainEfficiency{});
  // bf16 weights and both bf16 moments read and written, the bf16 gradient read: 14 bytes.
  const double params = train_memory(m, g, r).optimizer_params_per_gpu;
  CHECK(params > 3.0e9);
  CHECK_THAT(s.gpu_optimizer_s, WithinRel(params * 14.0 / rate, 1e-9));
  CHECK(s.gpu_optimizer_s > 0.05);
  CHECK_THAT(s.step_s, WithinRel(s.compute_s + s.gpu_optimizer_s, 1e-9));
  // Once per step, not per micro-batch.
  r.global_batch_tokens = 8 * 4 * 210;
  CHECK_THAT(train_step(m, g, r, TrainEfficiency{}).gpu_optimizer_s, WithinRel(s.gpu_optimizer_s, 1e-12));
  // Mixed precision: fp32 master and moments, 30 bytes.
  r.master_weights = MasterWeights::fp32;
  CHECK_THAT(train_step(m, g, r, TrainEfficiency{}).gpu_optimizer_s, WithinRel(params * 30.0 / rate, 1e-9));
  // ZeRO-1 over 8 ranks: each steps an eighth.
  r.layout.dp = 8;
  r.sharding = Sharding::zero1;
  r.global_batch_tokens = 0;
  CHECK_THAT(train_step(m, g, r, TrainEfficiency{}).gpu_optimizer_s, WithinRel(params * 30.0 / rate / 8.0, 1e-6));
  // On the CPU with offload: nothing on the GPU.
  r.offload = Offload::optimizer;
  CHECK(train_step(m, g, r, TrainEfficiency{}).gpu_optimizer_s <= 0);
  // LoRA steps its adapters only.
  TrainRequest lora;
  lora.method = TrainMethod::lora;
  lora.lora_rank = 32;
  lora.micro_batch = 4;
  lora.seq_tokens = 210;
  lora.master_weights = MasterWeights::none;
  CHECK(train_step(m, g, lora, TrainEfficiency{}).gpu_optimizer_s < 0.02 * s.gpu_optimizer_s);
}

// The audit's arithmetic (s45 H2) for torchtune's 70B full fine-tune with FSDP CPU offload on 8
// A100s (measured 196 tokens/s per GPU, 20.9 s a step; 303 and 13.5 s before offload was timed).
TEST_CASE("train: CPU offload charges the host link and the optimizer step on the CPU", "[train]") {
  TrainRequest r;
  r.layout.dp = 8;
  r.sharding = Sharding::fsdp;
  r.recompute = Recompute::full;
  r.micro_batch = 2;
  r.seq_tokens = 2048;
  const ModelSpec& m = model("llama-3.1-70b");
  const double shard = count_params(m).total() / 8.0;  // parameters whose step one rank runs: 8.82 B
  const TrainStep plain = train_step(m, gpu("a100-sxm-80gb"), r, TrainEfficiency{});
  r.offload = Offload::params;
  const TrainStep off = train_step(m, gpu("a100-sxm-80gb"), r, TrainEfficiency{});
  // Adam over an fp32 master: master 4 + moments 8 read and written, fp32 gradient 4 read, bf16
  // copy 2 written = 30 B per parameter, at the assumed 409.6 GB/s x 0.8 / 8 GPUs = 40.96 GB/s: 6.5 s.
  constexpr double kPcieHost = 409.6e9 * 0.8 / 8.0;
  CHECK_THAT(off.cpu_optimizer_s, WithinRel(shard * 30.0 / kPcieHost, 1e-9));
  // Per micro-batch the bf16 shard goes up twice (forward, backward) and its gradient down once,
  // 3 x 17.6 GB over PCIe 4 x16's 32 GB/s x 0.8: 2.07 s, hidden under the 13.5 s of compute.
  CHECK_THAT(off.offload_transfer_s, WithinRel(3.0 * shard * 2.0 / (32e9 * 0.8), 1e-9));
  CHECK(off.offload_exposed_s <= 0.0);
  CHECK_THAT(off.step_s, WithinRel(plain.step_s - plain.gpu_optimizer_s + off.cpu_optimizer_s, 1e-9));
  // Optimizer offload on one GPU (8B, 4k tokens, 1.2 s of compute): the 16 GB gradient goes down
  // under the backward's 0.8 s only in part; the updated 16 GB come back after the step, unhidden.
  TrainRequest one;
  one.offload = Offload::optimizer;
  const TrainStep o = train_step(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), one, TrainEfficiency{});
  const double params = count_params(model("llama-3.1-8b")).total();
  const double partition_s = params * 2.0 / (32e9 * 0.8);
  CHECK_THAT(o.offload_transfer_s, WithinRel(2.0 * partition_s, 1e-9));
  CHECK_THAT(o.offload_exposed_s, WithinRel(std::max(0.0, partition_s - 2.0 / 3.0 * o.compute_s) + partition_s, 1e-9));
  // Pure bf16 on the host: 2 x 2 (weights) + 2 x 4 (bf16 moments) + 2 (gradient) = 14 B.
  one.master_weights = MasterWeights::none;
  CHECK_THAT(train_step(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), one, TrainEfficiency{}).cpu_optimizer_s,
             WithinRel(params * 14.0 / kPcieHost, 1e-9));
  // Behind NVLink-C2C the host is Grace's LPDDR5X: 512 GB/s x 0.8 over two GPUs, 5x the PCIe server's.
  CHECK_THAT(gpuplan::host_memory_rate(gpu("gh200"), TrainEfficiency{}), WithinRel(512e9 * 0.8 / 2.0, 1e-9));
  // A stated host bandwidth replaces the assumption.
  TrainEfficiency given;
  given.host_memory_bytes_per_s_per_gpu = 100e9;
  CHECK_THAT(train_step(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), one, given).cpu_optimizer_s,
             WithinRel(params * 14.0 / 100e9, 1e-9));
}

// torchtitan's Llama 3 8B at 256K tokens with CP 8 (docs/performance.md): attention is some 90 %
// of the FLOPs and runs in bf16 (FlashAttention) under FP8 training too, so FP8 speeds the step
// up only through the linear layers' share.
TEST_CASE("train: FP8 training keeps the core attention at bf16's rate", "[train]") {
  TrainRequest r;
  r.layout = {.tp = 1, .pp = 1, .cp = 8, .ep = 1, .dp = 1, .vpp = 1};
  r.seq_tokens = 262144;
  r.global_batch_tokens = 262144;
  r.recompute = Recompute::full;
  const TrainStep bf16 = train_step(model("llama-3.1-8b"), gpu("h100-sxm"), r, TrainEfficiency{});
  r.precision = TrainPrecision::fp8;
  const TrainStep fp8 = train_step(model("llama-3.1-8b"), gpu("h100-sxm"), r, TrainEfficiency{});
  CHECK(fp8.compute_s < bf16.compute_s);
  CHECK(fp8.compute_s > 0.85 * bf16.compute_s);
  // At 4K tokens the linear layers dominate and FP8 pays.
  r.seq_tokens = 4096;
  r.global_batch_tokens = 4096 * 8;
  r.layout.cp = 1;
  const TrainStep short_fp8 = train_step(model("llama-3.1-8b"), gpu("h100-sxm"), r, TrainEfficiency{});
  r.precision = TrainPrecision::bf16;
  const TrainStep short_bf16 = train_step(model("llama-3.1-8b"), gpu("h100-sxm"), r, TrainEfficiency{});
  CHECK(short_fp8.compute_s < 0.9 * short_bf16.compute_s);
}

// A GPU whose best measured bf16 matmul reaches less of its peak than the calibrated GPUs'
// (stas00's mamf-finder: MI300X 0.514 against H100's 0.803) trains that much slower; one above
// (A100's 0.869) no faster than the fit.
TEST_CASE("train: a GPU measured below the calibrated matmul share trains slower", "[train]") {
  TrainRequest r;
  r.layout = {.tp = 8, .pp = 1, .cp = 1, .ep = 1, .dp = 1, .vpp = 1};
  r.seq_tokens = 4096;
  r.global_batch_tokens = 4096 * 8;
  const TrainStep mi300x = train_step(model("llama-3.1-8b"), gpu("mi300x"), r, TrainEfficiency{});
  CHECK_THAT(mi300x.matmul_factor, WithinRel(0.514 / kTrainCalibratedMatmulShare, 1e-9));
  CHECK_THAT(mi300x.compute_efficiency, WithinRel(TrainEfficiency{}.compute * 0.514 / 0.803, 1e-9));
  // Every FLOP, attention's too, runs at the lower share: against the same GPU unmeasured, the
  // compute time grows by exactly the inverse of the factor.
  GpuSpec unmeasured = gpu("mi300x");
  unmeasured.achievable_matmul_share.reset();
  const TrainStep plain = train_step(model("llama-3.1-8b"), unmeasured, r, TrainEfficiency{});
  CHECK_THAT(plain.matmul_factor, WithinRel(1.0, 1e-12));
  CHECK_THAT(mi300x.compute_s, WithinRel(plain.compute_s / mi300x.matmul_factor, 1e-9));
  CHECK_THAT(train_step(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), r, TrainEfficiency{}).matmul_factor,
             WithinRel(1.0, 1e-12));
}

TEST_CASE("train: FLOPs per token are 6N plus attention", "[train]") {
  TrainRequest r;
  r.seq_tokens = 4096;
  const ModelSpec& m = model("llama-3.1-8b");
  const TrainFlops f = train_flops(m, r);
  // 12 L h s per token forward + backward (PaLM appendix B) with h = heads x head_dim.
  const double attention = 12.0 * 32 * 4096 * 4096;
  CHECK_THAT(f.model_flop_per_token, WithinRel(6.0 * f.matmul_params + attention, 1e-12));
  CHECK_THAT(f.matmul_params, WithinRel(7.5e9, 0.01));  // 8.03B minus the 0.53B embedding lookup
}

TEST_CASE("train: plan prices the run by provider and mode with the band", "[train]") {
  TrainPlanRequest req;
  req.train = fsdp16();
  req.train.recompute = Recompute::full;
  req.tokens = 20e9;
  req.train.global_batch_tokens = 64 * 8192;
  req.scale_gpus = {16, 32, 64, 20};
  const TrainPlan p = train_plan(Catalog::builtin(), model("llama-3.1-70b"), gpu("h100-sxm"), req);
  REQUIRE(p.run);
  CHECK(p.run->time_low_s < p.run->time_s);
  CHECK(p.run->time_s < p.run->time_high_s);
  REQUIRE(p.costs.size() > 3);
  for (const TrainCost& c : p.costs) {
    CHECK(c.usd_low < c.usd);
    CHECK(c.usd < c.usd_high);
    CHECK_THAT(c.usd, WithinRel(p.run->gpu_hours * c.price.usd_per_gpu_hour, 1e-9));
  }
  REQUIRE(p.scale.size() == 4);
  CHECK_THAT(p.scale[0].efficiency, WithinRel(1.0, 1e-12));
  CHECK(p.scale[2].efficiency <= 1.0);  // TP 1: FSDP's gathers leave over all 8 NICs and hide behind compute
  CHECK(p.scale[2].tokens_per_s > p.scale[0].tokens_per_s);
  CHECK_THAT(p.scale[3].invalid, Contains("does not divide the global batch"));  // 64 sequences over DP 20
}

TEST_CASE("train: bad requests name the field", "[train]") {
  TrainRequest r;
  r.layout.dp = 4;
  r.global_batch_tokens = 3 * 4096;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("train.micro_batch"));
  r = TrainRequest{};
  r.method = TrainMethod::qlora;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("gaudi3"), r), Contains("train.method"));
  r = TrainRequest{};
  r.precision = TrainPrecision::fp8;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), r), Contains("train.precision"));
  r = TrainRequest{};
  r.offload = Offload::params;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("train.offload"));
  // CP 8 splits 1,000 tokens 8 ways, but not into the 16 chunks of load-balanced ring attention.
  r = TrainRequest{};
  r.layout.cp = 8;
  r.seq_tokens = 1000;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("16 chunks"));
  r.seq_tokens = 1008;
  CHECK_NOTHROW(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r));
  r = TrainRequest{};
  r.layout.ep = 2;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("layout.ep"));
  CHECK_THROWS_WITH(parse_optimizer("adam", "--optimizer"), Contains("closest: adamw"));
}

// Megatron-LM refuses TP past the KV heads, which inference engines accept (they replicate the
// heads, Megatron splits them; s48: TP 16 of Llama 3.1 8B was called a fit). Virtual stages of
// unequal layers it takes with a custom layout (Megatron Bridge's 61-layer DeepSeek-V3 at PP 8 x
// VPP 4): train_plan notes them, nothing refuses them.
TEST_CASE("train: TP divides the KV heads", "[train]") {
  TrainRequest r;
  r.layout.tp = 16;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r),
                    Contains("layout.tp: 16 does not divide the 8 KV heads of 'llama-3.1-8b'"));
  r.layout.tp = 8;
  CHECK_NOTHROW(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r));
  r = TrainRequest{};
  r.layout.pp = 2;
  r.layout.vpp = 3;
  CHECK_NOTHROW(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r));
}

// DeepSpeed's pipeline engine runs plain 1F1B and refuses ZeRO-2/3 beside PP
// (deepspeedai/DeepSpeed@03f6f75c deepspeed/runtime/pipe/engine.py): helper s55 bad-input F2.
TEST_CASE("train: DeepSpeed takes no virtual stages and no ZeRO-2/3 beside PP", "[train]") {
  TrainRequest r;
  r.layout.pp = 2;
  r.layout.vpp = 2;
  r.framework = TrainFramework::deepspeed;
  r.sharding = Sharding::zero1;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r),
                    Contains("train.vpp") && Contains("1F1B"));
  r.framework = TrainFramework::megatron;
  CHECK_NOTHROW(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r));
  r.layout.vpp = 1;
  r.framework.reset();
  for (const Sharding s : {Sharding::zero2, Sharding::zero3}) {
    r.sharding = s;  // DeepSpeed's, assumed
    CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r),
                      Contains("train.sharding") && Contains("incompatible with pipeline parallelism"));
    r.framework = TrainFramework::deepspeed;
    CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("train.sharding"));
    r.framework.reset();
  }
  r.layout.pp = 1;
  r.layout.dp = 2;
  CHECK_NOTHROW(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r));  // ZeRO-3 without PP runs
}

// StarCoder (MQA, one KV head) trained at TP 4 under BigCode's Megatron-LM fork, which keeps the
// K/V layer whole on every rank (helper s54 train F2): sized with that replica, not refused. The
// per-GPU K and V activations are then one head's, as a 4-KV-head model's at TP 4; the weights
// carry 3/4 of the K/V projection more than an even split.
TEST_CASE("train: MQA's single KV head is replicated over TP, not refused", "[train]") {
  ModelSpec mqa = model("llama-2-7b");
  mqa.num_key_value_heads = 1;
  ModelSpec four = mqa;
  four.num_key_value_heads = 4;
  TrainRequest r;
  r.layout.tp = 4;
  r.seq_tokens = 2048;
  REQUIRE_NOTHROW(train_memory(mqa, gpu("a100-sxm-80gb"), r));
  CHECK_THAT(layer_activation_bytes_per_token(mqa, r).split,
             WithinRel(layer_activation_bytes_per_token(four, r).split, 1e-12));
  const ParamCount pc = count_params(mqa);
  CHECK_THAT(train_memory(mqa, gpu("a100-sxm-80gb"), r).params_per_gpu,
             WithinRel(pc.total() / 4.0 + pc.kv_projection * 0.75, 1e-9));
  // Without sequence parallelism each replica projects all the tokens: hardware FLOPs, not model FLOPs.
  r.sequence_parallel = false;
  const TrainFlops off = train_flops(mqa, r);
  r.sequence_parallel = true;
  const TrainFlops on = train_flops(mqa, r);
  CHECK_THAT(off.model_flop_per_token, WithinRel(on.model_flop_per_token, 1e-12));
  CHECK_THAT(off.hardware_flop_per_token - on.hardware_flop_per_token, WithinRel(6.0 * pc.kv_projection * 3.0, 1e-9));
  // Grouped heads still need TP to divide them (Megatron-Core's divide(num_query_groups, tp)).
  ModelSpec gqa = mqa;
  gqa.num_key_value_heads = 2;
  CHECK_THROWS_WITH(train_memory(gqa, gpu("a100-sxm-80gb"), r), Contains("layout.tp: 4 does not divide the 2 KV heads"));
}

// Sequence parallelism off (Megatron-LM's bare default, nanotron's ALL_REDUCE mode): the norms'
// inputs and the pipeline's sends are whole on every TP rank (helper s54 train F3: the pipeline
// sends had split TP ways whatever the setting).
TEST_CASE("train: sequence parallelism off keeps the replicated activations and sends whole", "[train]") {
  TrainRequest r;
  r.layout.tp = 8;
  r.layout.pp = 2;
  r.layout.dp = 1;
  r.micro_batch = 4;
  r.global_batch_tokens = 64 * 4096;
  const ModelSpec& m = model("llama-3.2-1b");
  const TrainMemory on = train_memory(m, gpu("h100-sxm"), r);
  const TrainStep step_on = train_step(m, gpu("h100-sxm"), r, TrainEfficiency{});
  r.sequence_parallel = false;
  const TrainMemory off = train_memory(m, gpu("h100-sxm"), r);
  const TrainStep step_off = train_step(m, gpu("h100-sxm"), r, TrainEfficiency{});
  const LayerActivation a = layer_activation_bytes_per_token(m, r);
  const double tokens = 4.0 * 4096.0 * 8.0;  // micro-batch tokens x layers per stage (16 / 2)
  CHECK_THAT(off.activations_per_micro_batch - on.activations_per_micro_batch,
             WithinRel(a.replicated * (1.0 - 1.0 / 8.0) * tokens, 1e-9));
  CHECK(step_off.pp_comm_s > 4.0 * step_on.pp_comm_s);
}

// A training micro-batch's GEMMs fill the GPU as inference's do (the same W / (W + W_half)), a
// narrow TP slice of a short micro-batch less than a 70B model's (helper s54 train F1: a 1B
// model at TP 8 had been timed at a 70B model's rate).
TEST_CASE("train: small per-GPU GEMMs reach less of the compute rate", "[train]") {
  CHECK_THAT(TrainEfficiency{}.gemm_half_flop, WithinRel(Efficiency{}.gemm_half_flop, 1e-12));
  TrainRequest r;
  r.layout.tp = 8;
  r.seq_tokens = 512;
  const ModelSpec& small = model("llama-3.2-1b");
  const double fill = train_gemm_fill(small, r, TrainEfficiency{}.gemm_half_flop);
  // Its MLP GEMM per GPU: 2 x 512 tokens x 2048 x 8192 / 8 = 2.1 GFLOP, 82 % full; the narrower
  // attention projections less.
  CHECK(fill < gemm_fill(2.0 * 512 * 2048 * 8192 / 8.0, TrainEfficiency{}.gemm_half_flop));
  CHECK(fill > 0.5);
  TrainEfficiency roofline;
  roofline.gemm_half_flop = 0;
  const TrainStep filled = train_step(small, gpu("h100-sxm"), r, TrainEfficiency{});
  const TrainStep full = train_step(small, gpu("h100-sxm"), r, roofline);
  CHECK_THAT(filled.gemm_fill, WithinRel(fill, 1e-12));
  CHECK(filled.compute_s > full.compute_s * 1.15);
  TrainRequest big;
  big.layout.tp = 8;
  CHECK(train_gemm_fill(model("llama-3.1-70b"), big, TrainEfficiency{}.gemm_half_flop) > 0.99);
}

// The QLoRA note had said the dequantization is not in the step time while the step added it
// (helper s54 tasks F4).
TEST_CASE("train: the QLoRA note says the dequantization is timed", "[train]") {
  TrainPlanRequest req;
  req.train.method = TrainMethod::qlora;
  req.train.seq_tokens = 2048;
  const TrainPlan plan = train_plan(Catalog::builtin(), model("llama-3.1-8b"), gpu("h100-sxm"), req);
  REQUIRE(plan.step.dequant_s > 0);
  const auto qlora = std::find_if(plan.notes.begin(), plan.notes.end(),
                                  [](const std::string& n) { return n.find("QLoRA base") != std::string::npos; });
  REQUIRE(qlora != plan.notes.end());
  CHECK_THAT(*qlora, Contains("timed in the step"));
  CHECK_THAT(*qlora, !Contains("not in the step time"));
}

// Across nodes a ring gets one NIC per member in the node: a DP group over TP 8 ranks has one
// GPU a node, so it moves at one NIC while the node's other seven groups use the rest; at TP 1 the
// group fills the node and leaves over all eight.
TEST_CASE("train: DP rings across nodes get the NICs of their members in a node", "[train][comm]") {
  TrainRequest r = fsdp16();
  r.layout = {.tp = 8, .pp = 1, .cp = 1, .ep = 1, .dp = 8, .vpp = 1};
  const TrainStep tp8 = train_step(model("llama-3.1-70b"), gpu("h100-sxm"), r, TrainEfficiency{});
  CHECK(tp8.dp_link == "network");
  CHECK(tp8.dp_exposed_s > 0.1 * tp8.step_s);  // 70B FSDP at TP 8 x DP 8: gathers over one 400 Gb/s NIC (0 with all 8)
  r.layout = {.tp = 1, .pp = 1, .cp = 1, .ep = 1, .dp = 64, .vpp = 1};
  const TrainStep tp1 = train_step(model("llama-3.1-70b"), gpu("h100-sxm"), r, TrainEfficiency{});
  CHECK(tp1.dp_exposed_s < tp8.dp_exposed_s);
  const auto one_nic = gpuplan::group_link(gpu("h100-sxm"), 64, 8, 50e9, 1.0, 0.0, gpuplan::PcieRate::shared, 8);
  const auto all_nics = gpuplan::group_link(gpu("h100-sxm"), 64, 8, 50e9, 1.0, 0.0);
  CHECK_THAT(one_nic.allreduce_rate(), WithinRel(50e9, 1e-12));
  CHECK_THAT(all_nics.allreduce_rate(), WithinRel(400e9, 1e-12));
}

// Megatron-Bridge's GPT-OSS-120B on 64 B200s with EP 8 (audit s45 H3): the expert-data-parallel
// group has one rank a node (stride TP x EP = 8), so its ring leaves over one 400 Gb/s NIC, not
// the eight the dense group's ring uses; the expert gradients dominate the DP sync.
TEST_CASE("train: expert gradients sync on the expert group's own link", "[train][comm]") {
  TrainRequest r;
  r.layout = {.tp = 1, .pp = 1, .cp = 1, .ep = 8, .dp = 64, .vpp = 1};
  r.sharding = Sharding::zero1;
  r.micro_batch = 4;
  r.global_batch_tokens = 2097152;
  const ModelSpec& m = model("gpt-oss-120b");
  const ParamCount pc = count_params(m);
  const TrainStep s = train_step(m, gpu("b200"), r, TrainEfficiency{});
  // Experts: 1/8 of the routed experts per GPU in bf16, a ring over 8 ranks at 50 GB/s x 0.8.
  const double expert_s = 2.0 * 7.0 / 8.0 * (pc.routed_experts / 8.0 * 2.0) / 40e9;
  // The rest: a ring over 64 ranks leaving each node over its 8 NICs, 8 x 50 GB/s x 0.8.
  const double dense_s = 2.0 * 63.0 / 64.0 * ((pc.total() - pc.routed_experts) * 2.0) / 320e9;
  REQUIRE(expert_s > 1.2);  // 28.7 GB of expert gradients: 1.26 s
  // Within 1 %: the rings' hop latencies (2 x 7 and 2 x 63 hops of 5 us) come on top.
  CHECK_THAT(s.dp_comm_s, WithinRel(expert_s + dense_s, 0.01));
}

// Unsloth's benchmark table (HF + FA2 column: QLoRA r32, batch 1, gradient checkpointing):
// Llama-3.1-8B's largest context on an A100 80GB is 28,454 tokens. transformers' unfused loss holds
// 14 bytes per token and vocabulary entry: 14 x 128,256 x 28,454 = 51 GB of the 80.
TEST_CASE("train: the unfused loss holds 14 bytes per logit and is LoRA's default", "[train]") {
  TrainRequest r = qlora32(28454);
  CHECK(r.loss_kernel() == LossKernel::unfused);
  const TrainMemory unfused = train_memory(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), r);
  CHECK_THAT(unfused.logits / 1e9, WithinRel(14.0 * 128256 * 28454 / 1e9, 1e-9));
  r.loss = LossKernel::fused;
  const TrainMemory fused = train_memory(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), r);
  CHECK_THAT(fused.logits / unfused.logits, WithinRel(6.0 / 14.0, 1e-9));
  r.loss = LossKernel::fused_linear;
  const TrainMemory chunked = train_memory(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), r);
  CHECK(chunked.logits < 0.02 * unfused.logits);  // (4 + 2) x 4,096 per token, not x 128,256
  CHECK(chunked.logits > 0.0);
  // The measured context lands within 15 % of the largest the unfused loss allows.
  r.loss.reset();
  r.seq_tokens = 4096;
  const double limit = static_cast<double>(train_limits(model("llama-3.1-8b"), gpu("a100-sxm-80gb"), r).max_seq_tokens);
  CHECK_THAT(limit, WithinRel(28454.0, 0.15));
  // Full training defaults to the fused loss of the stacks the compute share was fitted on.
  CHECK(TrainRequest{}.loss_kernel() == LossKernel::fused);
  CHECK_THROWS_WITH(parse_loss_kernel("cce", "--loss"), Contains("--loss: unknown loss 'cce'"));
}

TEST_CASE("train: the plan says which loss it assumed and how to change it", "[train]") {
  TrainPlanRequest req;
  req.train.method = TrainMethod::lora;
  const TrainPlan assumed = train_plan(Catalog::builtin(), model("llama-3.1-8b"), gpu("h100-sxm"), req);
  const auto note = [](const TrainPlan& p) {
    for (const std::string& n : p.notes) {
      if (n.starts_with("loss: ")) {
        return n;
      }
    }
    return std::string();
  };
  CHECK_THAT(note(assumed), Contains("unfused") && Contains("assumed for lora training") && Contains("--loss"));
  req.train.loss = LossKernel::fused_linear;
  const TrainPlan given = train_plan(Catalog::builtin(), model("llama-3.1-8b"), gpu("h100-sxm"), req);
  CHECK_THAT(note(given), Contains("fused linear") && !Contains("assumed"));
}

// Unsloth's table: Llama-3.3-70B QLoRA with HF + FA2 runs out of memory on a 48 GB card at every
// length; gpuplan had it fit with 0.4 GB (0.8 %) to spare. PEFT's k-bit preparation casts the
// 2.1 B parameters of the embeddings and head to fp32 (+4.2 GB) and the residual stream with them.
TEST_CASE("train: QLoRA on the Hugging Face stack counts PEFT's fp32 ends and residual stream", "[train]") {
  TrainRequest r = qlora32(1024);
  CHECK(peft_kbit_prepared(r));
  const TrainMemory hf = train_memory(model("llama-3.3-70b"), gpu("rtx-a6000"), r);
  CHECK_FALSE(hf.fits);
  r.loss = LossKernel::fused;  // torchtune, litgpt: no PEFT preparation
  CHECK_FALSE(peft_kbit_prepared(r));
  const TrainMemory plain = train_memory(model("llama-3.3-70b"), gpu("rtx-a6000"), r);
  const double ends = 2.0 * 128256.0 * 8192.0;
  CHECK_THAT((hf.parameters - plain.parameters) / 1e9, WithinRel(2.0 * ends / 1e9, 0.01));
  CHECK_THAT((hf.buckets - plain.buckets) / 1e9, WithinRel(ends / 1e9, 0.01));  // the head's bf16 copy
  // Each layer's checkpointed input in fp32: twice the bf16 one.
  CHECK_THAT(hf.activations_per_micro_batch / plain.activations_per_micro_batch, WithinRel(2.0, 1e-9));
  r.method = TrainMethod::lora;  // a bf16 base is not k-bit prepared
  r.loss.reset();
  CHECK_FALSE(peft_kbit_prepared(r));
}

TEST_CASE("train: a fit within 5 % of the capacity is flagged tight", "[train]") {
  TrainRequest r = qlora32(4096);
  const TrainLimits limits = train_limits(model("llama-3.1-8b"), gpu("rtx-4090"), r);
  r.seq_tokens = limits.max_seq_tokens;  // the edge: fits with less than one step of 128 tokens free
  const TrainMemory edge = train_memory(model("llama-3.1-8b"), gpu("rtx-4090"), r);
  CHECK(edge.fits);
  CHECK(edge.tight);
  r.seq_tokens = 1024;
  const TrainMemory roomy = train_memory(model("llama-3.1-8b"), gpu("rtx-4090"), r);
  CHECK(roomy.fits);
  CHECK_FALSE(roomy.tight);
  TrainPlanRequest req;
  req.train = r;
  req.train.seq_tokens = limits.max_seq_tokens;
  const TrainPlan plan = train_plan(Catalog::builtin(), model("llama-3.1-8b"), gpu("rtx-4090"), req);
  CHECK_THAT(plan.notes.back(), Contains("tight:") && Contains("run out of memory"));
}

// FlagPerf's Llama-2-7B under DeepSpeed ZeRO-3 on 8 H800s (MBS 1, 4K, one micro-batch): 7,151
// tokens/s per GPU measured; with the gathers hidden as FSDP's prefetch hides them, 12,018.
TEST_CASE("train: DeepSpeed ZeRO-3 keeps its parameter gathers on the critical path and FSDP hides them",
          "[train]") {
  TrainRequest r;
  r.layout.dp = 8;
  r.sharding = Sharding::zero3;
  r.global_batch_tokens = 8 * 4096;
  const TrainEfficiency e;
  const TrainStep zero3 = train_step(model("llama-2-7b"), gpu("h800-sxm"), r, e);
  r.sharding = Sharding::fsdp;
  const TrainStep fsdp = train_step(model("llama-2-7b"), gpu("h800-sxm"), r, e);
  CHECK(fsdp.dp_exposed_s <= 0.0);
  // The same bytes, plus a ring latency (7 NVLink hops of 1 us) per module gather (32 layers x 9
  // modules, forward and backward, one already in the bytes' all-reduce) and per gradient bucket
  // beyond the first (13.5 GB of bf16 gradients in 1 GB buckets).
  const double hops = 7.0 * e.hop_latency_s;
  const double gather_latency = 2.0 * (32.0 * 9.0 - 1.0) * hops;
  CHECK_THAT(zero3.dp_comm_s, WithinRel(fsdp.dp_comm_s + gather_latency + 13.0 * hops, 1e-9));
  // Two gathers of three collectives' worth are exposed; the reduce-scatter hides.
  CHECK_THAT(zero3.dp_exposed_s, WithinRel(2.0 / 3.0 * fsdp.dp_comm_s + gather_latency, 1e-9));
  const double measured = 7151.0;
  const double per_gpu = zero3.tokens_per_s / 8.0;
  CHECK(per_gpu < 0.8 * fsdp.tokens_per_s / 8.0);
  // Inside the dense band (estimate -36 % .. +15 %).
  CHECK(measured >= per_gpu * (1.0 + e.band_low));
  CHECK(measured <= per_gpu * (1.0 + e.band_high));
}

// Megatron-LM's README (Distributed Optimizer): bf16 parameters with fp32 gradients take 6 + 12/d
// bytes per parameter with the distributed optimizer. FlagPerf's Llama3-8B at TP 2, DP 4 measured
// 71 GiB used where gpuplan counted 47.7 GB.
TEST_CASE("train: Megatron layouts keep an fp32 main_grad buffer unsharded", "[train]") {
  TrainRequest r;
  r.layout.tp = 2;
  r.layout.dp = 4;
  r.sharding = Sharding::zero1;
  r.recompute = Recompute::selective;
  r.seq_tokens = 8192;
  CHECK(fp32_main_grads(r));
  const ModelSpec& m = model("llama-3-8b");
  const TrainMemory mem = train_memory(m, gpu("h100-sxm"), r);
  CHECK_THAT(mem.model_states() / mem.params_per_gpu, WithinRel(6.0 + 12.0 / 4.0, 1e-9));
  CHECK_THAT(mem.gradients / mem.params_per_gpu, WithinRel(4.0, 1e-12));
  // ZeRO-2 shards bf16 gradients (DeepSpeed); DP alone is counted as ZeRO's paper counts it.
  r.sharding = Sharding::zero2;
  CHECK_FALSE(fp32_main_grads(r));
  r.sharding = Sharding::zero1;
  r.layout.tp = 1;
  r.layout.dp = 8;
  CHECK_FALSE(fp32_main_grads(r));
}

TEST_CASE("train: MoE parallel folding puts whole experts on EP ranks that span the TP group", "[train][moe]") {
  // NVIDIA's dgxc-benchmarking DeepSeek-V3 recipe: 1,024 H100s at TP 2, PP 16, EP 64 (DP 32), which
  // only Megatron's expert_tensor_parallel_size 1 allows: before, gpuplan refused it.
  const ModelSpec& m = model("deepseek-v3");
  const GpuSpec& h100 = gpu("h100-sxm");
  TrainRequest r;
  r.layout = TrainLayout{.tp = 2, .pp = 16, .ep = 64, .dp = 32};
  r.sharding = Sharding::zero1;
  r.recompute = Recompute::full;  // the recipe's mla_up_proj recompute is not expressible; full fits
  r.seq_tokens = 4096;
  r.global_batch_tokens = 8192ull * 4096;
  CHECK_THROWS_WITH(train_memory(m, h100, r), Contains("--etp 1"));
  r.layout.etp = 1;
  const TrainMemory folded = train_memory(m, h100, r);
  // Each expert whole: a stage's routed experts over EP alone, not over TP x EP.
  const TrainMemory split_over_tp = [&] {
    TrainRequest t = r;  // the same experts per GPU count under ETP = TP would need EP 32
    t.layout.ep = 32;
    t.layout.etp = 0;
    return train_memory(m, h100, t);
  }();
  CHECK_THAT(folded.expert_params_per_gpu, WithinRel(split_over_tp.expert_params_per_gpu, 1e-12));
  CHECK(folded.fits);
  CHECK(r.layout.expert_dp() == 1);  // 2 x 32 GPUs a stage over 64 EP ranks: the states unshared
  const TrainStep step = train_step(m, h100, r, TrainEfficiency{});
  CHECK(step.ep_comm_s > 0.0);
  // ETP must be 1 or TP, and needs experts.
  r.layout.etp = 4;
  CHECK_THROWS_WITH(train_memory(m, h100, r), Contains("neither 1"));
  TrainRequest dense;
  dense.layout.tp = 2;
  dense.layout.etp = 1;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), h100, dense), Contains("no routed experts"));
}

// PEFT's prepare_model_for_kbit_training (huggingface/peft src/peft/utils/other.py) defaults to
// use_gradient_checkpointing=True. Llama-3.3-70B QLoRA at 4K on one A100 80GB said "85 GB short"
// with 111.56 GB of activations when gpuplan assumed PEFT's casts without its checkpointing.
TEST_CASE("train: QLoRA with PEFT's preparation assumes its gradient checkpointing", "[train]") {
  TrainRequest r;
  r.method = TrainMethod::qlora;
  r.seq_tokens = 4096;
  REQUIRE(peft_kbit_prepared(r));
  CHECK(default_recompute(r) == Recompute::full);
  r.recompute = default_recompute(r);
  r.recompute_assumed = true;
  const ModelSpec& m = model("llama-3.3-70b");
  const GpuSpec& g = gpu("a100-sxm-80gb");
  CHECK(train_memory(m, g, r).fits);
  TrainPlanRequest req;
  req.train = r;
  const TrainPlan plan = train_plan(Catalog::builtin(), m, g, req);
  CHECK(std::any_of(plan.notes.begin(), plan.notes.end(), [](const std::string& n) {
    return n.starts_with("recompute full assumed") && n.find("use_gradient_checkpointing=True") != std::string::npos;
  }));
  // An explicit none is none: the old verdict.
  r.recompute = Recompute::none;
  CHECK_FALSE(train_memory(m, g, r).fits);
  // Without PEFT's preparation (or without QLoRA) nothing is assumed.
  r.kbit_prepared = false;
  CHECK(default_recompute(r) == Recompute::none);
  TrainRequest lora;
  lora.method = TrainMethod::lora;
  CHECK(default_recompute(lora) == Recompute::none);
  CHECK(default_recompute(TrainRequest{}) == Recompute::none);
}

// stanford_alpaca #39: LLaMA-7B, FSDP full_shard on 8 x A100 40GB, 512 tokens, no checkpointing,
// on the 2023 Transformers eager attention path.
TEST_CASE("train: eager attention stores the softmax probabilities", "[train]") {
  TrainRequest r;
  r.layout.dp = 8;
  r.sharding = Sharding::fsdp;
  r.seq_tokens = 512;
  r.micro_batch = 4;
  r.loss = LossKernel::unfused;
  const ModelSpec& m = model("llama-2-7b");
  const LayerActivation flash = layer_activation_bytes_per_token(m, r);
  r.flash_attention = false;
  const LayerActivation eager = layer_activation_bytes_per_token(m, r);
  // 32 heads x 512 keys x 6 bytes (transformers' fp32 softmax output and its bf16 copy) per token
  // and layer, less FlashAttention's fp32 log-sum-exp.
  CHECK_THAT(eager.stored - flash.stored, WithinRel(32.0 * 512.0 * 6.0 - 32.0 * 4.0, 1e-12));
  const TrainMemory eager_mem = train_memory(m, gpu("a100-sxm-40gb"), r);
  r.flash_attention = true;
  const TrainMemory flash_mem = train_memory(m, gpu("a100-sxm-40gb"), r);
  CHECK_THAT(eager_mem.activations - flash_mem.activations,
             WithinRel((32.0 * 512.0 * 6.0 - 32.0 * 4.0) * 4.0 * 512.0 * 32.0, 1e-9));
  // Megatron's fused softmax keeps bf16 scores alone: 2 bytes.
  TrainRequest mega = r;
  mega.flash_attention = false;
  mega.framework = TrainFramework::megatron;
  mega.sharding = Sharding::zero1;
  CHECK_THAT(layer_activation_bytes_per_token(m, mega).stored - flash.stored,
             WithinRel(32.0 * 512.0 * 2.0 - 32.0 * 4.0, 1e-12));
  // Selective and full recompute rebuild the scores: eager costs them only in the layer rebuilt.
  r.flash_attention = false;
  r.recompute = Recompute::selective;
  CHECK_THAT(layer_activation_bytes_per_token(m, r).stored, WithinRel(flash.stored - 32.0 * 4.0, 1e-12));
  TrainPlanRequest req;
  req.train = r;
  const TrainPlan plan = train_plan(Catalog::builtin(), m, gpu("a100-sxm-40gb"), req);
  CHECK(std::any_of(plan.notes.begin(), plan.notes.end(),
                    [](const std::string& n) { return n.starts_with("eager attention"); }));
}

// ms-swift's Megatron-SWIFT Qwen2.5-72B at TP 8 with --optimizer_cpu_offload measured 65 GiB per
// A100/A800; counting the gradients as offloaded (DeepSpeed ZeRO-Offload) gave 20.8.
TEST_CASE("train: Megatron's optimizer offload keeps the main_grad buffer on the GPU", "[train]") {
  TrainRequest r;
  r.layout.tp = 8;
  r.sharding = Sharding::zero1;
  r.recompute = Recompute::full;
  r.seq_tokens = 8192;
  r.offload = Offload::optimizer;
  const ModelSpec& m = model("qwen2.5-72b");
  const GpuSpec& g = gpu("a100-sxm-80gb");
  REQUIRE(megatron_style(r));
  const TrainMemory mcore = train_memory(m, g, r);
  CHECK_THAT(mcore.gradients, WithinRel(4.0 * mcore.params_per_gpu, 1e-12));  // fp32 main_grad, on the GPU
  CHECK(mcore.master_weights <= 0.0);
  CHECK(mcore.optimizer_states <= 0.0);
  CHECK_THAT(mcore.host_bytes, WithinRel(12.0 * mcore.params_per_gpu, 1e-12));
  r.framework = TrainFramework::deepspeed;
  CHECK_FALSE(megatron_style(r));
  const TrainMemory ds = train_memory(m, g, r);
  CHECK(ds.gradients <= 0.0);
  CHECK_THAT(ds.host_bytes, WithinRel(16.0 * ds.params_per_gpu, 1e-12));  // the gradients too, fp32 there
  // Expert parallelism alone does not tell Megatron (ms-swift's Qwen3-30B-A3B at EP 4) from
  // DeepSpeed-MoE; --framework megatron does.
  TrainRequest ep;
  ep.layout = TrainLayout{.ep = 4, .dp = 4};
  ep.sharding = Sharding::zero1;
  ep.recompute = Recompute::full;
  ep.seq_tokens = 8192;
  ep.offload = Offload::optimizer;
  const ModelSpec& moe = model("qwen3-30b-a3b");
  CHECK_FALSE(megatron_style(ep));
  CHECK(train_memory(moe, g, ep).gradients <= 0.0);
  ep.framework = TrainFramework::megatron;
  const TrainMemory ep_mcore = train_memory(moe, g, ep);
  CHECK_THAT(ep_mcore.gradients, WithinRel(4.0 * ep_mcore.params_per_gpu, 1e-12));
  ep.sharding = Sharding::zero3;
  CHECK_THROWS_WITH(train_memory(moe, g, ep), Contains("train.framework") && Contains("zero1"));
  ep.framework = TrainFramework::deepspeed;
  ep.sharding = Sharding::fsdp;
  CHECK_THROWS_WITH(train_memory(moe, g, ep), Contains("train.framework") && Contains("FSDP"));
  TrainPlanRequest req;
  req.train = r;
  req.train.framework.reset();
  const TrainPlan plan = train_plan(Catalog::builtin(), m, g, req);
  CHECK(std::any_of(plan.notes.begin(), plan.notes.end(), [](const std::string& n) {
    return n.starts_with("offload as Megatron-LM's --optimizer-cpu-offload (assumed");
  }));
}

// torchtune #987: Llama-2-70B full fine-tune, FSDP on 8 A100 80GB, pure bf16, PagedAdamW: "~51GB".
// The paged states fill the card, so the total was always the capacity (85.13 GB).
TEST_CASE("train: paged optimizer states are not the requirement", "[train]") {
  TrainRequest r;
  r.layout.dp = 8;
  r.sharding = Sharding::fsdp;
  r.recompute = Recompute::full;
  r.master_weights = MasterWeights::none;
  r.offload = Offload::paged;
  r.seq_tokens = 2048;
  const ModelSpec& m = model("llama-2-70b");
  const TrainMemory mem = train_memory(m, gpu("a100-sxm-80gb"), r);
  CHECK(mem.fits);
  CHECK(mem.total() < 0.7 * mem.capacity_bytes);
  CHECK_THAT(mem.total() / 1e9, WithinRel(51.0 * 0.9, 0.05));  // 10 % under the report, allocator cache aside
  // fp32 AdamW moments of this rank's eighth: 8 bytes a parameter, up to all of them on the GPU.
  CHECK_THAT(mem.paged_optimizer_states, WithinRel(8.0 * count_params(m).total() / 8.0, 1e-9));
  // 69 GB of them; what the rest leaves (39 GB) holds some, the others are on the host.
  CHECK_THAT(mem.paged_states, WithinRel(mem.paged_optimizer_states - (mem.capacity_bytes - mem.total()), 1e-9));
  CHECK(mem.paged_states > 0.0);
}

// LLaMA-Factory #5977: Llama-3-8B full SFT under ZeRO-3 on 8 RTX 3090s at 1,024 tokens runs out
// of memory. DeepSpeed's step upcasts a sub-group (1e9 parameters by default) of the 1.0 B-parameter
// partition to fp32, and torch's foreach AdamW takes the square root of its second moments beside
// it: 8 GB the backward's small activations, logits and gathered layers do not cover.
TEST_CASE("train: DeepSpeed's optimizer step builds fp32 gradients a sub-group at a time", "[train]") {
  TrainRequest r;
  r.layout.dp = 8;
  r.sharding = Sharding::zero3;
  r.recompute = Recompute::full;
  r.seq_tokens = 1024;
  r.global_batch_tokens = 16384;
  r.loss = LossKernel::unfused;
  const TrainMemory m = train_memory(model("llama-3-8b"), gpu("rtx-3090"), r);
  const double partition = m.optimizer_params_per_gpu;
  REQUIRE(partition > 1e9);  // 8.03 B over 8
  CHECK_THAT(m.step_transient, WithinRel(8.0 * 1e9 - (m.activations + m.logits + m.buckets), 1e-9));
  CHECK_FALSE(m.fits);
  // 8-bit AdamW (bitsandbytes' kernel) takes no such temporary: the flat bf16 copy is the larger.
  r.optimizer = Optimizer::adamw_8bit;
  const TrainMemory eight = train_memory(model("llama-3-8b"), gpu("rtx-3090"), r);
  CHECK_THAT(eight.step_transient, WithinRel(6.0 * 1e9 - (eight.activations + eight.logits + eight.buckets), 1e-9));
  r.optimizer = Optimizer::adamw;
  // A smaller sub-group shrinks it; ZeRO-2 (not modeled), FSDP and offload have none.
  r.zero_sub_group_params = 1e8;
  CHECK_FALSE(train_memory(model("llama-3-8b"), gpu("rtx-3090"), r).step_transient > 0.0);
  r.sharding = Sharding::zero2;
  CHECK_FALSE(zero_step_group_params(r, partition) > 0.0);
  r.sharding = Sharding::fsdp;
  CHECK_FALSE(zero_step_group_params(r, partition) > 0.0);
  r.sharding = Sharding::zero3;
  r.offload = Offload::optimizer;
  CHECK_FALSE(zero_step_group_params(r, partition) > 0.0);
  r.offload = Offload::none;
  r.zero_sub_group_params = 0;
  CHECK_THROWS_WITH(train_memory(model("llama-3-8b"), gpu("rtx-3090"), r), Contains("train.zero_sub_group_params"));
}

TEST_CASE("train: LoRA on a GPTQ checkpoint keeps its int4 base and full training of it is refused", "[train]") {
  const ModelSpec gptq = model_from_hf_config_file(gpuplan::test::fixture("hf-llama-3.1-8b-gptq.json"));
  TrainRequest r;
  r.method = TrainMethod::lora;
  r.seq_tokens = 2048;
  const double quantized = train_memory(gptq, gpu("l4"), r).parameters;
  const double bf16 = train_memory(model("llama-3.1-8b"), gpu("l4"), r).parameters;
  // 16.2 GB in bf16; the int4 linear layers with bf16 embeddings and head about 5.9.
  CHECK(quantized < 0.45 * bf16);
  CHECK(quantized > 0.25 * bf16);
  r.method = TrainMethod::full;
  CHECK_THROWS_WITH(train_memory(gptq, gpu("l4"), r), Contains("purely quantized"));
  CHECK_NOTHROW(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r));
}

TEST_CASE("train: eager attention's score traffic is timed at HBM bandwidth", "[train]") {
  const ModelSpec& m = model("llama-3.1-8b");
  const GpuSpec& g = gpu("h100-sxm");
  const TrainEfficiency e;
  TrainRequest r;
  r.seq_tokens = 8192;
  r.flash_attention = false;
  const TrainStep eager = train_step(m, g, r, e);
  // transformers' eager_attention_forward: 26 bytes a score forward, 36 backward, every head and layer.
  const double scores = 8192.0 * 8192.0 * static_cast<double>(m.num_attention_heads * m.num_hidden_layers);
  CHECK_THAT(eager.attention_scores_s, WithinRel(scores * 62.0 / (g.memory_bandwidth_bytes_per_s * e.bandwidth), 1e-9));
  r.flash_attention = true;
  const TrainStep flash = train_step(m, g, r, e);
  CHECK(flash.attention_scores_s < 1e-12);
  CHECK_THAT(eager.step_s - flash.step_s, WithinRel(eager.attention_scores_s, 1e-9));
}

TEST_CASE("train: fp16 mixed precision on a V100 counts bf16's bytes at the fp16 peak", "[train]") {
  TrainRequest r;
  r.layout.dp = 8;
  r.sharding = Sharding::zero2;
  r.seq_tokens = 2048;
  r.precision = TrainPrecision::fp16;
  const GpuSpec& v100 = gpu("v100-sxm2-32gb");
  const TrainMemory half = train_memory(model("llama-2-7b"), v100, r);
  TrainRequest b = r;
  b.precision = TrainPrecision::bf16;
  const TrainMemory bf16 = train_memory(model("llama-2-7b"), gpu("a100-sxm-80gb"), b);
  CHECK_THAT(half.model_states(), WithinRel(bf16.model_states(), 1e-12));
  const TrainStep s = train_step(model("llama-2-7b"), v100, r, TrainEfficiency{});
  CHECK(s.compute_type == "fp16");
  CHECK_THAT(s.peak_flop_per_s, WithinRel(v100.dense_flop_per_s.at("fp16"), 1e-12));
  CHECK_THROWS_WITH(train_memory(model("llama-2-7b"), v100, b), Contains("--precision fp16"));
}

TEST_CASE("train: DeepSpeed ZeRO-3 pays a ring latency per module gather over all DP ranks", "[train]") {
  // Narayanan et al. 2021, Table 2: GPT 174.6B under ZeRO-3, 3,145,728 tokens a step, 200 Gb/s a GPU.
  const ModelSpec gpt = model_from_hf_config_file(gpuplan::test::fixture("megatron-gpt-174.6b.json"));
  TrainEfficiency e;
  e.network_bytes_per_s_per_gpu = 25e9;
  const auto per_gpu = [&](std::uint64_t dp, std::uint64_t micro_batch) {
    TrainRequest r;
    r.layout.dp = dp;
    r.sharding = Sharding::zero3;
    r.recompute = Recompute::full;
    r.seq_tokens = 2048;
    r.micro_batch = micro_batch;
    r.global_batch_tokens = 3145728;
    return train_step(gpt, gpu("a100-sxm-80gb"), r, e);
  };
  const TrainStep at384 = per_gpu(384, 4);
  const TrainStep at1536 = per_gpu(1536, 1);
  // 96 layers x 6 modules, gathered forward and backward, 1,535 hops of 5 us each.
  CHECK(at1536.dp_comm_s > 2.0 * (96.0 * 6.0 - 1.0) * 1535.0 * kNetworkHopLatencyS);
  // Measured 30.7 against 100.4 tokens/s per GPU: the cost per token grows with the ranks.
  CHECK(at1536.tokens_per_s / 1536.0 < 0.75 * at384.tokens_per_s / 384.0);
}

TEST_CASE("train: op-level selective recompute is refused under Megatron and DeepSpeed", "[train]") {
  TrainRequest r;
  r.layout.dp = 8;
  r.recompute = Recompute::selective_op;
  r.framework = TrainFramework::megatron;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("torchtitan"));
  r.framework = TrainFramework::deepspeed;
  CHECK_THROWS_WITH(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r), Contains("torchtitan"));
  r.framework.reset();
  CHECK_NOTHROW(train_memory(model("llama-3.1-8b"), gpu("h100-sxm"), r));
}

// Megatron-LLaMA's README (alibaba/Megatron-LLaMA @46ae7dd): LLaMA-13B on 512 A100s, TP 2, ran at
// 1,430 tokens/s per GPU with Megatron's DistributedOptimizer and 1,845 with its
// OverlappedDistributedOptimizer. Megatron-LM overlaps neither the gradient reduce-scatter nor the
// parameter all-gather unless told (overlap_grad_reduce, overlap_param_gather default False):
// helper s55 found the sync taken as hidden, the DistributedOptimizer run 41 % too fast.
TEST_CASE("train: data-parallel sync overlaps only as the framework does by default", "[train]") {
  TrainRequest r;
  r.layout = {.tp = 2, .pp = 1, .cp = 1, .ep = 1, .dp = 256, .vpp = 1};
  r.sharding = Sharding::zero1;
  r.framework = TrainFramework::megatron;
  r.recompute = Recompute::selective;
  r.micro_batch = 2;
  r.seq_tokens = 2048;
  r.global_batch_tokens = 4194304;
  TrainEfficiency e;
  e.network_bytes_per_s_per_gpu = 100e9 / 8.0;
  const ModelSpec& m = model("llama-2-13b");
  const GpuSpec& g = gpu("a100-sxm-80gb");
  const TrainStep plain = train_step(m, g, r, e);
  CHECK_FALSE(overlaps_grad_reduce(r));
  CHECK_FALSE(overlaps_param_gather(r));
  CHECK(plain.dp_comm_s > 0.3);
  CHECK_THAT(plain.dp_exposed_s, WithinRel(plain.dp_comm_s, 1e-12));
  r.overlap_grad_reduce = true;
  const TrainStep grad_only = train_step(m, g, r, e);
  // The all-gather after the step is half the bytes and hides only with overlap_param_gather.
  CHECK(grad_only.dp_exposed_s >= 0.5 * grad_only.dp_comm_s);
  CHECK(grad_only.dp_exposed_s < plain.dp_exposed_s);
  r.overlap_param_gather = true;
  const TrainStep overlapped = train_step(m, g, r, e);
  CHECK(overlapped.dp_exposed_s < grad_only.dp_exposed_s);
  // The last bucket (max(4e7, 1e6 x DP) parameters) is ready only as the backward ends.
  CHECK(overlapped.dp_exposed_s > 0);
  const double measured_ratio = 1845.0 / 1430.0;
  const double ratio = overlapped.tokens_per_s / plain.tokens_per_s;
  CHECK(ratio > 1.0 + 0.4 * (measured_ratio - 1.0));
  CHECK(ratio < measured_ratio + 0.1);
  // DeepSpeed's ZeRO-1/2 reduce after the backward (overlap_comm off) and have no gather overlap.
  r.overlap_grad_reduce.reset();
  r.overlap_param_gather.reset();
  r.framework = TrainFramework::deepspeed;
  CHECK_FALSE(overlaps_grad_reduce(r));
  r.overlap_param_gather = true;
  CHECK_THROWS_WITH(train_step(m, g, r, e), Contains("train.overlap_param_gather"));
  // Unstated: the stacks the band was set on (PyTorch DDP, NeMo) overlap both.
  r.overlap_param_gather.reset();
  r.framework.reset();
  CHECK(overlaps_grad_reduce(r));
  CHECK(overlaps_param_gather(r));
  r.sharding = Sharding::fsdp;
  r.overlap_grad_reduce = false;
  CHECK_THROWS_WITH(train_step(m, g, r, e), Contains("train.overlap_grad_reduce"));
}

// NeMo Automodel PR 2673: Llama-3.3-70B SFT at PP 8 x FSDP 4 on 32 GPUs, pure bf16, ran out of
// memory on 80 GB H100s at ~75 GiB and was tuned for H200; its FSDP reshards after forward and
// reduce-scatters every micro-batch (params + grads + bf16 Adam ~17.5 GB, sharded). --grad-sync
// each under a pipeline was silently ignored: the stage stayed gathered, 166.8 GB.
TEST_CASE("train: FSDP under a pipeline honours grad-sync each", "[train]") {
  TrainRequest r;
  r.layout = {.tp = 1, .pp = 8, .cp = 1, .ep = 1, .dp = 4, .vpp = 1};
  r.sharding = Sharding::fsdp;
  r.micro_batch = 4;
  r.seq_tokens = 1024;
  r.global_batch_tokens = 131072;
  r.master_weights = MasterWeights::none;
  const ModelSpec& m = model("llama-3.3-70b");
  CHECK(fsdp_stage_unsharded(r));  // unstated: torchtitan's, the stage kept gathered
  const TrainMemory kept = train_memory(m, gpu("h200-sxm"), r);
  r.sync_last_micro_batch = false;
  CHECK_FALSE(fsdp_stage_unsharded(r));
  const TrainMemory each = train_memory(m, gpu("h200-sxm"), r);
  CHECK(each.buckets < 0.4 * kept.buckets);  // three layers gathered and the unsharded ends
  CHECK(each.gradients < 0.3 * kept.gradients);
  CHECK(each.fits);
  CHECK(each.total() / units::kGiB < 120.0);
  CHECK_FALSE(train_memory(m, gpu("h100-sxm"), r).fits);
}

// Google Cloud's OpenLLaMA-7B LoRA report (vertex-ai-samples benchmarking_reports): fp16 LoRA,
// rank 16, batch 2 on one A100-40GB peaks at 20.5 GB at 256 tokens and 28.2 GB at 512, and runs
// out of memory at 1,024. PEFT casts each adapted module's input to the fp32 adapters' dtype and
// autocast's linear keeps a 16-bit copy of it: 2 bytes an element per module the base did not count.
TEST_CASE("train: PEFT LoRA keeps each adapted module's own copy of its input", "[train]") {
  TrainRequest r;
  r.method = TrainMethod::lora;
  r.lora_rank = 16;
  r.micro_batch = 2;
  r.precision = TrainPrecision::fp16;
  r.flash_attention = false;
  const ModelSpec& m = model("llama-2-7b");
  const GpuSpec& g = gpu("a100-sxm-40gb");
  const auto at = [&](std::uint64_t seq) {
    r.seq_tokens = seq;
    return train_memory(m, g, r);
  };
  CHECK_THAT(at(512).total() / 1e9, WithinRel(28.2, 0.12));
  CHECK_FALSE(at(1024).fits);
  // Per token and layer: q, k, v, gate and up read h, o reads h, down reads the 11008-wide
  // intermediate; 2 bytes each for fp32 adapters, none for bf16 ones, 1 more with lora_dropout.
  r.seq_tokens = 512;
  const double h = 4096;
  const double inputs = 6.0 * h + 11008.0;
  const double fp32_adapters = layer_activation_bytes_per_token(m, r).split;
  r.master_weights = MasterWeights::none;
  const double bf16_adapters = layer_activation_bytes_per_token(m, r).split;
  CHECK_THAT(fp32_adapters - bf16_adapters, WithinRel(2.0 * inputs, 1e-9));
  r.lora_dropout = true;
  CHECK_THAT(layer_activation_bytes_per_token(m, r).split - bf16_adapters, WithinRel(3.0 * inputs, 1e-9));
  r.method = TrainMethod::full;
  CHECK_THROWS_WITH(train_memory(m, g, r), Contains("train.lora_dropout"));
}
