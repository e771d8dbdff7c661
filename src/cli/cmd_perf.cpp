// gpuplan perf: TTFT, inter-token latency and throughput per batch size, estimate next to bound.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <gpuplan/calibration.hpp>
#include <gpuplan/layout_search.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/planned_load.hpp>
#include <gpuplan/queue_wait.hpp>
#include <gpuplan/render_json_lines.hpp>
#include <gpuplan/units.hpp>

#include "command_io.hpp"
#include "common.hpp"
#include "deployment.hpp"
#include "workload.hpp"

namespace gpuplan::cli {
namespace {

struct PerfOptions {
  CommonOptions common;
  DeploymentOptions deployment;
  WorkloadOptions workload;
  std::vector<std::uint64_t> batches{1, 8, 64, 256};
  bool batches_given = false;  // --batch given: a batch above the cap is refused, not dropped
  bool check = false;
};

/// What caps the sequences of one replica at `cap`, for messages.
std::string batch_cap_reason(const PerfModel& pm, std::uint64_t cap, bool max_batch_given) {
  const PerfRequest& r = pm.request();
  if (cap == pm.engine_max_batch() && cap < r.max_batch && r.fit.engine.engine == Engine::sglang) {
    return "SGLang's default max_running_requests here: 512 x its KV pool's tokens / the context, within 2048 to "
           "4096 and at most half the pool; --max-batch lowers it";
  }
  if (cap == pm.engine_max_batch() && cap < r.max_batch) {
    const Engine e = r.fit.engine.engine;
    const std::uint64_t pp = r.fit.layout.pp;
    const char* setting = e == Engine::vllm ? "max_num_seqs" : "max_batch_size";
    const std::string per_stage = pp > 1 ? fmt::format(" {} x PP {}", cap / pp, pp) : "";
    return r.fit.engine.max_num_seqs ? fmt::format("{}'s {}{}, --max-num-seqs", to_string(e), setting, per_stage)
                                     : fmt::format("{}'s default {}{} here; --max-num-seqs sets it", to_string(e),
                                                   setting, per_stage);
  }
  // A cap the user gave is theirs, whatever its value (review s62: --max-batch 2048 was called the default).
  return max_batch_given ? "--max-batch" : "--max-batch's default, TensorRT-LLM's max_batch_size";
}

Exit run_perf(const PerfOptions& o) {
  const Catalog& catalog = command_catalog(o.common);
  const RenderOptions render = render_options(o.common);
  Deployment d = resolve_deployment(catalog, o.deployment);
  PerfRequest req;
  req.fit = d.request;
  apply_workload(o.workload, req);
  validate_perf_request(d.model, req);
  const bool sized = size_for_target(o.workload, o.deployment);
  d.gpus = layout_search_gpus(sized, d.layout_given, d.request.gpus_per_node, d.gpus);
  // The layout must hold the weights; without --tp/--pp take the one with the most throughput.
  ThroughputLayout choice = serving_layout(d.model, *d.gpu, req, d.layout_given, d.gpus, fit_cache_for(d));
  const FitResult& layout_fit = choice.fit;
  if (!layout_fit.fits) {
    const PerGpuMemory& m = layout_fit.per_gpu;
    const std::optional<std::string> start = engine_start_problem(layout_fit);
    const std::string why =
        start ? fmt::format("does not fit: {} (TP {}, PP {}); see 'gpuplan fit'", *start,
                            layout_fit.request.layout.tp, layout_fit.request.layout.pp)
        : layout_fit.weights_fit
            ? fmt::format("does not fit: one sequence of {} tokens needs {:.2f} GB of KV cache per GPU and the "
                          "budget is {:.2f} GB (TP {}, PP {}); see 'gpuplan fit'",
                          o.workload.input + o.workload.output, layout_fit.sequence_kv_bytes_per_gpu / units::kGB,
                          m.kv_budget_bytes / units::kGB, layout_fit.request.layout.tp, layout_fit.request.layout.pp)
            : fmt::format("does not fit: weights {:.2f} GB + activations {:.2f} GB{} + reserve {:.2f} GB{} exceed the "
                          "{:.2f} GB engine cap per GPU (TP {}, PP {}); see 'gpuplan fit'",
                          m.weights_bytes / units::kGB, m.activation_bytes / units::kGB, prefill_chunk_blame(layout_fit),
                          m.reserve_bytes / units::kGB, reserve_blame(layout_fit),
                          m.engine_cap_bytes / units::kGB, layout_fit.request.layout.tp, layout_fit.request.layout.pp);
    if (o.check) {
      // A failed check is a result: the fit that failed is printed, in the format asked for.
      fmt::print("{}", render_fit(layout_fit, render));
      print_note(fmt::format("gpuplan: {}", why));
      return Exit::check_failed;
    }
    // Returned, not thrown: a sweep meets it often (a tenth of the benchmark's lines), and a
    // throw's unwinding cost some 12k instructions.
    return batch_input_error(InputError(why));
  }
  req.fit.layout = layout_fit.request.layout;
  const std::uint64_t sized_replicas =
      sized ? size_replicas_for_target(d.model, *d.gpu, req, o.workload.target_output_tokens_per_s) : 0;
  std::vector<std::uint64_t> batches = o.batches;
  for (auto it = batches.begin(); it != batches.end(); ++it) {
    if (std::find(batches.begin(), it, *it) != it) {
      throw InputError(fmt::format("--batch: {} is given twice", *it));
    }
  }
  PlannedLoad load;
  const auto concurrency = planned_concurrency(o.workload);
  const auto target = planned_target(o.workload);
  if (concurrency || target) {
    load = planned_load(PerfModel(d.model, *d.gpu, req), concurrency, target);
    load.sized_replicas = sized_replicas;
    batches = {load.batch};
  }
  const EstimateBand band =
      for_layout(estimate_band(catalog, d.model, *d.gpu, req.fit.weights_dtype, engine_calibrated(req.fit.engine.engine)),
                 req.fit.layout, req.fit.gpus_per_node);
  // The layout search's model of the chosen layout is the one perf would build for `req`, unless
  // sizing for a target changed the replica count. The fit's notes are moved, not copied (the fit
  // is not read after this).
  std::optional<PerfModel> own;
  const PerfModel& pm = choice.chosen && !sized ? *choice.chosen : own.emplace(d.model, *d.gpu, req);
  // A batch the engine or the batch cap never runs is not timed as if it ran: a given one is
  // refused, the default list keeps what runs and the cap itself.
  std::optional<std::string> dropped;
  if (const std::uint64_t cap = pm.batch_cap(); !concurrency && !target) {
    for (std::uint64_t b : batches) {
      if (b > cap && o.batches_given) {
        throw InputError(fmt::format("--batch: {} exceeds the {} sequences per replica the deployment runs at most "
                                     "({}); give at most {}",
                                     b, cap, batch_cap_reason(pm, cap, o.workload.max_batch_given), cap));
      }
    }
    if (std::erase_if(batches, [cap](std::uint64_t b) { return b > cap; }) > 0) {
      batches.push_back(cap);
      dropped = fmt::format("batches above {} not shown: the deployment runs at most {} sequence{} per replica ({})",
                            cap, cap, cap == 1 ? "" : "s", batch_cap_reason(pm, cap, o.workload.max_batch_given));
    }
  }
  std::vector<std::string> fit_notes = choice.chosen && !sized ? std::move(choice.fit.notes) : pm.fit().notes;
  PerfResult result = perf(pm, std::move(fit_notes), batches, band);
  if (dropped) {
    result.notes.insert(result.notes.begin(), *dropped);
  }
  if (choice.candidates > 0) {
    result.notes.insert(result.notes.begin(),
                        fmt::format("layout chosen for throughput: the most estimated output tok/s at full load "
                                    "(batch {}) among {} layout{} of {}",
                                    result.full_load_batch, choice.candidates, choice.candidates == 1 ? "" : "s",
                                    gpus_text(d.gpus)));
  }
  if (!load.full_load()) {
    result.load = load;
  }
  if (target) {
    result.notes.insert(result.notes.begin(), target_load_note(load, req.fit.layout));
  } else if (load.capped && !result.rows.empty()) {
    // The clients beyond the batch wait for a slot, then prefill alone beside the batch's decodes:
    // a benchmark's mean TTFT counts that (queue_wait.hpp, the figure validate compares), the
    // batch's burst TTFT shown does not.
    const std::uint64_t dp = req.fit.layout.dp;
    const std::uint64_t clients = (*load.concurrency + dp - 1) / dp;
    const PerfPoint& row = result.rows.front();
    const double requests_per_s =
        row.output_tokens_per_s / static_cast<double>(dp) / static_cast<double>(req.output_tokens);
    const double wait_s = closed_loop_wait_s(clients, load.batch, requests_per_s);
    const double admitted_alone_s = row.ttft_alone_s + row.step_s;
    result.notes.insert(
        result.notes.begin(),
        fmt::format("--concurrency {} needs more sequences per replica than memory and the engine allow ({}): shown "
                    "at {}; the other {} per replica wait for a free slot, {:.2f} s on average (Little's law at "
                    "{:.2f} requests/s per replica), then prefill alone beside the batch's decodes ({:.2f} s): a "
                    "benchmark's mean TTFT in this steady state, {:.2f} s in all",
                    *load.concurrency, load.batch, load.batch, clients > load.batch ? clients - load.batch : 0, wait_s,
                    requests_per_s, admitted_alone_s,
                    closed_loop_ttft_s(clients, load.batch, 0, false, row.ttft_s, admitted_alone_s, requests_per_s)));
  }
  print_document(json_lines() ? render_json_line(result) : render_perf(result, render));
  return o.check && load.capped ? Exit::check_failed : Exit::ok;
}

}  // namespace

void add_perf_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<PerfOptions>();
  CLI::App* sub = app.add_subcommand("perf", "Latency and throughput per batch: estimate and roofline bound");
  add_deployment_options(*sub, o->deployment, false);
  // Refused with its reason when given (only fit models a MIG slice), so out of the help.
  sub->get_option("--mig")->group("");
  add_workload_options(*sub, o->workload);
  add_arrivals_option(*sub, o->workload);
  add_cached_input_option(*sub, o->workload);
  sub->add_option("--batch", o->batches, "Concurrent sequences per replica, comma-separated")
      ->delimiter(',')
      ->capture_default_str()
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->excludes("--concurrency")
      ->excludes("--target-output-tokens-per-s");
  sub->add_flag("--check", o->check,
                "Exit with code 1 (not 2) when the layout does not fit, or --concurrency or "
                "--target-output-tokens-per-s is out of its reach");
  add_common_options(*sub, o->common);
  set_command_callback(*sub, o, [o, sub, &exit_code] {
    note_given(*sub, o->deployment);
    o->batches_given = sub->get_option("--batch")->count() > 0;
    exit_code = with_flag_names([&o] { return run_perf(*o); });
  });
}

}  // namespace gpuplan::cli
