#include "workload.hpp"

#include <charconv>
#include <string>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/units.hpp>

#include "common.hpp"

namespace gpuplan::cli {
// 1e10 tok/s is past what 2^16 GPUs (the largest deployment) could serve of any model.
constexpr double kMostTargetTokensPerS = 1e10;
constexpr double kLeastTargetTokensPerS = 1;

CLI::Validator target_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size() || !(v > 0)) {
          return fmt::format("expected a positive number of output tokens/s, got '{}'", text);
        }
        // Shown in whole tokens/s, and priced per token: 1e-300 was shown as 1 and refused by
        // cost as "--tokens-per-second".
        if (v < kLeastTargetTokensPerS) {
          return fmt::format("expected at least 1 output token/s, got '{}'", text);
        }
        return v <= kMostTargetTokensPerS
                   ? std::string()
                   : fmt::format("expected at most 1e10 output tokens/s (more than 65,536 GPUs serve), got '{}'", text);
      },
      "TOKENS/S");
}


void add_workload_options(CLI::App& sub, WorkloadOptions& o, bool concurrency, bool target) {
  CLI::Option* concurrency_flag = nullptr;
  if (concurrency) {
    concurrency_flag = sub.add_option("--concurrency", o.concurrency,
                                      "Concurrent sequences over the deployment: throughput, latency and cost at "
                                      "this load (default: full load, the largest batch memory and the engine allow)")
                           ->transform(whole_number())
                           ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100'000'000}));
  }
  if (target) {
    CLI::Option* target_flag =
        sub.add_option("--target-output-tokens-per-s", o.target_output_tokens_per_s,
                       "Output tokens/s the deployment must serve, instead of --concurrency: the smallest batch per "
                       "replica that reaches it; without --gpus/--nodes, as many replicas as it needs")
            ->transform(decimal_number())
            ->check(target_validator());
    if (concurrency_flag != nullptr) {
      target_flag->excludes(concurrency_flag);
    }
  }
  sub.add_option("--input", o.input, "Prompt tokens per request; 32k = 32768 (k = 1024, M = 1024^2)")
      ->capture_default_str()
      ->transform(token_count())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  sub.add_option("--output", o.output, "Generated tokens per request; 1k = 1024")
      ->capture_default_str()
      ->transform(token_count())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  sub.add_flag("--sparse", o.sparse, "Use 2:4-sparse peak FLOPs (inference normally runs dense)");
  sub.add_option("--bandwidth-efficiency", o.efficiency.bandwidth, "Achievable share of memory bandwidth")
      ->capture_default_str()
      ->check(share_validator());
  sub.add_option("--compute-efficiency", o.efficiency.compute, "Achievable share of dense peak FLOPs")
      ->capture_default_str()
      ->check(share_validator());
  sub.add_option("--link-efficiency", o.efficiency.link, "Achievable share of link bandwidth")
      ->capture_default_str()
      ->check(share_validator());
  sub.add_option("--step-overhead-ms", o.step_overhead_ms, "Fixed cost per forward pass, milliseconds")
      ->capture_default_str()
      ->transform(decimal_number())->check(CLI::Range(0.0, 10000.0));
  sub.add_option("--layer-overhead-us", o.layer_overhead_us, "Fixed cost per layer and forward pass, microseconds")
      ->capture_default_str()
      ->transform(decimal_number())->check(CLI::Range(0.0, 100000.0));
  sub.add_option("--max-batch", o.max_batch,
                 "Batch cap per replica (TensorRT-LLM's max_batch_size 2048); with --engine vllm or trtllm the "
                 "engine's own cap also applies (vLLM max_num_seqs: 1024 in V1 on GPUs of 70 GiB or more but the "
                 "A100, else 256); SGLang's own cap is its max_running_requests (from its KV pool, 2048 to 4096), "
                 "which this lowers")
      ->capture_default_str()
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, kMaxBatchLimit))
      ->each([&o](const std::string&) { o.max_batch_given = true; });
  add_network_option(sub, o.network_gbit_per_s);
}

void add_arrivals_option(CLI::App& sub, WorkloadOptions& o) {
  sub.add_option("--arrivals", o.arrivals,
                 "How prompts arrive, for the mean TTFT under load: burst (the batch's prompts at once, as a "
                 "benchmark sends them) or poisson (at random, at the rate the batch sustains); default poisson "
                 "with a target output rate, else burst")
      ->check(CLI::IsMember({"burst", "poisson"}));
}

void add_cached_input_option(CLI::App& sub, WorkloadOptions& o) {
  sub.add_option("--cached-input", o.cached_input,
                 "Prompt tokens per request the engine's prefix cache already holds (a shared system prompt, "
                 "a resent prompt; vLLM V1 and SGLang cache prefixes by default): prefill computes the rest, "
                 "the KV cache still holds the whole prompt; below --input; 1k = 1024")
      ->capture_default_str()
      ->transform(token_count());
}

Arrivals arrivals_for(const WorkloadOptions& o, bool target_rate) {
  if (const std::optional<Arrivals> given = parse_arrivals(o.arrivals)) {
    return *given;
  }
  return target_rate ? Arrivals::poisson : Arrivals::burst;
}

std::optional<std::uint64_t> planned_concurrency(const WorkloadOptions& o) {
  return o.concurrency > 0 ? std::optional(o.concurrency) : std::nullopt;
}

std::optional<double> planned_target(const WorkloadOptions& o) {
  return o.target_output_tokens_per_s > 0 ? std::optional(o.target_output_tokens_per_s) : std::nullopt;
}

bool size_for_target(const WorkloadOptions& w, const DeploymentOptions& d) {
  return w.target_output_tokens_per_s > 0 && d.gpus == 0 && d.nodes == 0 && d.mig.empty();
}

std::uint64_t layout_search_gpus(bool sized_for_target, bool layout_given, std::uint64_t gpus_per_node,
                                 std::uint64_t gpus) {
  return sized_for_target && !layout_given ? gpus_per_node : gpus;
}

void apply_workload(const WorkloadOptions& o, PerfRequest& request) {
  request.fit.context_tokens = o.input + o.output;
  request.fit.prompt_tokens = o.input;
  request.fit.concurrency = 1;
  request.input_tokens = o.input;
  if (o.cached_input >= o.input) {
    throw InputError(fmt::format("--cached-input: expected below --input {} (an engine computes at least a "
                                 "prompt's last token), got {}",
                                 o.input, o.cached_input));
  }
  request.cached_input_tokens = o.cached_input;
  request.output_tokens = o.output;
  request.sparse = o.sparse;
  request.efficiency = o.efficiency;
  request.efficiency.step_overhead_s = o.step_overhead_ms / 1e3 + 0.0;  // + 0.0 turns -0 into 0
  request.efficiency.layer_overhead_s = o.layer_overhead_us / 1e6 + 0.0;
  request.max_batch = o.max_batch_given ? o.max_batch : default_max_batch(request.fit.engine.engine);
  request.network_bytes_per_s_per_gpu = units::gbit_per_s_to_bytes_per_s(o.network_gbit_per_s);
  request.arrivals = arrivals_for(o, o.target_output_tokens_per_s > 0);
}

}  // namespace gpuplan::cli
