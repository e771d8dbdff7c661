#include <gpuplan/calibration.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <gpuplan/bench_settings.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/output_drain.hpp>
#include <gpuplan/queue_wait.hpp>
#include <gpuplan/weight_choice.hpp>

#include "detail/median.hpp"

namespace gpuplan {
namespace {

PerfRequest request_for(const Benchmark& b, const Efficiency& e) {
  PerfRequest r;
  r.fit.layout = b.layout;
  r.fit.weights_dtype = b.weights_dtype;
  r.fit.kv_dtype = b.kv_dtype;
  r.input_tokens = b.input_tokens;
  r.output_tokens = b.output_tokens;
  r.cached_input_tokens = b.cached_input_tokens;
  r.efficiency = e;
  if (b.vllm) {
    r.kernels = Engine::vllm;
  } else if (b.tensorrt_llm) {
    r.kernels = Engine::trtllm;  // its own all-reduce over PCIe peers (PerfModel: own_allreduce)
  }
  r.eager = b.eager;  // no CUDA graphs: the host's launches floor every step
  r.vllm_minor_version = b.vllm_minor_version;
  if (b.max_batch > 0) {
    r.max_batch = b.max_batch;
  }
  if (b.tensorrt_llm && (b.max_batch == 0 || b.memory_share)) {
    // trtllm-bench's rows (prepare): the KV cache TensorRT-LLM's own arithmetic gives (which also
    // keeps the whole context in windowed and chunked layers), at the row's own
    // kv_cache_free_gpu_mem_fraction or the one the perf overview says its runs mostly used
    // ("0.95 ... We fall back to 0.90").
    r.fit.engine.engine = Engine::trtllm;
    r.fit.engine.kv_cache_free_gpu_mem_fraction = b.memory_share.value_or(0.95);
    // A run that measured its throughput served every prompt: prompts longer than its step were
    // chunked (trtllm-serve would refuse them otherwise; EngineSettings::trtllm_chunked_prefill).
    r.fit.engine.trtllm_chunked_prefill = true;
  } else if (b.memory_share) {
    r.fit.memory_utilization = *b.memory_share;
  }
  if (b.step_tokens) {
    r.fit.prefill_chunk_tokens = *b.step_tokens;
    if (r.fit.engine.engine == Engine::trtllm) {
      r.fit.engine.max_num_batched_tokens = *b.step_tokens;
    }
  }
  return r;
}

// The model of one benchmark, built once; efficiencies are then cheap to try.
struct Prepared {
  const Benchmark* benchmark;
  std::unique_ptr<PerfModel> model;
  std::uint64_t batch;
  std::uint64_t requests = 0;  ///< of the busiest replica; 0: steady state
};

Prepared prepare(const Catalog& catalog, const Benchmark& b) {
  const ModelSpec& model = catalog.model(b.model);
  const GpuSpec& gpu = catalog.gpu(b.gpu);
  // A rate no GPU could compute (a unit or digit slip) would drag a calibration to zero overheads.
  check_measured_rate(model, gpu, b.layout.gpus(), b.output_tokens_per_s,
                      fmt::format("benchmark '{}': output_tokens_per_s", b.id));
  if (b.refused) {  // the file's reader refused the row: nothing to time
    return {.benchmark = &b, .model = nullptr, .batch = 0};
  }
  PerfRequest request = request_for(b, Efficiency{});
  // A row's GPUs sit in nodes of its systems' size: two DGX Sparks talk over ConnectX-7.
  request.fit.gpus_per_node = gpu.default_gpus_per_node();
  if (b.weight_only_int8) {  // W8A16: the same bytes as INT8, its GEMMs in 16 bits
    request.fit.weight_formats =
        choose_weight_formats(model, WeightChoice{.all = parse_weight_format("w8a16", "precision")});
  } else if (b.shipped_formats) {
    request.fit.weight_formats = choose_weight_formats(model, WeightChoice{});
  }
  auto pm = std::make_unique<PerfModel>(model, gpu, request);
  if (b.max_batch == 0) {
    // No cap given: the measurements are trtllm-bench's, which sizes the batch and the step's
    // tokens from the KV cache and the workload (bench_settings.hpp).
    const BenchEngineSettings s =
        trtllm_bench_settings(pm->max_batch_by_memory(), b.input_tokens, b.output_tokens, b.layout.pp);
    // Per micro-batch: PP of them in flight; a row's own max_batch_size caps the rule's.
    const std::uint64_t stated = b.trtllm_max_batch > 0 ? b.trtllm_max_batch : UINT64_MAX;
    request.max_batch = std::min(s.max_batch * b.layout.pp, stated);
    const std::uint64_t step_tokens = b.step_tokens.value_or(s.max_num_tokens);  // the row's own, if stated
    request.fit.prefill_chunk_tokens = step_tokens;
    if (b.tensorrt_llm) {  // the same settings size TensorRT-LLM's activation profiling
      request.fit.engine.max_num_batched_tokens = step_tokens;
      request.fit.engine.max_num_seqs = std::min(s.max_batch, stated / b.layout.pp);
    }
    pm = std::make_unique<PerfModel>(model, gpu, request);
  }
  // A run no engine runs (FP8 weights before Ampere) is refused, not timed at a batch.
  const std::uint64_t batch = pm->fit().no_engine_runs ? 0 : pm->full_load_batch();
  // The replicas share the run's requests; the busiest replica has the most.
  const std::uint64_t requests = (b.requests + b.layout.dp - 1) / b.layout.dp;
  return {.benchmark = &b, .model = std::move(pm), .batch = batch, .requests = requests};
}

// Output tokens per second over a finite run (0 requests: the steady state at the full batch).
// All are queued at once: a replica admits as many as its batch holds; having equal lengths, they
// finish together and the next wave starts (in step: staggered admission would taper the last
// wave instead). A run of fewer requests than the batch never reaches it; a run of more ends on a
// partial wave. The run lasts as long as its busiest replica (the requests rounded up over DP).
double run_output_tokens_per_s(const Prepared& p, const Efficiency& e) {
  const double at_full_batch = p.model->evaluate(p.batch, e).output_tokens_per_s;
  if (p.requests == 0) {
    return at_full_batch;
  }
  const auto rate = [&](std::uint64_t batch) {
    return batch == p.batch ? at_full_batch : p.model->evaluate(batch, e).output_tokens_per_s;
  };
  const std::uint64_t wave = std::min(p.batch, p.requests);
  const double replicas = static_cast<double>(p.benchmark->layout.dp);
  if (p.benchmark->output_lengths != OutputLengths::fixed) {
    // Lengths that spread: a finished request's place goes to the next queued one, so the batch
    // stays full until the queue is empty, then drains (output_drain.hpp), to each answer's cap.
    const Benchmark& b = *p.benchmark;
    const double seconds =
        static_cast<double>(p.requests - wave) / rate(wave) +
        drain_seconds_per_token(b.output_lengths, static_cast<double>(b.output_tokens), b.max_output_tokens, wave, rate);
    return static_cast<double>(p.benchmark->requests) / (seconds * replicas);
  }
  const std::uint64_t last = p.requests % wave;
  // Seconds per output token of a wave of b requests: 1 / rate(b), for b x output tokens.
  double seconds = static_cast<double>(p.requests - last) / rate(wave);
  if (last > 0) {
    seconds += static_cast<double>(last) / rate(last);
  }
  // `rate` is every replica's at that batch: the busiest replica's share of it is 1 / DP.
  return static_cast<double>(p.benchmark->requests) / (seconds * replicas);
}

// The mean TTFT of the busiest replica's requests, from their send (queue_wait.hpp), at the rate
// the run reaches at `run_batch`. Requests that arrive together (the first batch, each wave of
// equal lengths) take the batch's TTFT; one admitted alone to a running batch, as a finished
// request's slot frees (clients in a closed loop, a queue behind lengths that spread), waits for
// the slot, then prefills in one step beside the batch's decodes.
double ttft_from_send_s(const Prepared& p, std::uint64_t run_batch, const PerfPoint& at_run) {
  const Benchmark& b = *p.benchmark;
  const double replica_tokens_per_s = at_run.output_tokens_per_s / static_cast<double>(b.layout.dp);
  if (!(replica_tokens_per_s > 0) || run_batch == 0) {
    return at_run.ttft_s;
  }
  const double requests_per_s = replica_tokens_per_s / static_cast<double>(b.output_tokens);
  const double admitted_alone_s = at_run.ttft_alone_s + at_run.step_s;
  const bool burst = p.requests > 0 && (b.concurrency == 0 || b.concurrency >= p.requests);
  if (!burst) {
    return closed_loop_ttft_s(b.concurrency, run_batch, p.requests, b.output_lengths == OutputLengths::fixed,
                              at_run.ttft_s, admitted_alone_s, requests_per_s);
  }
  if (p.requests <= run_batch) {
    return at_run.ttft_s;
  }
  const bool waves = b.output_lengths == OutputLengths::fixed;
  const double wait_s = burst_wait_s(p.requests, run_batch, waves, static_cast<double>(run_batch) / requests_per_s,
                                     requests_per_s);
  if (waves) {
    return at_run.ttft_s + wait_s;
  }
  const double first = static_cast<double>(run_batch);
  const double queued = static_cast<double>(p.requests - run_batch);
  return (first * at_run.ttft_s + queued * admitted_alone_s) / (first + queued) + wait_s;
}

// Why a run gets no batch, in one clause for validate's summary: the engine does not run it, the
// weights (with activations and reserve) exceed the memory, or one sequence's KV cache does not fit.
std::string refusal_reason(const FitResult& f) {
  if (f.no_engine_runs) {
    return *f.no_engine_runs;
  }
  if (const std::optional<std::string> problem = engine_start_problem(f)) {
    return *problem;
  }
  if (!f.weights_fit) {
    // A run that served it held the weights elsewhere (CPU offload) or in another format or layout.
    return fmt::format("weights {:.2f} GB per GPU, with activations and reserve, exceed the {:.2f} GB it may use by {:.2f} GB "
                       "(gpuplan does not model serving with weights offloaded to CPU memory)",
                       f.per_gpu.weights_bytes / 1e9, f.per_gpu.engine_cap_bytes / 1e9,
                       f.per_gpu.fixed_over_cap_bytes / 1e9);
  }
  return fmt::format("one sequence's KV cache ({:.2f} GB per GPU) does not fit in the {:.2f} GB left after the weights",
                     f.sequence_kv_bytes_per_gpu / 1e9, f.per_gpu.kv_budget_bytes / 1e9);
}

BenchmarkCheck check(const Prepared& p, const Efficiency& e) {
  BenchmarkCheck c;
  c.benchmark = p.benchmark;
  c.batch = p.batch;
  c.run_batch = p.requests > 0 ? std::min(p.batch, p.requests) : p.batch;
  if (p.benchmark->refused) {
    c.refused = p.benchmark->refused;
    return c;
  }
  if (p.batch == 0) {
    c.refused = refusal_reason(p.model->fit());  // no bound, no estimate
    return c;
  }
  const Benchmark& b = *p.benchmark;
  // The bound does not trust gpuplan's own engine arithmetic to size the batch: a run may hold
  // more sequences than it allows (a conservative reserve, an unstated engine setting), up to
  // what the whole memory beyond the weights holds, or the run's stated concurrency or requests.
  std::uint64_t bound_batch = p.model->physical_max_batch();
  if (b.max_batch > 0) {
    bound_batch = std::min(bound_batch, b.max_batch);
  }
  if (b.trtllm_max_batch > 0) {  // an engine never runs more sequences than its stated cap
    bound_batch = std::min(bound_batch, b.trtllm_max_batch);
  }
  if (p.requests > 0) {
    bound_batch = std::min(bound_batch, p.requests);
  }
  // Never below the batch the estimate runs at (its own engine arithmetic may hold more than the
  // physical rule above), which is itself capped by the requests.
  const PerfPoint bound = p.model->evaluate(std::max(bound_batch, c.run_batch), Efficiency::roofline());
  // With only an upper bound on the input length, prefill work is unknown: the decode-only rate
  // is still an upper bound on output tokens per second.
  c.roofline_tokens_per_s = b.input_tokens_is_upper_bound ? bound.decode_tokens_per_s : bound.output_tokens_per_s;
  c.bound_holds = c.roofline_tokens_per_s >= b.output_tokens_per_s;
  if (!b.input_tokens_is_upper_bound) {
    c.estimate_tokens_per_s = run_output_tokens_per_s(p, e);
    c.error = c.estimate_tokens_per_s / b.output_tokens_per_s - 1.0;
    c.has_estimate = true;
    const PerfPoint at_run = p.model->evaluate(c.run_batch, e);
    c.estimate_itl_s = at_run.itl_s;
    c.estimate_step_s = at_run.step_s;
    if (b.measured_tpot_s) {
      c.itl_error = c.estimate_itl_s / *b.measured_tpot_s - 1.0;
    }
    // A benchmark's mean TTFT runs from the request's send: requests beyond the batch first wait
    // for a slot (meas-amd s56: GLM-4.5-Air's 100 prompts of 32K on a 14-sequence cache measured
    // 248 s against 9.3 s without it). Clients beyond the batch in a closed loop, or a burst of
    // requests beyond it (all sent at once, a stated concurrency at least the requests' count).
    c.estimate_ttft_s = ttft_from_send_s(p, c.run_batch, at_run);
    c.estimate_ttft_alone_s = at_run.ttft_alone_s;
    if (b.measured_ttft_s) {
      c.ttft_error = c.estimate_ttft_s / *b.measured_ttft_s - 1.0;
    }
  }
  return c;
}

// measured = estimate x (1 + residual)
double residual_of(const BenchmarkCheck& c) { return 1.0 / (1.0 + c.error) - 1.0; }

// Each estimate with the band `perf` would print for its model, GPU and format, and whether the
// measurement falls inside it: on a user's own measurements, how far to trust the bands.
Calibration summarize(const Catalog& catalog, std::vector<BenchmarkCheck> checks, const Efficiency& e) {
  Calibration cal;
  cal.efficiency = e;
  std::vector<double> errors;
  bool first = true;
  for (BenchmarkCheck& c : checks) {
    if (!c.has_estimate) {
      continue;
    }
    const Benchmark& b = *c.benchmark;
    c.band = for_layout(estimate_band(catalog, catalog.model(b.model), catalog.gpu(b.gpu), b.weights_dtype,
                                      b.tensorrt_llm || b.engine.empty()),
                        b.layout, catalog.gpu(b.gpu).default_gpus_per_node());
    const double r = residual_of(c);
    // An eager run's steps are floored at the host's launch time (kEagerHostSPerKernel), a figure
    // the band's residuals never saw: its estimate is no test of the band.
    c.inside_band = !b.eager && r >= c.band.band.low && r <= c.band.band.high;
    cal.inside_band += c.inside_band ? 1 : 0;
    cal.eager_rows += b.eager ? 1 : 0;
    errors.push_back(std::abs(c.error));
    if (c.benchmark->calibrate) {
      // measured = estimate x (1 + residual)
      cal.lowest_residual = first ? r : std::min(cal.lowest_residual, r);
      cal.highest_residual = first ? r : std::max(cal.highest_residual, r);
      first = false;
      ++cal.calibration_points;
    }
  }
  if (!errors.empty()) {
    cal.median_abs_error = detail::median(errors);
    cal.worst_abs_error = *std::max_element(errors.begin(), errors.end());
  }
  // Latency against what the rows publish: the figure under load (its median and worst) and the
  // simpler one beside it (its median), over the rows that give the measurement.
  const auto latency = [&checks](auto error_of, auto simpler_error_of, int& rows, double& median, double& worst,
                                 double& simpler_median) {
    std::vector<double> under_load;
    std::vector<double> simpler;
    for (const BenchmarkCheck& c : checks) {
      if (const std::optional<double> error = error_of(c)) {
        under_load.push_back(std::abs(*error));
        simpler.push_back(std::abs(simpler_error_of(c)));
      }
    }
    if (!under_load.empty()) {
      rows = static_cast<int>(under_load.size());
      median = detail::median(under_load);
      worst = *std::max_element(under_load.begin(), under_load.end());
      simpler_median = detail::median(simpler);
    }
  };
  latency([](const BenchmarkCheck& c) { return c.itl_error; },
          [](const BenchmarkCheck& c) { return c.estimate_step_s / *c.benchmark->measured_tpot_s - 1.0; },
          cal.latency_rows, cal.median_abs_itl_error, cal.worst_abs_itl_error, cal.median_abs_step_error);
  latency([](const BenchmarkCheck& c) { return c.ttft_error; },
          [](const BenchmarkCheck& c) { return c.estimate_ttft_alone_s / *c.benchmark->measured_ttft_s - 1.0; },
          cal.ttft_rows, cal.median_abs_ttft_error, cal.worst_abs_ttft_error, cal.median_abs_ttft_alone_error);
  cal.checks = std::move(checks);
  return cal;
}

}  // namespace

BenchmarkCheck check_benchmark(const Catalog& catalog, const Benchmark& b, const Efficiency& efficiency) {
  return check(prepare(catalog, b), efficiency);
}

std::vector<std::string> shipped_benchmarks_on_changed_entries(const Catalog& catalog) {
  struct Effect {
    int uses = 0;
    int failures = 0;
    std::string first_failure;
  };
  std::map<std::string, Effect> effects;  // "GPU 'h100-sxm'" -> its benchmarks
  for (const Benchmark& b : Catalog::builtin().benchmarks()) {
    const GpuSpec* gpu = catalog.find_gpu(b.gpu);
    const ModelSpec* model = catalog.find_model(b.model);
    std::vector<std::string> changed;
    if (gpu != nullptr && differs_from_builtin(*gpu)) {
      changed.push_back(fmt::format("GPU '{}'", b.gpu));
    }
    if (model != nullptr && differs_from_builtin(*model)) {
      changed.push_back(fmt::format("model '{}'", b.model));
    }
    if (changed.empty()) {
      continue;
    }
    std::string failure;
    try {
      (void)check_benchmark(catalog, b, Efficiency{});
    } catch (const InputError& e) {
      failure = fmt::format("benchmark '{}': {}", b.id, e.what());
    }
    for (const std::string& entry : changed) {
      Effect& effect = effects[entry];
      ++effect.uses;
      if (!failure.empty()) {
        effect.failures += 1;
        if (effect.first_failure.empty()) {
          effect.first_failure = failure;
        }
      }
    }
  }
  std::vector<std::string> lines;
  for (const auto& [entry, effect] : effects) {
    lines.push_back(fmt::format(
        "{} is used by {} shipped benchmark{}; {}; calibration and uncertainty bands keep the built-in entry",
        entry, effect.uses, effect.uses == 1 ? "" : "s",
        effect.failures == 0 ? std::string("each still evaluates with this file's entry")
                             : fmt::format("{} fail with this file's entry (first: {})", effect.failures,
                                           effect.first_failure)));
  }
  return lines;
}

Calibration validate_benchmarks(const Catalog& catalog, const Efficiency& efficiency) {
  return validate_benchmarks(catalog, efficiency, catalog.benchmarks());
}

Calibration validate_benchmarks(const Catalog& catalog, const Efficiency& efficiency,
                                const std::vector<Benchmark>& benchmarks) {
  validate_efficiency(efficiency);
  std::vector<BenchmarkCheck> checks;
  for (const Benchmark& b : benchmarks) {
    checks.push_back(check(prepare(catalog, b), efficiency));
  }
  return summarize(catalog, std::move(checks), efficiency);
}

Calibration calibrate(const Catalog& catalog) { return calibrate(catalog, catalog.benchmarks()); }

namespace {

bool fitted_row(const Prepared& p) {
  return p.benchmark->calibrate && p.batch > 0 && !p.benchmark->input_tokens_is_upper_bound;
}

// One free parameter of the fit: a field of Efficiency and the physically plausible range it
// is searched in.
struct FreeParameter {
  double Efficiency::*field;
  double lo;
  double hi;
};

// Bandwidth efficiency stays below 0.92: measured HBM streams top out near 90 %, and letting it
// reach 1 would only trade against the overhead term.
constexpr std::array kFreeParameters{
    FreeParameter{&Efficiency::bandwidth, 0.40, 0.92},
    // Large GEMMs alone reach at most ~87 % of dense peak (max achievable matmul, A100 bf16, in
    // calibration.json); formats reach a share of it through format_exponent (format_share).
    FreeParameter{&Efficiency::compute, 0.30, 0.87},
    FreeParameter{&Efficiency::kv_bandwidth, 0.20, 1.00},
    // One forward pass's launches with CUDA graphs, its scheduling and sampling: about a
    // millisecond, what separates a small model's batch-1 step from reading its weights. Work
    // that grows with the batch belongs to the per-sequence and per-token terms; a larger bound
    // lets max-load rows (large batches only) trade the two and breaks small-batch latency and
    // the H200/H100 ratio of small models (issue 8, class 3).
    FreeParameter{&Efficiency::step_overhead_s, 0.0, 0.0015},
    // A dozen-odd kernels a layer at a few microseconds each (launch within a CUDA graph, ramp
    // and tail): at most 50 us a layer, 4 ms for an 80-layer model's step. The max-load rows
    // alone would take more (the fit sits at the bound), at the cost of small-batch latency,
    // which no shipped row pins.
    FreeParameter{&Efficiency::layer_overhead_s, 0.0, 50e-6},
    FreeParameter{&Efficiency::activation_passes, 0.0, 400.0},
    // Host bookkeeping per running request and step: microseconds.
    FreeParameter{&Efficiency::sequence_overhead_s, 0.0, 20e-6},
    // Held fixed, not fitted: only one shipped group (Qwen3-30B-A3B, 128 experts of width 768)
    // has enough routed copies per FLOP to pin it, so a cross-validation that leaves that group
    // out would fit it to zero and miss the group by 2.4x. 0.45 ms per GB (2.2 TB/s) is the
    // all-data fit; the cross-validated figures of that group are therefore not fully unseen.
    FreeParameter{&Efficiency::routed_copy_s_per_gb, 0.45e-3, 0.45e-3},
    // At most 1 GFLOP: stream-K / split-K kernels (cuBLAS, CUTLASS, TensorRT-LLM) keep every SM
    // busy once each has one 128x128 output tile running a few K steps, 132 SMs x 2 x 128 x 128 x
    // ~256 ~ 1.1 GFLOP; smaller GEMMs are bound by reading their weights, which the memory term
    // already charges. A larger fitted value only absorbs other per-token costs (Qwen3-30B-A3B's
    // 1024-token TTFT on B200 went from 3.4 to 21.6 ms at 3.3 GFLOP). The fit sits at this bound
    // since MoE GEMMs are timed as one grouped GEMM per layer (their tile rows padded).
    FreeParameter{&Efficiency::gemm_half_flop, 0.0, 1e9},
    FreeParameter{&Efficiency::format_exponent, 0.0, 1.0},
};

// Log errors are robust-fitted at this scale: rows within ~10 % count as in least squares.
constexpr double kRobustScale = 0.1;

// Fits the free parameters to the rows `use` selects: a robust (Cauchy) loss on log error, so
// that one group whose physics the model lacks does not drag every other group off. Coordinate descent: a coarse scan
// of each parameter's range, then golden-section search around the best scan point, repeated
// until a sweep no longer improves. Deterministic (always starts from the middle of each range).
template <typename Use>
Efficiency fit_efficiency(const std::vector<Prepared>& all, Use use) {
  std::vector<const Prepared*> rows;
  for (const Prepared& p : all) {
    if (fitted_row(p) && use(*p.benchmark)) {
      rows.push_back(&p);
    }
  }
  if (rows.empty()) {
    throw InputError("calibrate: no benchmark is marked \"calibrate\" with a known input length and a layout that fits");
  }
  const auto loss = [&rows](const Efficiency& e) {
    double sum = 0;
    for (const Prepared* p : rows) {
      const double estimate = run_output_tokens_per_s(*p, e);
      const double log_error = std::abs(std::log(estimate / p->benchmark->output_tokens_per_s));
      // Cauchy loss: a row the model cannot explain (log error >> 0.1) weighs like a few good
      // ones instead of bending the fit for every other model, GPU and format.
      sum += std::log1p(log_error * log_error / (kRobustScale * kRobustScale));
    }
    return sum;
  };
  Efficiency best;
  for (const FreeParameter& f : kFreeParameters) {
    best.*f.field = (f.lo + f.hi) / 2.0;
  }
  double best_loss = loss(best);
  constexpr int kScan = 12;
  constexpr int kSweeps = 40;
  constexpr double kGolden = 0.6180339887498949;
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    const double before = best_loss;
    for (const FreeParameter& f : kFreeParameters) {
      Efficiency e = best;
      const auto at = [&](double v) {
        e.*f.field = v;
        return loss(e);
      };
      const double step = (f.hi - f.lo) / kScan;
      int best_i = -1;
      for (int i = 0; i <= kScan; ++i) {
        const double l = at(f.lo + step * i);
        if (l < best_loss) {
          best_loss = l;
          best_i = i;
        }
      }
      double center = best_i >= 0 ? f.lo + step * best_i : best.*f.field;
      double a = std::max(f.lo, center - step);
      double b = std::min(f.hi, center + step);
      double c = b - kGolden * (b - a);
      double d = a + kGolden * (b - a);
      double lc = at(c);
      double ld = at(d);
      for (int it = 0; it < 30; ++it) {
        if (lc < ld) {
          b = d;
          d = c;
          ld = lc;
          c = b - kGolden * (b - a);
          lc = at(c);
        } else {
          a = c;
          c = d;
          lc = ld;
          d = a + kGolden * (b - a);
          ld = at(d);
        }
      }
      const double v = lc < ld ? c : d;
      const double lv = std::min(lc, ld);
      if (lv < best_loss) {
        best_loss = lv;
        center = v;
      }
      best.*f.field = center;
    }
    if (before - best_loss <= 1e-12 * std::max(1.0, before)) {
      break;
    }
  }
  return best;
}

std::vector<Prepared> prepare_all(const Catalog& catalog, const std::vector<Benchmark>& benchmarks) {
  std::vector<Prepared> all;
  all.reserve(benchmarks.size());
  for (const Benchmark& b : benchmarks) {
    all.push_back(prepare(catalog, b));
  }
  return all;
}

}  // namespace

Calibration calibrate(const Catalog& catalog, const std::vector<Benchmark>& benchmarks) {
  const std::vector<Prepared> all = prepare_all(catalog, benchmarks);
  const Efficiency best = fit_efficiency(all, [](const Benchmark&) { return true; });
  std::vector<BenchmarkCheck> checks;
  for (const Prepared& p : all) {
    checks.push_back(check(p, best));
  }
  return summarize(catalog, std::move(checks), best);
}

CrossValidation cross_validate(const Catalog& catalog, const std::vector<Benchmark>& benchmarks) {
  const std::vector<CalibrationGroupKey> groups = calibration_groups(benchmarks);
  if (groups.size() < 2) {
    throw InputError("cross-validate: needs benchmarks marked \"calibrate\" from at least two model x GPU x format "
                     "groups");
  }
  const std::vector<Prepared> all = prepare_all(catalog, benchmarks);
  const auto in = [](const CalibrationGroupKey& k, const Benchmark& b) {
    return b.model == k.model && b.gpu == k.gpu && b.weights_dtype == k.weights_dtype;
  };
  CrossValidation cv;
  std::vector<double> errors;
  for (const CalibrationGroupKey& key : groups) {
    CrossValidationGroup g;
    g.model = key.model;
    g.gpu = key.gpu;
    g.weights_dtype = key.weights_dtype;
    std::vector<CalibrationGroupKey> rest;
    for (const CalibrationGroupKey& k : groups) {
      if (!(k.model == key.model && k.gpu == key.gpu && k.weights_dtype == key.weights_dtype)) {
        rest.push_back(k);
      }
    }
    g.band_case = band_case(catalog, catalog.model(key.model), catalog.gpu(key.gpu), key.weights_dtype, rest);
    g.efficiency = fit_efficiency(all, [&](const Benchmark& b) { return !in(key, b); });
    std::vector<double> group_errors;
    for (const Prepared& p : all) {
      if (!fitted_row(p) || !in(key, *p.benchmark)) {
        continue;
      }
      const BenchmarkCheck c = check(p, g.efficiency);
      group_errors.push_back(std::abs(c.error));
      g.checks.push_back(c);
    }
    g.median_abs_error = detail::median(group_errors);
    g.worst_abs_error = group_errors.empty() ? 0.0 : *std::max_element(group_errors.begin(), group_errors.end());
    cv.rows += static_cast<int>(group_errors.size());
    errors.insert(errors.end(), group_errors.begin(), group_errors.end());
    cv.groups.push_back(std::move(g));
  }
  cv.median_abs_error = detail::median(errors);
  cv.worst_abs_error = errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end());
  const Calibration in_sample = validate_benchmarks(catalog, Efficiency{}, benchmarks);
  cv.derived_bands = bands_from(in_sample, cv);
  // Each group is checked against the band the other groups alone give its case: the band must
  // hold for a group it was not derived from, as for any request the data has not seen.
  for (std::size_t i = 0; i < cv.groups.size(); ++i) {
    CrossValidationGroup& g = cv.groups[i];
    g.band = bands_from(in_sample, cv, i)[static_cast<std::size_t>(g.band_case)];
    for (const BenchmarkCheck& c : g.checks) {
      const double r = residual_of(c);
      g.inside_band += (r >= g.band.low && r <= g.band.high) ? 1 : 0;
    }
    cv.inside_band += g.inside_band;
  }
  return cv;
}

std::vector<Band> bands_from(const Calibration& in_sample, const CrossValidation& cv, std::optional<std::size_t> without) {
  std::vector<CaseResiduals> residuals;
  for (const BenchmarkCheck& c : in_sample.checks) {
    if (c.has_estimate && c.benchmark->calibrate) {
      residuals.push_back({.band_case = BandCase::calibrated, .residual = residual_of(c)});
    }
  }
  for (std::size_t i = 0; i < cv.groups.size(); ++i) {
    if (i == without) {
      continue;
    }
    const CrossValidationGroup& g = cv.groups[i];
    for (const BenchmarkCheck& c : g.checks) {
      residuals.push_back({.band_case = g.band_case, .residual = residual_of(c), .group = i});
    }
  }
  return derive_bands(residuals);
}

}  // namespace gpuplan
