#pragma once
// The library names a bad request field ("layout.tp: ..."); people typed a flag. This table maps
// every field the command line can set to its flag. A unit test scans the library's messages
// and fails for a field that is in neither this table nor its list of fields no flag reaches.

#include <string_view>

namespace gpuplan::cli {

struct FieldFlag {
  std::string_view field;  ///< message prefix, with its colon
  std::string_view flag;
};

inline constexpr FieldFlag kFieldFlags[] = {
    {"layout.tp:", "--tp:"},
    {"layout.pp:", "--pp:"},
    {"layout.ep:", "--ep:"},
    {"layout.gpus:", "--gpus:"},
    {"layout.dp:", "--gpus:"},
    {"layout.gpus_per_node:", "--gpus-per-node:"},
    {"fit.context_tokens:", "--context:"},
    {"fit.concurrency:", "--concurrency:"},
    {"fit.memory_utilization:", "--gpu-memory-utilization:"},
    {"fit.reserve_bytes:", "--reserve:"},
    {"fit.mig_profile:", "--mig:"},
    {"fit.prefill_chunk_tokens:", "--prefill-chunk:"},
    {"fit.block_tokens:", "--block-size:"},
    {"engine.name:", "--engine:"},
    {"engine.gpu_memory_utilization:", "--gpu-memory-utilization:"},
    {"engine.mem_fraction_static:", "--mem-fraction-static:"},
    {"engine.kv_cache_free_gpu_mem_fraction:", "--kv-cache-free-gpu-mem-fraction:"},
    {"engine.max_num_batched_tokens:", "--max-num-batched-tokens:"},
    {"engine.max_num_seqs:", "--max-num-seqs:"},
    {"engine.vllm_version:", "--engine-version:"},
    {"model.params:", "--params:"},
    {"weights.experts:", "--experts-dtype:"},
    {"weights.attention:", "--attention-dtype:"},
    {"perf.input_tokens:", "--input:"},
    {"perf.output_tokens:", "--output:"},
    {"perf.batches:", "--batch:"},
    {"perf.sparse:", "--sparse:"},
    {"perf.mig_profile:", "--mig:"},
    {"perf.max_batch:", "--max-batch:"},
    {"perf.network_bytes_per_s_per_gpu:", "--network-gbit-per-s:"},
    {"efficiency.bandwidth:", "--bandwidth-efficiency:"},
    {"efficiency.compute:", "--compute-efficiency:"},
    {"efficiency.link:", "--link-efficiency:"},
    {"efficiency.step_overhead_s:", "--step-overhead-ms:"},
    {"cost.gpus:", "--gpus:"},
    {"cost.output_tokens_per_s:", "--tokens-per-second:"},
    {"cost.utilization:", "--utilization:"},
    {"cost.usd_per_gpu_hour:", "--usd-per-gpu-hour:"},
    {"cost.capex_usd_per_gpu:", "--capex-usd-per-gpu:"},
    {"cost.amortization_years:", "--amortization-years:"},
    {"cost.operations_share_per_year:", "--ops-share:"},
    {"cost.pue:", "--pue:"},
    {"cost.usd_per_kwh:", "--usd-per-kwh:"},
    {"cost.storage_usd_per_month:", "--storage-usd-per-month:"},
    {"cost.egress_usd_per_month:", "--egress-usd-per-month:"},
    {"cost.failed_run_overhead:", "--failed-run-overhead:"},
    {"compare.measured:", "--measured:"},
    {"compare.gpus:", "--gpu:"},
    {"compare.price:", "--price:"},
    {"compare.region:", "--region:"},
    {"region:", "--region:"},
    {"scaling.points:", "--measured:"},
    {"scaling.up_to:", "--up-to:"},
    {"scaling.predict_at:", "--predict-at:"},
    {"scaling.usd_per_gpu_hour:", "--usd-per-gpu-hour:"},
    {"scaling.min_marginal_efficiency:", "--min-marginal-efficiency:"},
    {"scaling.max_cost_increase:", "--max-cost-increase:"},
    {"scale.up_to:", "--up-to:"},
    {"scale.max_batch:", "--max-batch:"},
    {"scale.target_output_tokens_per_s:", "--target-output-tokens-per-s:"},
    {"scale.gpus:", "--gpu:"},
    {"train.micro_batch:", "--micro-batch:"},
    {"train.global_batch_tokens:", "--global-batch-tokens:"},
    {"train.seq_tokens:", "--seq:"},
    {"train.cp:", "--cp:"},
    {"train.vpp:", "--vpp:"},
    {"train.lora_rank:", "--lora-rank:"},
    {"train.offload:", "--offload:"},
    {"train.method:", "--method:"},
    {"train.precision:", "--precision:"},
    {"train_plan.provider:", "--provider:"},
    {"train_plan.tokens:", "--tokens:"},
    {"train_plan.scale:", "--scale:"},
};

/// Fields no flag sets (derived by gpuplan, or taken from the catalog), each with the reason; and
/// prefixes that name the command rather than a field. The scan test accepts these.
inline constexpr FieldFlag kFieldsWithoutFlag[] = {
    {"efficiency.kv_bandwidth:", "calibrated constant"},
    {"efficiency.hop_latency_s:", "calibrated constant"},
    {"efficiency.activation_passes:", "calibrated constant"},
    {"efficiency.gemm_half_flop:", "calibrated constant"},
    {"efficiency.format_exponent:", "calibrated constant"},
    {"cost.input_tokens_per_s:", "derived from the output rate and --input/--output"},
    {"cost.gpu_power_w:", "the catalog GPU's TDP"},
    {"engine.inputs:", "the catalog GPU's memory and the weights"},
    {"cost:", "rental or owned: the flags already exclude each other"},
    {"perf:", "names the command: a bare --params has no architecture"},
    {"compare:", "names the command"},
    {"calibrate:", "names `validate --calibrate`"},
};

}  // namespace gpuplan::cli
