// render_perf() and render_validation(): performance estimates next to their roofline bound,
// and the model checked against measured benchmarks.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuplan/gpu_ratio.hpp>
#include <gpuplan/render.hpp>
#include <gpuplan/render_json_lines.hpp>

#include "detail/document.hpp"
#include "detail/json_envelope.hpp"
#include "detail/json_output.hpp"
#include "detail/json_writer.hpp"
#include "detail/load_json.hpp"

namespace gpuplan {
namespace {

using detail::checked;
using detail::OrderedJson;

std::string ms(double s) { return fmt::format("{:.2f}", checked(s, "a time") * 1e3); }
std::string rate(double v) { return fmt::format("{:.0f}", checked(v, "a rate")); }

void write_efficiency(detail::JsonWriter& w, const Efficiency& e) {
  w.begin_object();
  w.member("bandwidth", e.bandwidth);
  w.member("compute", e.compute);
  w.member("kv_bandwidth", e.kv_bandwidth);
  w.member("link", e.link);
  w.member("step_overhead_s", e.step_overhead_s);
  w.member("layer_overhead_s", e.layer_overhead_s);
  w.member("hop_latency_s", e.hop_latency_s);
  w.member("activation_passes", e.activation_passes);
  w.member("sequence_overhead_s", e.sequence_overhead_s);
  w.member("routed_copy_s_per_gb", e.routed_copy_s_per_gb);
  w.member("gemm_half_flop", e.gemm_half_flop);
  w.member("format_exponent", e.format_exponent);
  w.member("overlap_communication", e.overlap_communication);
  w.member("best_case", e.best_case);
  w.end_object();
}

/// For the documents still built as a DOM (validate): the same object, parsed back.
// The reference GPU for throughput ratios (H200/H100, B200/H100).
constexpr std::string_view kRatioBaseline = "h100-sxm";

OrderedJson gpu_ratios_json(const std::vector<GpuRatioGroup>& groups) {
  OrderedJson out = OrderedJson::array();
  for (const GpuRatioGroup& g : groups) {
    OrderedJson pairs = OrderedJson::array();
    for (const GpuRatio& r : g.ratios) {
      pairs.push_back({{"input_tokens", r.input_tokens},
                       {"output_tokens", r.output_tokens},
                       {"measured", checked(r.measured, "a measured ratio")},
                       {"estimated", checked(r.estimated, "an estimated ratio")},
                       {"error_points", r.error_points()}});
    }
    out.push_back({{"model", g.model},
                   {"gpu", g.gpu},
                   {"baseline", g.baseline},
                   {"pairs", pairs},
                   {"median_abs_error_points", g.median_abs_points},
                   {"worst_error_points", g.worst_points},
                   {"within_target", g.within_target},
                   {"target_points", kRatioTargetPoints}});
  }
  return out;
}

// A table of each model x GPU's ratios to the baseline and a summary line; nothing without pairs.
void add_gpu_ratios(detail::Document& doc, const std::vector<GpuRatioGroup>& groups) {
  if (groups.empty()) {
    return;
  }
  detail::Table t{.title = fmt::format("throughput per GPU relative to {}, same model and lengths (miss: estimated "
                                       "- measured ratio, in points)",
                                       kRatioBaseline),
                  .header = {"model", "GPU", "pairs", "measured ratio", "estimated ratio", "median |miss|", "worst miss",
                             fmt::format("within {:.0f} pts", kRatioTargetPoints)},
                  .rows = {}};
  std::size_t pairs = 0;
  int within = 0;
  for (const GpuRatioGroup& g : groups) {
    const auto [lo, hi] = std::minmax_element(g.ratios.begin(), g.ratios.end(),
                                              [](const GpuRatio& a, const GpuRatio& b) { return a.measured < b.measured; });
    const auto [elo, ehi] = std::minmax_element(
        g.ratios.begin(), g.ratios.end(), [](const GpuRatio& a, const GpuRatio& b) { return a.estimated < b.estimated; });
    t.rows.push_back({g.model, g.gpu, std::to_string(g.ratios.size()),
                      fmt::format("{:.2f} .. {:.2f}", lo->measured, hi->measured),
                      fmt::format("{:.2f} .. {:.2f}", elo->estimated, ehi->estimated),
                      fmt::format("{:.1f}", g.median_abs_points), fmt::format("{:+.1f}", g.worst_points),
                      fmt::format("{} of {}", g.within_target, g.ratios.size())});
    pairs += g.ratios.size();
    within += g.within_target;
  }
  doc.tables.push_back(std::move(t));
  doc.footer.push_back(fmt::format("throughput ratios to {}: {} of {} pairs within {:.0f} points of the measured ratio",
                                   kRatioBaseline, within, pairs, kRatioTargetPoints));
}

OrderedJson efficiency_json(const Efficiency& e) {
  std::string text;
  detail::JsonWriter w(text, -1);
  write_efficiency(w, e);
  return OrderedJson::parse(text);
}

std::string efficiency_text(const Efficiency& e) {
  return fmt::format("bandwidth {:.2f} (KV cache x {:.2f}), compute {:.2f}, link {:.2f}, overhead {:.2f} ms per step + {:g} us per "
                     "layer + {:.1f} us per sequence, {:.2f} activation passes per token, MoE routing {:.2f} ms per GB, GEMM half-efficiency "
                     "at {:.2f} GFLOP, format exponent {:.2f}",
                     e.bandwidth, e.kv_bandwidth, e.compute, e.link, e.step_overhead_s * 1e3, e.layer_overhead_s * 1e6,
                     e.sequence_overhead_s * 1e6,
                     e.activation_passes, e.routed_copy_s_per_gb * 1e3, e.gemm_half_flop / 1e9, e.format_exponent);
}

void write_perf(detail::JsonWriter& w, const PerfResult& r) {
  const PerfRequest& q = r.request;
  const Layout& l = q.fit.layout;
  w.begin_object();
  detail::write_envelope(w, "perf");
  w.key("inputs").begin_object();
  w.member("model", r.model_id);
  w.member("gpu", r.gpu_id);
  w.member("gpus", l.gpus());
  w.member("tp", l.tp);
  w.member("pp", l.pp);
  w.member("ep", l.ep);
  w.member("dp", l.dp);
  w.member("gpus_per_node", q.fit.gpus_per_node);
  w.member("weights_dtype", to_string(q.fit.weights_dtype));
  w.member("kv_dtype", to_string(q.fit.kv_dtype));
  w.member("input_tokens", q.input_tokens);
  if (q.cached_input_tokens > 0) {  // only when given: without it every prompt is prefilled whole
    w.member("cached_input_tokens", q.cached_input_tokens);
  }
  w.member("output_tokens", q.output_tokens);
  w.key("batches").begin_array();
  for (const PerfPoint& p : r.rows) {
    w.value(p.batch);
  }
  w.end_array();
  w.member("sparse", q.sparse);
  w.member("network_bytes_per_s_per_gpu", q.network_bytes_per_s_per_gpu);
  w.member("arrivals", to_string(q.arrivals));
  // A script reading the figures must see what they assume: whose memory arithmetic, and
  // whether each step was floored at the host's kernel launches (no CUDA graphs).
  w.member("engine", to_string(q.fit.engine.engine));
  w.member("eager", q.eager || q.fit.engine.eager);
  w.end_object();
  w.member("compute_type", r.compute_type);
  w.member("peak_flop_per_s", checked(r.peak_flop_per_s, "peak"));
  w.member("gemm_share_of_peak", checked(r.gemm_share, "GEMM share"));
  w.key("efficiency");
  write_efficiency(w, q.efficiency);
  w.key("band").begin_object();
  w.member("low", r.band_low);
  w.member("high", r.band_high);
  w.member("from", to_string(r.band_case));
  w.member("engine_calibrated", r.engine_calibrated);
  w.end_object();
  w.key("ridge_batch");
  if (r.ridge_batch) {
    w.value(checked(*r.ridge_batch, "ridge"));
  } else {
    w.null();
  }
  w.member("max_batch_by_memory", r.max_batch_by_memory);
  if (r.load) {
    w.key("load");
    detail::write_load(w, *r.load);
  }
  w.key("rows").begin_array();
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const PerfPoint& p = r.rows[i];
    const PerfPoint& b = r.roofline[i];
    w.begin_object();
    w.member("batch", p.batch);
    w.member("ttft_s", checked(p.ttft_s, "ttft"));
    w.member("ttft_alone_s", checked(p.ttft_alone_s, "ttft alone"));
    w.member("itl_s", checked(p.itl_s, "itl"));
    w.member("decode_step_s", checked(p.step_s, "step"));
    w.member("tokens_per_s_per_user", checked(p.tokens_per_s_per_user, "tok/s/user"));
    w.member("output_tokens_per_s", checked(p.output_tokens_per_s, "tok/s"));
    w.member("output_tokens_per_s_low", checked(p.output_tokens_per_s * r.band_low, "low"));
    w.member("output_tokens_per_s_high",
             checked(std::min(p.output_tokens_per_s * r.band_high, b.output_tokens_per_s), "high"));
    w.member("output_tokens_per_s_per_gpu", checked(p.output_tokens_per_s_per_gpu, "tok/s/gpu"));
    w.member("decode_tokens_per_s", checked(p.decode_tokens_per_s, "decode"));
    w.member("roofline_output_tokens_per_s", checked(b.output_tokens_per_s, "roofline"));
    w.member("roofline_itl_s", checked(b.itl_s, "roofline itl"));
    w.member("roofline_ttft_s", checked(b.ttft_s, "roofline ttft"));
    w.member("e2e_latency_s", checked(p.e2e_latency_s, "e2e"));
    w.member("bound", to_string(p.decode.bound()));
    w.member("bound_share", checked(p.decode.bound_share(), "bound share"));
    w.member("kv_fits", p.kv_fits);
    w.key("decode_step").begin_object();
    w.member("bytes_per_gpu", p.decode.bytes);
    w.member("flop_per_gpu", p.decode.flop);
    w.member("memory_s", p.decode.memory_s);
    w.member("compute_s", p.decode.compute_s);
    w.member("communication_s", p.decode.communication_s);
    w.member("overhead_s", p.decode.overhead_s);
    if (p.decode.host_launch_s > 0) {  // eager runs only: the host's launches floor the step
      w.member("host_launch_s", p.decode.host_launch_s);
    }
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.member("notes", r.notes);
  w.end_object();
}

detail::Document perf_document(const PerfResult& r) {
  const PerfRequest& q = r.request;
  const Layout& l = q.fit.layout;
  detail::Document doc;
  // The node size is named when it is not the usual 8: it sets where NVLink and PCIe end.
  const std::string node = q.fit.gpus_per_node == kDefaultGpusPerNode
                               ? std::string()
                               : fmt::format("; {} GPU{} per node", q.fit.gpus_per_node,
                                             q.fit.gpus_per_node == 1 ? "" : "s");
  doc.heading.push_back(fmt::format("gpuplan perf: {} on {} x {} (TP {}, PP {}, EP {}, DP {}{}{})", r.model_id,
                                    l.gpus(), r.gpu_id, l.tp, l.pp, l.ep, l.dp, detail::expert_groups_text(l), node));
  const std::string cached = q.cached_input_tokens > 0
                                 ? fmt::format(" ({} of them in the prefix cache, not prefilled)", q.cached_input_tokens)
                                 : std::string();
  doc.heading.push_back(fmt::format("weights {}, KV cache {}, {} input{} + {} output tokens; compute in {} at "
                                    "{:g} TFLOP/s peak, large GEMMs at {:.0f} % of it",
                                    to_string(q.fit.weights_dtype), to_string(q.fit.kv_dtype), q.input_tokens,
                                    cached, q.output_tokens, r.compute_type, r.peak_flop_per_s / units::kTera,
                                    r.gemm_share * 100));
  doc.heading.push_back("efficiency: " + efficiency_text(q.efficiency));
  detail::Table t{.title = "",
                  .header = {"batch", "TTFT ms", "ITL ms", "step ms", "tok/s/user", "output tok/s", "band low",
                             "band high", "tok/s/GPU", "roofline tok/s", "e2e s", "bound", "KV fits"},
                  .rows = {}};
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const PerfPoint& p = r.rows[i];
    t.rows.push_back({std::to_string(p.batch), ms(p.ttft_s), ms(p.itl_s), ms(p.step_s),
                      fmt::format("{:.1f}", p.tokens_per_s_per_user),
                      rate(p.output_tokens_per_s), rate(p.output_tokens_per_s * r.band_low),
                      rate(std::min(p.output_tokens_per_s * r.band_high, r.roofline[i].output_tokens_per_s)),
                      rate(p.output_tokens_per_s_per_gpu),
                      rate(r.roofline[i].output_tokens_per_s), fmt::format("{:.2f}", checked(p.e2e_latency_s, "e2e")),
                      bound_text(p.decode), p.kv_fits ? "yes" : "no"});
  }
  doc.tables.push_back(std::move(t));
  doc.footer.push_back(r.ridge_batch
                           ? fmt::format("ridge batch at peak bandwidth and FLOPs: {:.0f} (decode turns compute-bound here)",
                                         *r.ridge_batch)
                           : std::string("ridge batch: none (the KV cache's bytes grow with the batch as fast as its FLOPs: decode never turns compute-bound at peak)"));
  // The bound column is the estimate's limiting term; the ridge is the roofline's. Below the ridge
  // small GEMMs run under peak in the estimate, so the two can disagree: say why when they do.
  const bool disagree = std::any_of(r.rows.begin(), r.rows.end(), [&r](const PerfPoint& p) {
    return p.decode.bound() == Bound::compute && (!r.ridge_batch || static_cast<double>(p.batch) < *r.ridge_batch);
  });
  doc.footer.push_back("bound: the largest term of the estimate's decode step (memory, compute, communication or the "
                       "engine's per-step overhead) and its share of the step");
  if (disagree) {
    doc.footer.push_back("bound: what limits the estimate's decode step; below the ridge its small GEMMs reach only part "
                         "of the peak (W / (W + half-efficiency FLOPs)), so it can be compute-bound where the roofline "
                         "is memory-bound");
  }
  doc.footer.push_back(fmt::format("largest batch the KV cache allows per replica: {}", r.max_batch_by_memory));
  doc.footer.push_back(
      "ITL: the mean gap between a sequence's tokens under load, the other sequences' prefills included (a "
      "benchmark's mean TPOT; tok/s/user and e2e follow it); step: one decode step alone (the median gap where "
      "prefills run in steps of their own, as SGLang's)");
  if (!r.rows.empty()) {
    doc.footer.push_back(
        r.request.arrivals == Arrivals::poisson
            ? fmt::format("TTFT: the mean under load for prompts arriving at random (Poisson) at the rate the batch "
                          "sustains, each waiting for the prefills ahead of it (M/D/1) and riding in the decode steps; "
                          "a burst of the batch's prompts at once (a benchmark, --arrivals burst) waits longer; one "
                          "prompt alone: {} ms",
                          ms(r.rows.front().ttft_alone_s))
            : fmt::format("TTFT: the mean under load, the batch's prompts arriving together and prefilled in steps of "
                          "the engine's chunk (what a benchmark at that concurrency measures); traffic that arrives "
                          "spread out waits less (--arrivals poisson), down to one prompt alone: {} ms",
                          ms(r.rows.front().ttft_alone_s)));
  }
  doc.footer.push_back(
      "output tok/s: whole deployment, steady state with each prompt's prefill interleaved; roofline: the "
      "same at efficiency 1 with no overhead and communication overlapped (an upper bound)");
  doc.footer.push_back(fmt::format("band {:+.0f} % .. {:+.0f} % from cross-validation: {}", (r.band_low - 1.0) * 100.0,
                                   (r.band_high - 1.0) * 100.0, band_source(r.band_case, r.engine_calibrated, r.layout_calibrated)));
  for (const auto& n : r.notes) {
    doc.footer.push_back("note: " + n);
  }
  return doc;
}

// A band as whole percentages, "-36 .. +50".
std::string band_range(const Band& b) { return fmt::format("{:+.0f} .. {:+.0f}", b.low * 100.0, b.high * 100.0); }

}  // namespace

std::string render_perf(const PerfResult& result, const RenderOptions& options) {
  if (options.format == Format::json) {
    std::string out;
    detail::JsonWriter w(out, 2);
    write_perf(w, result);
    out += '\n';
    return out;
  }
  return detail::render_document(perf_document(result), options.format);
}

std::string render_validation(const Calibration& c, bool fitted, const RenderOptions& options) {
  int bounds = 0;
  int bounds_hold = 0;
  std::vector<const BenchmarkCheck*> refused;
  for (const BenchmarkCheck& k : c.checks) {
    if (k.refused) {
      refused.push_back(&k);
    } else if (k.batch > 0) {
      ++bounds;
      bounds_hold += k.bound_holds ? 1 : 0;
    }
  }
  const int estimates = static_cast<int>(std::count_if(c.checks.begin(), c.checks.end(),
                                                       [](const BenchmarkCheck& k) { return k.has_estimate; }));
  if (options.format == Format::json) {
    OrderedJson j = detail::envelope("validate");
    j["efficiency"] = efficiency_json(c.efficiency);
    j["efficiency_fitted"] = fitted;
    OrderedJson rows = OrderedJson::array();
    for (const BenchmarkCheck& k : c.checks) {
      const Benchmark& b = *k.benchmark;
      rows.push_back(
          {{"id", b.id},
           {"model", b.model},
           {"gpu", b.gpu},
           {"gpus", b.layout.gpus()},
           {"tp", b.layout.tp},
           {"pp", b.layout.pp},
           {"ep", b.layout.ep},
           {"dp", b.layout.dp},
           {"weights_dtype", to_string(b.weights_dtype)},
           {"kv_dtype", to_string(b.kv_dtype)},
           {"tensorrt_llm", b.tensorrt_llm},
           {"scenario", b.scenario},
           {"input_tokens", b.input_tokens},
           {"output_tokens", b.output_tokens},
           {"output_lengths", b.output_lengths == OutputLengths::fixed     ? "fixed"
                              : b.output_lengths == OutputLengths::uniform ? "uniform"
                                                                           : "exponential"},
           {"max_output_tokens", b.max_output_tokens > 0 ? OrderedJson(b.max_output_tokens) : OrderedJson(nullptr)},
           {"calibrate", b.calibrate},
           {"batch", k.batch},
           {"requests", b.requests > 0 ? OrderedJson(b.requests) : OrderedJson(nullptr)},
           {"run_batch", k.run_batch},
           {"measured_tokens_per_s", b.output_tokens_per_s},
           {"roofline_tokens_per_s",
            k.refused ? OrderedJson(nullptr) : OrderedJson(checked(k.roofline_tokens_per_s, "bound"))},
           {"estimate_tokens_per_s",
            k.has_estimate ? OrderedJson(checked(k.estimate_tokens_per_s, "estimate")) : OrderedJson(nullptr)},
           {"error", k.has_estimate ? OrderedJson(k.error) : OrderedJson(nullptr)},
           {"estimate_itl_s", k.has_estimate ? OrderedJson(checked(k.estimate_itl_s, "itl")) : OrderedJson(nullptr)},
           {"estimate_decode_step_s",
            k.has_estimate ? OrderedJson(checked(k.estimate_step_s, "step")) : OrderedJson(nullptr)},
           {"measured_tpot_s", b.measured_tpot_s ? OrderedJson(*b.measured_tpot_s) : OrderedJson(nullptr)},
           {"itl_error", k.itl_error ? OrderedJson(*k.itl_error) : OrderedJson(nullptr)},
           {"estimate_ttft_s", k.has_estimate ? OrderedJson(checked(k.estimate_ttft_s, "ttft")) : OrderedJson(nullptr)},
           {"measured_ttft_s", b.measured_ttft_s ? OrderedJson(*b.measured_ttft_s) : OrderedJson(nullptr)},
           {"ttft_error", k.ttft_error ? OrderedJson(*k.ttft_error) : OrderedJson(nullptr)},
           {"band", k.has_estimate ? OrderedJson{{"low", k.band.band.low},
                                                 {"high", k.band.band.high},
                                                 {"from", to_string(k.band.band_case)},
                                                 {"engine_calibrated", k.band.engine_calibrated}}
                                   : OrderedJson(nullptr)},
           {"inside_band", k.has_estimate && !b.eager ? OrderedJson(k.inside_band) : OrderedJson(nullptr)},
           {"eager", b.eager},
           // A refused row has no bound: null, not a bound failure.
           {"bound_holds", k.refused ? OrderedJson(nullptr) : OrderedJson(k.bound_holds)},
           {"refused", k.refused ? OrderedJson(*k.refused) : OrderedJson(nullptr)}});
    }
    j["benchmarks"] = rows;
    j["summary"] = {{"median_abs_error", estimates > 0 ? OrderedJson(c.median_abs_error) : OrderedJson(nullptr)},
                    {"worst_abs_error", estimates > 0 ? OrderedJson(c.worst_abs_error) : OrderedJson(nullptr)},
                    {"with_estimate", estimates},
                    {"inside_band", c.inside_band},
                    {"eager_rows", c.eager_rows},
                    {"bound_holds", bounds_hold},
                    {"bounds", bounds},
                    {"refused", refused.size()},
                    {"band", {{"low", c.lowest_residual}, {"high", c.highest_residual}}},
                    {"latency", c.latency_rows > 0 ? OrderedJson{{"rows", c.latency_rows},
                                                                 {"median_abs_itl_error", c.median_abs_itl_error},
                                                                 {"worst_abs_itl_error", c.worst_abs_itl_error},
                                                                 {"median_abs_step_error", c.median_abs_step_error}}
                                                   : OrderedJson(nullptr)},
                    {"ttft", c.ttft_rows > 0 ? OrderedJson{{"rows", c.ttft_rows},
                                                           {"median_abs_ttft_error", c.median_abs_ttft_error},
                                                           {"worst_abs_ttft_error", c.worst_abs_ttft_error},
                                                           {"median_abs_ttft_alone_error", c.median_abs_ttft_alone_error}}
                                             : OrderedJson(nullptr)}};
    j["gpu_ratios"] = gpu_ratios_json(gpu_ratios(c.checks, kRatioBaseline));
    return detail::dump_json(j);
  }
  detail::Document doc;
  doc.heading.push_back(fmt::format("gpuplan validate: {} benchmarks; efficiency {}: {}", c.checks.size(),
                                    fitted ? "fitted now" : "defaults", efficiency_text(c.efficiency)));
  detail::Table t{.title = "",
                  .header = {"benchmark", "GPUs", "batch", "requests", "measured tok/s", "roofline tok/s",
                             "estimate tok/s", "error %", "band %", "inside band", "bound holds"},
                  .rows = {}};
  for (const BenchmarkCheck& k : c.checks) {
    const Benchmark& b = *k.benchmark;
    t.rows.push_back({b.id, std::to_string(b.layout.gpus()), std::to_string(k.batch),
                      b.requests > 0 ? std::to_string(b.requests) : "-", rate(b.output_tokens_per_s),
                      k.refused ? "-" : rate(k.roofline_tokens_per_s), k.has_estimate ? rate(k.estimate_tokens_per_s) : "-",
                      k.has_estimate ? fmt::format("{:+.1f}", k.error * 100.0) : "-",
                      k.has_estimate ? (b.eager ? "eager: no band" : band_range(k.band.band)) : "-",
                      k.has_estimate && !b.eager ? (k.inside_band ? "yes" : "no") : "-",
                      k.refused ? "refused" : (k.bound_holds ? "yes" : "NO")});
  }
  doc.tables.push_back(std::move(t));
  // With no estimate (every row refused) there is no error to report: "-", not a perfect 0.0 %.
  const auto percent = [&](double share) { return estimates > 0 ? fmt::format("{:.1f} %", share * 100.0) : "-"; };
  doc.footer.push_back(fmt::format("summary: median |error| {}, worst {} over {} estimates, {} inside the band "
                                   "perf gives them{}; roofline >= measured for {} of {}",
                                   percent(c.median_abs_error), percent(c.worst_abs_error), estimates, c.inside_band,
                                   c.eager_rows > 0 ? fmt::format(" (of {}: eager rows make no band claim)",
                                                                  estimates - c.eager_rows)
                                                    : std::string(),
                                   bounds_hold, bounds));
  if (c.eager_rows > 0) {
    doc.footer.push_back(fmt::format(
        "eager: {} row{} ran without CUDA graphs (--enforce-eager, --disable-cuda-graph): every kernel is launched "
        "from the host, so each step takes at least the host's launch time (kernels x {:.0f} us, a figure not "
        "calibrated on measurements); no band",
        c.eager_rows, c.eager_rows == 1 ? "" : "s", kEagerHostSPerKernel * 1e6));
  }
  if (!refused.empty()) {
    // One line: how many rows gpuplan refuses, and why, so a reader does not take them for bound failures.
    std::string why;
    for (const BenchmarkCheck* k : refused) {
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", k->benchmark->id, *k->refused);
    }
    doc.footer.push_back(fmt::format("refused: {} row{} gpuplan does not run (no bound, no estimate; not counted as a bound "
                                     "failure): {}",
                                     refused.size(), refused.size() == 1 ? "" : "s", why));
  }
  // The two columns are opposite ratios: say so, or a row whose error lies inside its band's
  // figures reads as wrongly marked outside it.
  doc.footer.push_back("error %: estimate / measured - 1 (above 0: the estimate is faster than measured); band % and "
                       "inside band: measured / estimate - 1 (above 0: measured is faster)");
  doc.footer.push_back(fmt::format("band: measured / estimate - 1 spans {:+.1f} % .. {:+.1f} % over the {} estimates",
                                   c.lowest_residual * 100.0, c.highest_residual * 100.0, c.calibration_points));
  if (c.latency_rows > 0) {
    doc.footer.push_back(fmt::format("latency: mean ITL under load against the measured mean TPOT of {} rows: median "
                                     "|error| {:.1f} %, worst {:.1f} % (one decode step alone: median {:.1f} %)",
                                     c.latency_rows, c.median_abs_itl_error * 100.0, c.worst_abs_itl_error * 100.0,
                                     c.median_abs_step_error * 100.0));
  }
  if (c.ttft_rows > 0) {
    doc.footer.push_back(fmt::format("ttft: mean TTFT under load against the measured mean TTFT of {} rows: median "
                                     "|error| {:.1f} %, worst {:.1f} % (one prompt alone: median {:.1f} %)",
                                     c.ttft_rows, c.median_abs_ttft_error * 100.0, c.worst_abs_ttft_error * 100.0,
                                     c.median_abs_ttft_alone_error * 100.0));
  }
  const auto widened = std::count_if(c.checks.begin(), c.checks.end(), [](const BenchmarkCheck& k) {
    return k.has_estimate && !k.band.engine_calibrated;
  });
  if (widened > 0) {
    const Band other = other_engine_band();
    doc.footer.push_back(fmt::format("{} rows name an engine other than TensorRT-LLM (not calibrated): their band is "
                                     "widened to at least {:+.0f} % .. {:+.0f} %, the spread of public vLLM and SGLang runs",
                                     widened, other.low * 100.0, other.high * 100.0));
  }
  doc.footer.push_back("rows without an estimate know only the dataset's maximum input length: their roofline is "
                       "decode-only");
  doc.footer.push_back("batch: the largest per replica that memory and the engine allow; requests: the run's, shared by "
                       "its replicas (trtllm-bench at max load without its own count: the dataset sizes of TensorRT-LLM's "
                       "perf overview); a replica's share below its batch never reaches it, above it runs in waves, the last "
                       "partial; the roofline takes the full batch at least, and up to what the memory beyond the weights holds "
                       "(within the run's concurrency and requests): gpuplan's engine arithmetic is no bound");
  const auto spread = std::count_if(c.checks.begin(), c.checks.end(), [](const BenchmarkCheck& k) {
    return k.benchmark->output_lengths != OutputLengths::fixed && k.benchmark->requests > 0;
  });
  const auto capped = std::count_if(c.checks.begin(), c.checks.end(), [](const BenchmarkCheck& k) {
    return k.benchmark->output_lengths != OutputLengths::fixed && k.benchmark->requests > 0 &&
           k.benchmark->max_output_tokens > 0;
  });
  if (spread > 0) {
    doc.footer.push_back(fmt::format("{} finite run{} with output lengths that spread (output_lengths): the batch stays full "
                                     "while requests queue, then drains as they finish, its last steps at a few sequences{}",
                                     spread, spread == 1 ? "" : "s",
                                     capped == 0 ? std::string()
                                                 : fmt::format("; {} with answers capped (max_tokens), whose drain "
                                                               "ends at the cap",
                                                               capped)));
  }
  add_gpu_ratios(doc, gpu_ratios(c.checks, kRatioBaseline));
  return detail::render_document(doc, options.format);
}

std::string render_cross_validation(const CrossValidation& cv, const RenderOptions& options) {
  const double inside_share = cv.rows > 0 ? static_cast<double>(cv.inside_band) / cv.rows : 0.0;
  // Each GPU's rows predicted by the fit that left its group out.
  std::vector<BenchmarkCheck> predicted;
  for (const CrossValidationGroup& g : cv.groups) {
    predicted.insert(predicted.end(), g.checks.begin(), g.checks.end());
  }
  const std::vector<GpuRatioGroup> ratios = gpu_ratios(predicted, kRatioBaseline);
  if (options.format == Format::json) {
    OrderedJson j = detail::envelope("validate");
    OrderedJson groups = OrderedJson::array();
    for (const CrossValidationGroup& g : cv.groups) {
      OrderedJson rows = OrderedJson::array();
      for (const BenchmarkCheck& k : g.checks) {
        rows.push_back({{"id", k.benchmark->id},
                        {"batch", k.batch},
                        {"measured_tokens_per_s", k.benchmark->output_tokens_per_s},
                        {"estimate_tokens_per_s", checked(k.estimate_tokens_per_s, "estimate")},
                        {"roofline_tokens_per_s", checked(k.roofline_tokens_per_s, "bound")},
                        {"error", k.error},
                        {"bound_holds", k.refused ? OrderedJson(nullptr) : OrderedJson(k.bound_holds)}});
      }
      groups.push_back({{"model", g.model},
                        {"gpu", g.gpu},
                        {"weights_dtype", to_string(g.weights_dtype)},
                        {"band_case", to_string(g.band_case)},
                        {"band", {{"low", g.band.low}, {"high", g.band.high}}},
                        {"efficiency", efficiency_json(g.efficiency)},
                        {"rows", rows},
                        {"median_abs_error", g.median_abs_error},
                        {"worst_abs_error", g.worst_abs_error},
                        {"inside_band", g.inside_band}});
    }
    j["groups"] = groups;
    j["summary"] = {{"rows", cv.rows},
                    {"median_abs_error", cv.median_abs_error},
                    {"worst_abs_error", cv.worst_abs_error},
                    {"inside_band", cv.inside_band},
                    {"inside_band_share", inside_share}};
    OrderedJson bands = OrderedJson::array();
    for (std::size_t c = 0; c < cv.derived_bands.size(); ++c) {
      bands.push_back({{"case", to_string(static_cast<BandCase>(c))},
                       {"low", cv.derived_bands[c].low},
                       {"high", cv.derived_bands[c].high}});
    }
    j["derived_bands"] = bands;
    j["gpu_ratios"] = gpu_ratios_json(ratios);
    return detail::dump_json(j);
  }
  detail::Document doc;
  doc.heading.push_back(fmt::format("gpuplan validate --cross-validate: {} groups (model x GPU x format), each "
                                    "predicted by a fit on the others",
                                    cv.groups.size()));
  detail::Table rows{.title = "", .header = {"group", "benchmark", "measured tok/s", "estimate tok/s", "error %",
                                             "inside band"}, .rows = {}};
  detail::Table groups{.title = "", .header = {"group", "rows", "median |error| %", "worst |error| %", "inside band",
                                               "band %", "band from cross-validation"}, .rows = {}};
  for (const CrossValidationGroup& g : cv.groups) {
    const std::string name = fmt::format("{} {} {}", g.model, g.gpu, to_string(g.weights_dtype));
    for (const BenchmarkCheck& k : g.checks) {
      const double r = 1.0 / (1.0 + k.error) - 1.0;
      rows.rows.push_back({name, k.benchmark->id, rate(k.benchmark->output_tokens_per_s), rate(k.estimate_tokens_per_s),
                           fmt::format("{:+.1f}", k.error * 100.0), r >= g.band.low && r <= g.band.high ? "yes" : "no"});
    }
    groups.rows.push_back({name, std::to_string(g.checks.size()), fmt::format("{:.1f}", g.median_abs_error * 100.0),
                           fmt::format("{:.1f}", g.worst_abs_error * 100.0),
                           fmt::format("{} of {}", g.inside_band, g.checks.size()),
                           band_range(g.band),
                           std::string(to_string(g.band_case))});
  }
  doc.tables.push_back(std::move(rows));
  doc.tables.push_back(std::move(groups));
  doc.footer.push_back(fmt::format("cross-validated: median |error| {:.1f} %, worst {:.1f} % over {} rows; {} of {} "
                                   "({:.0f} %) inside their band",
                                   cv.median_abs_error * 100.0, cv.worst_abs_error * 100.0, cv.rows, cv.inside_band,
                                   cv.rows, inside_share * 100.0));
  doc.footer.push_back("error: estimate / measured - 1; band: measured / estimate - 1 for the group's distance from "
                       "the others, from the other groups' residuals alone");
  for (std::size_t c = 0; c < cv.derived_bands.size(); ++c) {
    doc.footer.push_back(fmt::format("band these residuals give, {}: {:+.1f} % .. {:+.1f} %",
                                     to_string(static_cast<BandCase>(c)), cv.derived_bands[c].low * 100.0,
                                     cv.derived_bands[c].high * 100.0));
  }
  add_gpu_ratios(doc, ratios);
  return detail::render_document(doc, options.format);
}

std::string render_json_line(const PerfResult& result) {
  std::string out;
  out.reserve(4096);  // about the size of an answer: no regrowth while writing
  detail::JsonWriter w(out, -1);
  write_perf(w, result);
  out += '\n';
  return out;
}

}  // namespace gpuplan
