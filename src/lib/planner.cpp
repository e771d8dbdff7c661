#include <gpuplan/planner.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/band.hpp>
#include <gpuplan/comm.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/latency_batch.hpp>
#include <gpuplan/layout_search.hpp>
#include <gpuplan/offer_match.hpp>
#include <gpuplan/pareto.hpp>

#include "detail/fit_basis.hpp"
#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

std::optional<DType> checkpoint_dtype(const ModelSpec& model, const PlanRequest& r);

/// A config.json (or a user catalog entry: not a built-in one) whose checkpoint is quantized: it cannot be re-quantized
/// to another format without its 16-bit original, so a search without --weights-dtype keeps its own.
bool quantized_config(const ModelSpec& model, const PlanRequest& r) {
  return !r.release_parts && model.shipped_formats && differs_from_builtin(model) && checkpoint_dtype(model, r);
}

/// The parts of a release searched in its own format as it ships them; any other format (and no
/// release) fills every linear layer.
std::optional<WeightFormats> release_formats(const ModelSpec& model, const PlanRequest& r, DType weights) {
  if (!r.release_parts) {
    // A quantized config.json is searched in the formats it ships, part by part.
    if (quantized_config(model, r) && checkpoint_dtype(model, r) == weights) {
      return model.shipped_formats;
    }
    // MXFP4 is the experts' format of the model's own checkpoint (gpt-oss, launched by its own
    // name), not one to fill every layer with: TensorRT-LLM runs it in MoE experts alone on Hopper.
    if (weights == DType::mxfp4 && model.shipped_formats && checkpoint_dtype(model, r) == weights) {
      return model.shipped_formats;
    }
    return std::nullopt;
  }
  const WeightChoice& c = *r.release_parts;
  const std::optional<WeightFormat>& stated = c.experts ? c.experts : c.all;
  if (!stated || stated->element != weights) {
    return std::nullopt;
  }
  return choose_weight_formats(model, c);
}

/// The quantized format the launched checkpoint ships: the release's name says it, or the
/// config.json's quantization_config (its experts' format on an MoE model); nullopt: 16-bit.
std::optional<DType> checkpoint_dtype(const ModelSpec& model, const PlanRequest& r) {
  std::optional<DType> out;
  if (r.release_parts) {
    const WeightChoice& c = *r.release_parts;
    if (const std::optional<WeightFormat>& stated = c.experts ? c.experts : c.all) {
      out = stated->element;
    }
  } else if (model.shipped_formats) {
    out = (*model.shipped_formats)[model.moe ? WeightPart::routed_experts : WeightPart::dense_mlp].element;
  }
  if (out && (*out == DType::bf16 || *out == DType::fp16 || *out == DType::fp32)) {
    out.reset();
  }
  return out;
}


using detail::d;

constexpr std::uint64_t kMaxReplicas = 1'000'000;  // beyond this a target is not a deployment
using limits::kMaxGpus;

void check_target(std::string_view field, const std::optional<double>& v, double hi) {
  if (v && !(*v > 0.0 && *v <= hi)) {  // NaN fails both comparisons
    throw InputError(fmt::format("plan.{}: expected a number in (0, {:g}], got {}", field, hi, *v));
  }
}

void validate_plan_request(const ModelSpec& model, const PlanRequest& r) {
  const PlanTargets& t = r.targets;
  check_target("output_tokens_per_s", t.output_tokens_per_s, 1e12);
  check_target("max_itl_s", t.max_itl_s, limits::kMaxItlLimitS);
  check_target("max_ttft_s", t.max_ttft_s, limits::kMaxTtftLimitS);
  check_target("min_tokens_per_s_per_user", t.min_tokens_per_s_per_user, 1e9);
  check_target("max_usd_per_million_tokens", t.max_usd_per_million_tokens, 1e9);
  if (r.top < 1 || r.top > 10'000) {
    throw InputError(fmt::format("plan.top: expected between 1 and 10000, got {}", r.top));
  }
  if (r.max_gpus_per_replica < 1 || r.max_gpus_per_replica > 1024) {
    throw InputError(fmt::format("plan.max_gpus_per_replica: expected between 1 and 1024, got {}", r.max_gpus_per_replica));
  }
  if (r.gpus_per_node < 1) {
    throw InputError("plan.gpus_per_node: expected at least 1");
  }
  if (!r.perf.fit.mig_profile.empty()) {
    throw InputError("plan.mig_profile: the planner deploys whole GPUs");
  }
  validate_perf_request(model, r.perf);
  if (t.output_tokens_per_s) {
    // Cost counts the prompts too: the input rate the load brings must be one it accepts.
    const double input = input_tokens_per_s_for(*t.output_tokens_per_s, r.perf.input_tokens, r.perf.output_tokens);
    if (!(input < 1e12)) {
      throw InputError(fmt::format("plan.output_tokens_per_s: {:g} output tok/s at {} tokens in per {} out is {:g} input "
                                   "tok/s; at most 1e12 can be priced",
                                   *t.output_tokens_per_s, r.perf.input_tokens, r.perf.output_tokens, input));
    }
  }
}

/// The prices of each GPU in the request's provider, mode, region and term, and the one given
/// by hand (provider "given"): each layout takes the catalog one that costs least for its GPUs
/// (preferred_for), and the given one as a row of its own.
std::map<std::string, std::vector<Price>> prices_by_gpu(const Catalog& catalog, const PlanRequest& r) {
  if (!r.provider.empty()) {
    const std::vector<std::string> known = providers(catalog);
    if (std::find(known.begin(), known.end(), r.provider) == known.end()) {
      const auto close = closest_names(r.provider, known);
      throw InputError(fmt::format("plan.provider: no prices from '{}'{}; providers: {}", r.provider,
                                   close.empty() ? "" : fmt::format(" (closest: {})", fmt::join(close, ", ")),
                                   fmt::join(known, ", ")));
    }
  }
  const PricingMode mode = r.mode.value_or(PricingMode::on_demand);
  std::map<std::string, std::vector<Price>> out;
  for (const Price& p : catalog.prices()) {
    if ((r.provider.empty() || p.provider == r.provider) && mode_matches(p.mode, mode) && in_region(p, r.region) &&
        (r.term.empty() || p.term == r.term)) {
      out[p.gpu].push_back(p);
    }
  }
  for (const auto& [gpu, usd] : r.given_usd_per_gpu_hour) {
    if (!r.gpus.empty()) {
      require_gpu_in("plan.price", gpu, r.gpus, "searched");
    }
    if (!(usd > 0) || usd > 10'000) {
      throw InputError(fmt::format("plan.price: expected a price in (0, 10000] USD per GPU-hour for {}, got {}", gpu, usd));
    }
    Price p;
    p.provider = kGivenProvider;
    p.gpu = gpu;
    p.mode = mode;
    if (mode == PricingMode::reserved) {
      p.term = r.term;  // labelled with the term compared, as the catalog's reserved rows are
    }
    p.usd_per_gpu_hour = usd;
    p.day = r.today;
    p.date = "today";
    p.sources = {"--price"};
    out[gpu].push_back(std::move(p));
  }
  return out;
}

/// Batches the frontier samples: 1, 2, 3, 4, 6, 8, 12, 16, 24, ... up to `cap`, and `cap`.
std::vector<std::uint64_t> frontier_batches(std::uint64_t cap) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t b = 1; b < cap; b = b < 4 ? b + 1 : b + b / 2) {
    out.push_back(b);
  }
  out.push_back(cap);
  return out;
}

/// The search over one model; one instance per plan() call.
class Search {
 public:
  Search(const Catalog& catalog, const ModelSpec& model, const PlanRequest& request)
      : catalog_(catalog), model_(model), r_(request) {}

  PlanResult run();

 private:
  struct Candidate {
    PlanConfig config;
    double key = 0;       // what ranks: USD/h with a load target, else USD per million tokens
    double key_low = 0;   // key at the band's low edge of throughput (pessimistic)
    double key_high = 0;  // ... at its high edge (optimistic)
  };

  void search_gpu(const GpuSpec& gpu, const std::vector<Price>& prices);
  /// Why the engine (none named: every engine that runs on `gpu`) would refuse the checkpoint of
  /// `weights` on `gpu`, part by part as fit checks it (MXFP4 experts run where MXFP4 dense layers
  /// do not), or nullopt.
  std::optional<std::string> format_refusal(const GpuSpec& gpu, DType weights) const;
  std::optional<std::string> format_refusal(const GpuSpec& gpu, DType weights, Engine engine) const;
  void search_format(const GpuSpec& gpu, const std::vector<Price>& prices, DType weights, const std::vector<DType>& kvs);
  void skip(std::string reason) {
    ++result_.counts.skipped;
    ++result_.skipped[std::move(reason)];
  }
  void search_layout(const GpuSpec& gpu, const std::vector<Price>& prices, const PerfModel& pm, const EstimateBand& band);
  // The layout's row at the offer of `prices` that costs least for it; `first`, `at_max` and
  // `all` are search_layout's timings, shared by every offer.
  void price_layout(const GpuSpec& gpu, const std::vector<Price>& prices, const PerfModel& pm, const EstimateBand& band,
                    const PerfPoint& first, const PerfPoint& at_max, bool latency_met, bool ttft_ok,
                    const std::vector<PerfPoint>& all);
  // The layout at `price`: the replicas its instances hold and the batch that carries the load.
  Candidate operate(const GpuSpec& gpu, const Price& price, const GpuNeed& need, std::uint64_t needed,
                    const PerfModel& pm, const EstimateBand& band, const PerfPoint& first, const PerfPoint& at_max,
                    bool latency_met, const std::vector<PerfPoint>& all);
  [[nodiscard]] bool meets(const Candidate& c, bool latency_met, bool ttft_ok) const;
  /// A row on a stale price, ranked after every row on a current one (not with --include-stale).
  [[nodiscard]] bool stale_ranks_last(const Candidate& c) const;
  // Every point evaluated also joins the GPU's frontier.
  PerfPoint eval(const PerfModel& pm, std::uint64_t batch) {
    ++result_.counts.evaluated;
    PerfPoint p = pm.evaluate(batch, *steps_);
    if (!pareto_admits(frontier_, p.output_tokens_per_s_per_gpu, p.tokens_per_s_per_user)) {
      return p;  // most points: build no ParetoPoint (its GPU id string) for them
    }
    const FitRequest& f = pm.request().fit;
    pareto_insert(frontier_, ParetoPoint{.gpu = gpu_id_,
                                         .weights_dtype = f.weights_dtype,
                                         .kv_dtype = f.kv_dtype,
                                         .layout = f.layout,
                                         .batch = batch,
                                         .tokens_per_s_per_gpu = p.output_tokens_per_s_per_gpu,
                                         .tokens_per_s_per_user = p.tokens_per_s_per_user,
                                         .itl_s = p.itl_s,
                                         .ttft_s = p.ttft_s});
    return p;
  }
  [[nodiscard]] LatencyCaps caps() const {
    const PlanTargets& t = r_.targets;
    return {.max_itl_s = t.max_itl_s, .max_ttft_s = t.max_ttft_s, .min_tokens_per_s_per_user = t.min_tokens_per_s_per_user};
  }
  [[nodiscard]] bool latency_ok(const PerfPoint& p) const { return caps().met(p); }
  Candidate priced(const GpuSpec& gpu, const Price& price, const PerfModel& pm, const PerfPoint& at_max,
                   const PerfPoint& op, std::uint64_t replicas, const EstimateBand& band) const;
  void consider_miss(const Candidate& c, const PerfPoint& best_latency);
  // States the tie-break when rows shown cost the same, and names rows that differ only in the
  // weights format (fp8 and int8 on a GPU that runs both alike): the top rows fill with pairs.
  void note_ties(std::size_t shown);

  const Catalog& catalog_;
  const ModelSpec& model_;
  const PlanRequest& r_;
  PlanResult result_;
  std::vector<Candidate> feasible_;
  std::optional<Candidate> cheaper_stale_;  // the cheapest feasible one on a stale price set aside
  std::optional<Candidate> closest_;
  std::map<PlanTarget, std::uint64_t> missing_;
  double closest_ratio_ = std::numeric_limits<double>::infinity();
  PlanTarget closest_binding_ = PlanTarget::memory;
  std::vector<std::pair<PlanTarget, double>> closest_missed_;
  std::vector<ParetoPoint> frontier_;  // of the GPU being searched
  std::string gpu_id_;
  double sixteen_bit_shard_bytes_ = 0;
  double engine_default_share_ = 0;     ///< see PlanConfig::engine_default_share, for the layout searched  ///< see PlanConfig::sixteen_bit_load_bytes, for the layout searched
  PerfModel::StepCache* steps_ = nullptr;  // the layout search_layout() is timing: its decode steps
};

CostResult price_deployment(const PlanRequest& r, const GpuSpec& gpu, const Price& price, const Layout& layout,
                            std::uint64_t gpus, double output_tokens_per_s) {
  CostRequest c = r.cost;
  c.gpus = gpus;
  use_price(c, price);
  c.instance_group = instance_group(layout, gpu, r.gpus_per_node);
  c.output_tokens_per_s = output_tokens_per_s;
  c.input_tokens_per_s = input_tokens_per_s_for(output_tokens_per_s, r.perf.input_tokens, r.perf.output_tokens);
  c.gpu_power_w = gpu.tdp_w;
  return cost(c);
}

/// Why no price of a GPU can rent a layout: its replica needs more GPUs in one instance than
/// any of them has (a TP-2 replica on AWS's 1-GPU g6e.xlarge); nullopt when one can.
std::optional<std::string> unrentable(const Layout& layout, const GpuSpec& gpu, const std::vector<Price>& prices,
                                      std::uint64_t gpus_per_node) {
  const std::uint64_t group = instance_group(layout, gpu, gpus_per_node);
  std::uint64_t largest = 0;
  for (const Price& p : prices) {
    if (p.gpus_per_instance.empty() || p.gpus_per_instance.back() >= group) {
      return std::nullopt;
    }
    largest = std::max(largest, p.gpus_per_instance.back());
  }
  return fmt::format("their replicas need more {0} GPUs in one instance than the {0} prices searched rent (at most {1})",
                     gpu.id, largest);
}

std::uint64_t replicas_for(const std::optional<double>& target, double replica_tokens_per_s) {
  if (!target) {
    return 1;
  }
  const double n = std::ceil(*target / replica_tokens_per_s - 1e-9);
  return static_cast<std::uint64_t>(std::clamp(n, 1.0, d(kMaxReplicas)));
}

Search::Candidate Search::priced(const GpuSpec& gpu, const Price& price, const PerfModel& pm, const PerfPoint& at_max,
                                 const PerfPoint& op, std::uint64_t replicas, const EstimateBand& band) const {
  const Layout& l = pm.request().fit.layout;
  const std::optional<double>& target = r_.targets.output_tokens_per_s;
  Candidate c;
  PlanConfig& k = c.config;
  k.gpu = gpu.id;
  k.fp16_only = !gpu.dense_flop_per_s.contains("bf16");
  k.gaudi = gpu.vendor == "intel";
  k.sixteen_bit_load_bytes = sixteen_bit_shard_bytes_;
  k.engine_default_share = engine_default_share_;
  k.gpu_memory_bytes = sixteen_bit_shard_bytes_ > 0 ? gpu.engine_memory_bytes() : 0.0;
  k.weights_dtype = pm.request().fit.weights_dtype;
  k.kv_dtype = pm.request().fit.kv_dtype;
  k.layout = l;
  k.batch = op.batch;
  k.max_batch = at_max.batch;
  k.max_batch_by_memory = pm.max_batch_by_memory();
  k.replicas = replicas;
  k.gpus = replicas * l.gpus();
  k.price = price;
  k.output_tokens_per_s = d(replicas) * op.output_tokens_per_s;
  k.band_low = 1.0 + std::min(0.0, band.band.low);
  k.band_high = 1.0 + std::max(0.0, band.band.high);
  k.band_case = band.band_case;
  k.engine_calibrated = band.engine_calibrated;
  k.layout_calibrated = band.layout_calibrated;
  k.capacity_tokens_per_s = d(replicas) * at_max.output_tokens_per_s;
  k.capacity_low = k.capacity_tokens_per_s * k.band_low;
  k.capacity_high = k.capacity_tokens_per_s * k.band_high;
  k.itl_s = op.itl_s;
  k.ttft_s = op.ttft_s;
  k.tokens_per_s_per_user = op.tokens_per_s_per_user;
  k.cost = price_deployment(r_, gpu, price, l, k.gpus, target.value_or(k.output_tokens_per_s));
  if (target) {
    // The band moves the replicas the load needs: fewer at the high edge, more at the low one.
    const auto usd_at = [&](double share) {
      // At the band's edge the load may need more GPUs than any deployment: price the most.
      const std::uint64_t n = std::min(replicas_for(target, at_max.output_tokens_per_s * share), kMaxGpus / l.gpus());
      return price_deployment(r_, gpu, price, l, n * l.gpus(), *target).usd_per_hour();
    };
    c.key = k.cost.usd_per_hour();
    c.key_low = usd_at(k.band_low);
    c.key_high = usd_at(k.band_high);
  } else {
    c.key = k.cost.usd_per_million_tokens;
    c.key_low = price_deployment(r_, gpu, price, l, k.gpus, k.output_tokens_per_s * k.band_low).usd_per_million_tokens;
    c.key_high = price_deployment(r_, gpu, price, l, k.gpus, k.output_tokens_per_s * k.band_high).usd_per_million_tokens;
  }
  return c;
}

void Search::consider_miss(const Candidate& c, const PerfPoint& best) {
  // How far the layout's best point is from each target (> 1: missed).
  const PlanTargets& t = r_.targets;
  std::vector<std::pair<PlanTarget, double>> ratios;
  if (t.output_tokens_per_s) {
    ratios.emplace_back(PlanTarget::output_tokens_per_s, *t.output_tokens_per_s / c.config.output_tokens_per_s);
  }
  if (t.max_itl_s) {
    ratios.emplace_back(PlanTarget::max_itl, best.itl_s / *t.max_itl_s);
  }
  if (t.min_tokens_per_s_per_user) {
    ratios.emplace_back(PlanTarget::min_tokens_per_s_per_user, *t.min_tokens_per_s_per_user / best.tokens_per_s_per_user);
  }
  if (t.max_ttft_s) {
    ratios.emplace_back(PlanTarget::max_ttft, best.ttft_s / *t.max_ttft_s);
  }
  if (t.max_usd_per_million_tokens) {
    ratios.emplace_back(PlanTarget::max_usd_per_million_tokens,
                        c.config.cost.usd_per_million_tokens / *t.max_usd_per_million_tokens);
  }
  PlanTarget binding = PlanTarget::memory;
  double worst = 0;
  for (const auto& [target, ratio] : ratios) {
    if (ratio > 1.0) {
      ++missing_[target];
    }
    if (ratio > worst) {
      worst = ratio;
      binding = target;
    }
  }
  if (!closest_ || std::pair(worst, c.key) < std::pair(closest_ratio_, closest_->key)) {
    closest_ratio_ = worst;
    closest_binding_ = binding;
    closest_ = c;
    // Every target it misses, not the binding one alone: relaxing only that one would not qualify it.
    closest_missed_.clear();
    for (const auto& [target, ratio] : ratios) {
      if (ratio > 1.0) {
        closest_missed_.emplace_back(target, ratio);
      }
    }
    std::stable_sort(closest_missed_.begin(), closest_missed_.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
  }
}

void Search::search_layout(const GpuSpec& gpu, const std::vector<Price>& prices, const PerfModel& pm,
                           const EstimateBand& band) {
  const PlanTargets& t = r_.targets;
  const std::uint64_t cap = pm.full_load_batch();
  PerfModel::StepCache steps(r_.perf.efficiency);
  steps_ = &steps;
  const PerfPoint first = eval(pm, 1);
  const bool ttft_ok = !t.max_ttft_s || first.ttft_s <= *t.max_ttft_s;
  // The largest batch meeting the latency targets (ITL grows with the batch), and the smallest
  // batch at which `replicas` replicas carry the load (throughput grows with the batch).
  PerfPoint at_max = first;
  bool latency_met = latency_ok(first);
  std::vector<PerfPoint> all;
  if (r_.batch_search == BatchSearch::exhaustive) {
    all.reserve(cap);
    all.push_back(first);
    for (std::uint64_t b = 2; b <= cap; ++b) {
      all.push_back(eval(pm, b));
    }
    for (const PerfPoint& p : all) {
      if (latency_ok(p)) {
        at_max = p;
      }
    }
  } else {
    for (std::uint64_t b : frontier_batches(cap)) {
      if (b > 1) {
        eval(pm, b);
      }
    }
    // The same search as scale's rows under its caps (latency_batch.hpp).
    at_max = largest_batch_within(caps(), cap, first, [&](std::uint64_t b) { return eval(pm, b); }).point;
  }
  // A price given by hand is an offer of its own beside the catalog's, as in compare: each
  // gets its row (with --provider aws --price, the AWS rows stayed out, silently).
  std::vector<Price> catalog_offers;
  std::vector<Price> given_offers;
  for (const Price& p : prices) {
    (p.given() ? given_offers : catalog_offers).push_back(p);
  }
  for (const std::vector<Price>* offers : {&catalog_offers, &given_offers}) {
    if (!offers->empty()) {
      price_layout(gpu, *offers, pm, band, first, at_max, latency_met, ttft_ok, all);
    }
  }
}

void Search::price_layout(const GpuSpec& gpu, const std::vector<Price>& prices, const PerfModel& pm,
                          const EstimateBand& band, const PerfPoint& first, const PerfPoint& at_max, bool latency_met,
                          bool ttft_ok, const std::vector<PerfPoint>& all) {
  const PlanTargets& t = r_.targets;
  const std::optional<double>& target = t.output_tokens_per_s;
  // A load that needs more GPUs of this layout than any deployment has gets the most there can
  // be, and misses the load target by the ratio left (a result, not an error).
  const Layout& layout = pm.request().fit.layout;
  const std::uint64_t most = kMaxGpus / layout.gpus();
  const std::uint64_t needed = std::min(replicas_for(target, at_max.output_tokens_per_s), most);
  // The price that costs least for these replicas in whole instances (USD an hour with a load
  // target; else per replica-hour, as the instances fill), and the replicas its instances hold:
  // a 1-GPU replica on an 8-GPU instance runs as 8 replicas, at the same USD an hour.
  const GpuNeed need{.gpus = needed * layout.gpus(),
                     .group = instance_group(layout, gpu, r_.gpus_per_node),
                     .fill_replica_gpus = target ? 0 : layout.gpus()};
  // A current price over a stale one unless --include-stale; the cheapest, age aside, is kept
  // to name a cheaper stale offer beside #1 (compare's "cheaper on a stale price").
  const StalePrices rule = r_.include_stale ? StalePrices::by_cost : StalePrices::current_first;
  const Price* price = &prices.front();
  const Price* cheapest = &prices.front();
  for (const Price& p : prices) {
    if (preferred_for(p, *price, need, rule)) {
      price = &p;
    }
    if (preferred_for(p, *cheapest, need, StalePrices::by_cost)) {
      cheapest = &p;
    }
  }
  Candidate c = operate(gpu, *price, need, needed, pm, band, first, at_max, latency_met, all);
  if (meets(c, latency_met, ttft_ok)) {
    c.config.meets_targets = true;
    feasible_.push_back(std::move(c));
  } else {
    consider_miss(c, first);
  }
  if (cheapest != price && cheapest->stale()) {
    // Not part of the search: the points it times are neither counted nor on the frontier.
    const std::uint64_t evaluated = result_.counts.evaluated;
    std::vector<ParetoPoint> frontier = frontier_;
    Candidate s = operate(gpu, *cheapest, need, needed, pm, band, first, at_max, latency_met, all);
    result_.counts.evaluated = evaluated;
    frontier_ = std::move(frontier);
    // At one cost, the checkpoint as it ships before a re-quantization of it, as the ranking does.
    const std::optional<DType> own = checkpoint_dtype(model_, r_);
    const auto requantized = [&own](const Candidate& x) { return own && x.config.weights_dtype != *own; };
    const bool better = !cheaper_stale_ || s.key < cheaper_stale_->key ||
                        (s.key <= cheaper_stale_->key && requantized(*cheaper_stale_) && !requantized(s));
    if (meets(s, latency_met, ttft_ok) && better) {
      s.config.meets_targets = true;
      cheaper_stale_ = std::move(s);
    }
  }
}

bool Search::stale_ranks_last(const Candidate& c) const { return !r_.include_stale && c.config.price.stale(); }

bool Search::meets(const Candidate& c, bool latency_met, bool ttft_ok) const {
  const PlanTargets& t = r_.targets;
  const bool load_ok = !t.output_tokens_per_s || c.config.output_tokens_per_s >= *t.output_tokens_per_s * (1.0 - 1e-9);
  const bool budget_ok =
      !t.max_usd_per_million_tokens || c.config.cost.usd_per_million_tokens <= *t.max_usd_per_million_tokens;
  return latency_met && ttft_ok && load_ok && budget_ok;
}

void Search::note_ties(std::size_t shown) {
  const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
  bool tied = false;
  std::vector<std::string> twins;
  for (std::size_t i = 0; i + 1 < shown; ++i) {
    const Candidate& a = feasible_[i];
    const Candidate& b = feasible_[i + 1];
    if (!close(a.key, b.key)) {
      continue;
    }
    tied = true;
    const PlanConfig& x = a.config;
    const PlanConfig& y = b.config;
    if (x.gpu == y.gpu && x.kv_dtype == y.kv_dtype && x.weights_dtype != y.weights_dtype &&
        x.layout.tp == y.layout.tp && x.layout.pp == y.layout.pp && x.layout.ep == y.layout.ep &&
        x.layout.dp == y.layout.dp && x.batch == y.batch && x.max_batch == y.max_batch && x.replicas == y.replicas &&
        price_key(x.price) == price_key(y.price) && close(x.output_tokens_per_s, y.output_tokens_per_s) &&
        close(x.capacity_tokens_per_s, y.capacity_tokens_per_s) && close(x.itl_s, y.itl_s) &&
        close(x.ttft_s, y.ttft_s)) {
      twins.push_back(fmt::format("#{} and #{} ({} or {})", i + 1, i + 2, to_string(x.weights_dtype),
                                  to_string(y.weights_dtype)));
    }
  }
  if (!tied) {
    return;
  }
  // The checkpoint's own format ranks first only where it was searched (--weights-dtype may leave it out).
  const std::optional<DType> own = checkpoint_dtype(model_, r_);
  const bool own_searched = own && (r_.weights_dtypes.empty() || std::ranges::find(r_.weights_dtypes, *own) !=
                                                                     r_.weights_dtypes.end());
  result_.notes.push_back(fmt::format(
      "rows of one cost rank by the fewest GPUs paid, then the least precision given up (weights below the "
      "checkpoint's, {}a KV cache below 16 bits), then the most capacity, then the most tok/s per user{}",
      own_searched ? fmt::format("the {} checkpoint as it ships before a re-quantization of it, ", to_string(*own))
                   : std::string(),
      twins.empty() ? std::string()
                    : fmt::format("; {} are one deployment in two weights formats of the same size and speed here: "
                                  "either checkpoint",
                                  fmt::join(twins, ", "))));
}

Search::Candidate Search::operate(const GpuSpec& gpu, const Price& price, const GpuNeed& need, std::uint64_t needed,
                                  const PerfModel& pm, const EstimateBand& band, const PerfPoint& first,
                                  const PerfPoint& at_max, bool latency_met, const std::vector<PerfPoint>& all) {
  const std::optional<double>& target = r_.targets.output_tokens_per_s;
  const Layout& layout = pm.request().fit.layout;
  const std::uint64_t most = kMaxGpus / layout.gpus();
  const InstanceRental rental = rent_instances(need.gpus, price.gpus_per_instance, need.group);
  const std::uint64_t replicas = std::clamp<std::uint64_t>(rental.rented_gpus / layout.gpus(), needed, most);
  PerfPoint op = at_max;
  if (target && latency_met) {
    const auto carries = [&](const PerfPoint& p) { return d(replicas) * p.output_tokens_per_s >= *target; };
    if (r_.batch_search == BatchSearch::exhaustive) {
      const auto it = std::find_if(all.begin(), all.end(), [&](const PerfPoint& p) { return carries(p); });
      if (it != all.end() && it->batch <= at_max.batch) {
        op = *it;
      }
    } else if (carries(first)) {
      op = first;
    } else if (carries(at_max)) {
      std::uint64_t lo = 1;
      std::uint64_t hi = at_max.batch;
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        const PerfPoint p = eval(pm, mid);
        if (carries(p)) {
          hi = mid;
          op = p;
        } else {
          lo = mid;
        }
      }
    }
  }
  return priced(gpu, price, pm, at_max, op, replicas, for_layout(band, layout, r_.gpus_per_node));
}

std::optional<std::string> Search::format_refusal(const GpuSpec& gpu, DType weights) const {
  const Engine engine = r_.launch_engine.value_or(r_.perf.fit.engine.engine);
  if (engine == Engine::neutral) {
    // No engine named: refused only where every engine that runs on the GPU refuses (as fit's
    // no_engine_runs: gpt-oss's MXFP4 on a T4, which perf refuses, is not a plan's row).
    std::optional<std::string> first;
    for (const Engine e : {Engine::vllm, Engine::sglang, Engine::trtllm}) {
      if (!engine_runs_on(e, gpu)) {
        continue;
      }
      std::optional<std::string> refusal = format_refusal(gpu, weights, e);
      if (!refusal) {
        return std::nullopt;
      }
      first = first ? first : std::move(refusal);
    }
    return first;
  }
  return format_refusal(gpu, weights, engine);
}

std::optional<std::string> Search::format_refusal(const GpuSpec& gpu, DType weights, Engine engine) const {
  const std::optional<WeightFormats> formats = release_formats(model_, r_, weights);
  if (!formats) {
    return engine_weights_refusal(engine, gpu, weights);
  }
  // The checkpoint's own quantization method (AWQ bits, AWQ on Volta, W4A8_AWQ before Ada).
  if (model_.shipped_formats && *formats == *model_.shipped_formats) {
    if (std::optional<std::string> refusal = engine_checkpoint_refusal(engine, gpu, model_)) {
      return refusal;
    }
  }
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const auto part = static_cast<WeightPart>(i);
    const bool experts = part == WeightPart::routed_experts || part == WeightPart::shared_experts;
    if ((experts && !model_.moe) ||
        (model_.shipped_formats && bitsandbytes_int8_checkpoint(model_, (*formats)[part], (*model_.shipped_formats)[part]))) {
      continue;
    }
    if (std::optional<std::string> refusal = engine_weights_refusal(engine, gpu, (*formats)[part], experts)) {
      return refusal;
    }
  }
  return std::nullopt;
}

void Search::search_gpu(const GpuSpec& gpu, const std::vector<Price>& prices) {
  gpu_id_ = gpu.id;
  std::vector<DType> weights = r_.weights_dtypes.empty() ? default_weights_dtypes(gpu) : r_.weights_dtypes;
  // The checkpoint's own quantized format is always searched: gpt-oss ships MXFP4 experts, which
  // vLLM and SGLang run on Hopper, Ampere and MI300X too (weight-only), though those GPUs multiply no
  // FP4. Left out, the cheapest row on an H100 was an INT4 re-quantization that no one ships while
  // cost and compare sized the checkpoint itself. Unasked, it is skipped quietly where it cannot run.
  std::optional<DType> own_added;
  if (r_.weights_dtypes.empty() && quantized_config(model_, r_)) {
    weights = {*checkpoint_dtype(model_, r_)};
  } else if (const std::optional<DType> own = checkpoint_dtype(model_, r_);
             r_.weights_dtypes.empty() && own && std::find(weights.begin(), weights.end(), *own) == weights.end()) {
    weights.push_back(*own);
    own_added = own;
  }
  for (DType listed : weights) {
    // Volta and Turing run a bf16 checkpoint as fp16 (vLLM refuses --dtype bfloat16 there).
    const DType wf = listed == DType::bf16 && !gpu.dense_flop_per_s.contains("bf16") ? DType::fp16 : listed;
    const std::vector<DType> kvs = r_.kv_dtypes.empty() ? default_kv_dtypes(gpu, model_, wf) : r_.kv_dtypes;
    // A format the catalog cannot time on this GPU (no peak figure for it): say so, go on.
    if (std::optional<std::string> problem = timing_problem(gpu, wf, r_.perf.sparse)) {
      if (own_added == listed) {
        continue;
      }
      result_.notes.push_back(fmt::format("{} with {} weights not searched: {}", gpu.id, to_string(wf), *problem));
      continue;
    }
    // Nor one the engine would refuse to load there (every fit of it would throw).
    if (std::optional<std::string> refusal = format_refusal(gpu, wf)) {
      if (own_added == listed) {
        continue;
      }
      result_.notes.push_back(fmt::format("{} with {} weights not searched: {}", gpu.id, to_string(wf), *refusal));
      continue;
    }
    search_format(gpu, prices, wf, kvs);
  }
}

void Search::search_format(const GpuSpec& gpu, const std::vector<Price>& prices, DType weights,
                           const std::vector<DType>& kvs) {
  const bool calibrated = engine_calibrated(r_.perf.fit.engine.engine) &&
                          (!r_.launch_engine || engine_calibrated(*r_.launch_engine));
  const EstimateBand band = estimate_band(catalog_, model_, gpu, weights, calibrated);
  PerfRequest base = r_.perf;
  base.fit.weights_dtype = weights;
  base.fit.weight_formats = release_formats(model_, r_, weights);
  base.fit.embeddings_dtype.reset();
  base.fit.concurrency = 1;
  base.fit.context_tokens = base.input_tokens + base.output_tokens;
  base.fit.prompt_tokens = base.input_tokens;
  // The whole model's weights in this format: a replica of n GPUs holds at least 1/n of them, so
  // a replica too small for that share is dropped without a fit, and a node too small for them
  // calls for TP across nodes.
  const FitResult whole = fit(model_, gpu, base.fit);
  double weights_bytes = 0;
  for (double part : whole.model_weight_bytes) {
    weights_bytes += part;
  }
  const double cap_bytes = whole.per_gpu.engine_cap_bytes;
  if (cap_bytes > 0) {
    const auto need = static_cast<std::uint64_t>(std::ceil(weights_bytes / cap_bytes));
    auto it = std::find_if(result_.weights_need.begin(), result_.weights_need.end(),
                           [&](const PlanResult::WeightsNeed& w) { return w.gpu == gpu.id; });
    if (it == result_.weights_need.end()) {
      result_.weights_need.push_back({.gpu = gpu.id, .weights = weights, .gpus = need});
    } else if (need < it->gpus) {
      *it = {.gpu = gpu.id, .weights = weights, .gpus = need};
    }
  }
  // FP8 from a 16-bit checkpoint, quantized by an engine that loads the 16-bit weights whole
  // first: those weights, for the launch line (engine_flags.hpp engine_loads_sixteen_bit_whole).
  double sixteen_bit_bytes = 0;
  if (r_.launch_engine && weights == DType::fp8 && !checkpoint_dtype(model_, r_) &&
      engine_loads_sixteen_bit_whole(*r_.launch_engine, r_.perf.fit.engine.vllm_minor_version)) {
    FitRequest sixteen = base.fit;
    sixteen.weights_dtype = DType::bf16;
    sixteen.weight_formats = release_formats(model_, r_, DType::bf16);
    const FitResult sixteen_fit = fit(model_, gpu, sixteen);
    for (double part : sixteen_fit.model_weight_bytes) {
      sixteen_bit_bytes += part;
    }
  }
  const std::uint64_t node_gpus = tp_within_node(gpu, {.gpus = 1, .gpus_per_node = r_.gpus_per_node});
  const std::vector<Layout> layouts =
      r_.layouts.empty() ? plan_layouts(model_, gpu, r_, weights_bytes / d(node_gpus) > cap_bytes) : r_.layouts;
  std::optional<detail::FitBasis> basis;  // the model's weights in this format, for every layout
  const WeightFormats served_formats = detail::resolve_formats(model_, base.fit);
  for (DType kv : kvs) {
    if (std::optional<std::string> refusal =
            engine_kv_refusal(model_, r_.launch_engine.value_or(r_.perf.fit.engine.engine), kv)) {
      std::string note = fmt::format("{} KV cache not searched: {}", to_string(kv), *refusal);
      if (std::find(result_.notes.begin(), result_.notes.end(), note) == result_.notes.end()) {
        result_.notes.push_back(std::move(note));
      }
      continue;
    }
    for (const Layout& l : layouts) {
      ++result_.counts.layouts;
      // Each layout stands alone: one the model does not allow is skipped, not the format.
      if (std::optional<std::string> problem = layout_problem(l, model_)) {
        skip(std::move(*problem));
        continue;
      }
      if (std::optional<std::string> problem = quantized_shard_problem(l, model_, served_formats)) {
        skip(std::move(*problem));
        continue;
      }
      if (std::optional<std::string> problem = unrentable(l, gpu, prices, r_.gpus_per_node)) {
        skip(std::move(*problem));
        continue;
      }
      if (weights_bytes / d(l.gpus()) > cap_bytes) {
        ++result_.counts.pruned;
        continue;
      }
      PerfRequest pr = base;
      pr.fit.layout = l;
      pr.fit.kv_dtype = kv;
      const PerfModel pm(model_, gpu, pr, basis);  // the request, layout and format are checked above
      if (!pm.fit().weights_fit || pm.max_batch_by_memory() == 0) {
        ++result_.counts.pruned;
        continue;
      }
      ++result_.counts.timed;
      sixteen_bit_shard_bytes_ = sixteen_bit_bytes / d(l.gpus());
      // SGLang derives its own mem_fraction_static from the GPU and the layout: the plan is sized
      // with it and the command sets it (or the --mem-fraction-static given, beside which the
      // header says what SGLang would have picked).
      // vLLM's default is the release's, the same for every layout: the fit's share when none is given.
      engine_default_share_ = 0;
      const bool launched_engine = r_.launch_engine && pr.fit.engine.engine == *r_.launch_engine;
      if (launched_engine && *r_.launch_engine == Engine::vllm && !r_.launch_gpu_memory_utilization) {
        engine_default_share_ = pm.fit().engine ? pm.fit().engine->share : 0.0;
      } else if (launched_engine && (*r_.launch_engine == Engine::sglang || *r_.launch_engine == Engine::vllm)) {
        FitRequest own = pr.fit;
        own.engine.mem_fraction_static.reset();
        own.engine.gpu_memory_utilization.reset();
        if (const FitResult f = fit(model_, gpu, own); f.engine) {
          engine_default_share_ = f.engine->share;
        }
      }
      search_layout(gpu, prices, pm, band);
    }
  }
}

PlanResult Search::run() {
  validate_plan_request(model_, r_);
  result_.model_id = model_.id;
  result_.hf_repo = r_.launch_model.empty() ? model_.hf_repo : r_.launch_model;
  result_.checkpoint_dtype = checkpoint_dtype(model_, r_);
  result_.unscaled_context_tokens = model_.unscaled_max_position_embeddings;
  result_.remote_code = model_.remote_code;
  if (r_.launch_model.empty() && model_.checkpoint_quant && !model_.checkpoint_quant->sidecar.empty()) {
    result_.sidecar_quant_method = model_.checkpoint_quant->method;
  }
  result_.request = r_;
  const std::map<std::string, std::vector<Price>> prices = prices_by_gpu(catalog_, r_);
  std::vector<const GpuSpec*> gpus;
  if (r_.gpus.empty()) {
    // A node larger than a GPU's board (10 a node: HGX and OAM boards hold 8) is no server of
    // that GPU: it is left out, said, rather than timed over links no server has (named with
    // --gpu it is refused). GB10 (one a system) keeps being sized at the flag's node.
    std::vector<std::string> no_such_node;
    for (const GpuSpec& g : catalog_.gpus()) {
      const std::optional<std::uint64_t> most = max_gpus_per_node(g);
      if (!prices.contains(g.id)) {
        continue;
      }
      if (most && !g.gpus_per_system && r_.gpus_per_node > *most) {
        no_such_node.push_back(g.id);
      } else {
        gpus.push_back(&g);
      }
    }
    if (!no_such_node.empty()) {
      result_.notes.push_back(fmt::format("not searched: {}: no server of theirs holds {} GPUs (a node is one "
                                          "NVLink or xGMI board of at most {}); name one with --gpu and a "
                                          "--gpus-per-node it has",
                                          fmt::join(no_such_node, ", "), r_.gpus_per_node, kServerDomainGpus));
    }
  } else {
    for (const std::string& id : r_.gpus) {
      const GpuSpec& g = catalog_.gpu(id);
      if (std::find(gpus.begin(), gpus.end(), &g) != gpus.end()) {
        throw InputError(fmt::format("plan.gpus: '{}' is given twice", g.id));
      }
      if (prices.contains(g.id)) {
        gpus.push_back(&g);
      } else {
        result_.unpriced_gpus.push_back(g.id);
      }
    }
  }
  // A launch command is asked for: GPUs its engine does not run on are not searched.
  if (r_.launch_engine) {
    const bool any = !gpus.empty();
    std::erase_if(gpus, [this](const GpuSpec* g) {
      if (engine_runs_on(*r_.launch_engine, *g)) {
        return false;
      }
      result_.unlaunchable_gpus.push_back(g->id);
      return true;
    });
    if (any && gpus.empty()) {
      throw InputError(fmt::format("plan.launch_engine: {} runs on NVIDIA GPUs only{}, and none of {} is one",
                                   to_string(*r_.launch_engine),
                                   *r_.launch_engine == Engine::trtllm ? " (Ampere and later)" : "",
                                   fmt::join(result_.unlaunchable_gpus, ", ")));
    }
  }
  // A region no catalog price is in is a typo, as compare says: not "no price" for every GPU, and
  // not silence when --price covers them all.
  if (!r_.region.empty() &&
      std::none_of(catalog_.prices().begin(), catalog_.prices().end(), [this](const Price& p) { return in_region(p, r_.region); })) {
    throw InputError(fmt::format("plan.region: no catalog price is in region '{}'; regions: {}", r_.region,
                                 fmt::join(regions(catalog_), ", ")));
  }
  const std::string mode(to_string(r_.mode.value_or(PricingMode::on_demand)));
  if (gpus.empty()) {
    // Named after the narrowest choice the user made: that is the one to loosen.
    const std::string_view field = !r_.region.empty()   ? "plan.region"
                                   : !r_.term.empty()    ? "plan.term"
                                   : r_.mode             ? "plan.mode"
                                   : !r_.provider.empty() ? "plan.provider"
                                                          : "plan.gpus";
    throw InputError(fmt::format("{}: no {} price{}{} for {}; give one with --price GPU=USD", field, mode,
                                 r_.provider.empty() ? "" : " at " + r_.provider,
                                 r_.region.empty() ? "" : " in region " + r_.region,
                                 r_.gpus.empty() ? std::string("any GPU") : fmt::format("{}", fmt::join(r_.gpus, ", "))));
  }
  // Formats asked for that the engine refuses for this checkpoint, every one of them: say so
  // rather than report that nothing fits.
  const Engine engine = r_.launch_engine.value_or(r_.perf.fit.engine.engine);
  if (!r_.kv_dtypes.empty() && std::ranges::all_of(r_.kv_dtypes, [&](DType kv) {
        return engine_kv_refusal(model_, engine, kv).has_value();
      })) {
    throw InputError(
        fmt::format("plan.kv_dtypes: {}: {}", model_.id, *engine_kv_refusal(model_, engine, r_.kv_dtypes.front())));
  }
  for (const GpuSpec* g : gpus) {
    frontier_.clear();
    search_gpu(*g, prices.at(g->id));
    result_.pareto.insert(result_.pareto.end(), frontier_.begin(), frontier_.end());
  }
  // At one price, the fewest GPUs paid, then the least precision given up below the checkpoint's
  // own weights and a 16-bit KV cache (4-bit weights that meet the targets at an FP8 row's price
  // buy nothing but error), then the most capacity for it (8 replicas filling an 8-GPU instance
  // before one replica leaving 3 of its GPUs idle), then the fastest per user.
  // Element widths, not storage: NVFP4's scales are no more precision than MXFP4's or INT4's.
  const double own_bits = checkpoint_dtype(model_, r_) ? element_bits(*checkpoint_dtype(model_, r_)) : 16.0;
  // On NVIDIA, NVFP4 before MXFP4 at one price: NVIDIA ships NVFP4 checkpoints
  // (nvidia/Llama-3.3-70B-Instruct-FP4) and vLLM runs Quark's MXFP4 there emulated, dequantizing
  // the weights to 16 bits every pass (quark_ocp_mx.py: emulate = not current_platform.supports_mx(),
  // which only ROCm gfx95x answers true).
  // Rows on a current price first, across GPUs, unless --include-stale: a GPU's current price wins
  // over its stale one, so a GPU priced only stale must not outrank it either (helper s58 tasks F4:
  // #1 ran on a 554-day-old B300 spot price while H100's cheaper 281-day-old one was set aside for
  // its current one). A price 180 days old is no offer to act on; the stale rows follow by cost.
  // A checkpoint that ships quantized (gpt-oss's MXFP4 experts, DeepSeek's FP8) is launched by its
  // own name; another format of the same width needs a re-quantization of it that may not exist
  // (INT4 of gpt-oss quantizes the attention it ships in bf16), so at one price it ranks after.
  const std::optional<DType> own_dtype = checkpoint_dtype(model_, r_);
  const auto rank = [this, own_bits, own_dtype](const Candidate& c) {
    const PlanConfig& k = c.config;
    const bool stale_tier = stale_ranks_last(c);
    const double weights_given_up = std::max(0.0, own_bits - element_bits(k.weights_dtype));
    const double kv_given_up = std::max(0.0, 16.0 - element_bits(k.kv_dtype));
    const bool requantized = own_dtype && k.weights_dtype != *own_dtype;
    // The emulated-MXFP4 penalty is for re-quantizations; gpt-oss's own MXFP4 runs native kernels.
    const bool mx_on_nvidia =
        k.weights_dtype == DType::mxfp4 && own_dtype != DType::mxfp4 && catalog_.gpu(k.gpu).vendor == "nvidia";
    return std::tuple(stale_tier, c.key, k.cost.rental.rented_gpus, weights_given_up, requantized, mx_on_nvidia,
                      kv_given_up,
                      -k.capacity_tokens_per_s,
                      -k.tokens_per_s_per_user, k.gpu, k.weights_dtype, k.kv_dtype, k.layout.tp, k.layout.pp,
                      k.layout.ep, k.layout.dp);
  };
  std::sort(feasible_.begin(), feasible_.end(), [&](const Candidate& a, const Candidate& b) { return rank(a) < rank(b); });
  result_.counts.feasible = feasible_.size();
  const std::size_t top = std::min(r_.top, feasible_.size());
  for (std::size_t i = 0; i < top; ++i) {
    PlanConfig k = feasible_[i].config;
    // Rivals on the same GPU share the estimate's error (the same roofline, the same
    // calibration); the band decides only between GPUs.
    // A stale row below a current one is cheaper by its price's age, not the estimate's error.
    for (std::size_t j = i + 1; j < feasible_.size() && !k.within_band; ++j) {
      if (feasible_[j].config.gpu != k.gpu && stale_ranks_last(feasible_[j]) == stale_ranks_last(feasible_[i]) &&
          feasible_[j].key_high < feasible_[i].key_low) {
        k.within_band = true;
      }
    }
    result_.configurations.push_back(std::move(k));
  }
  note_ties(top);
  if (feasible_.empty()) {
    PlanMiss miss;
    miss.layouts_missing = missing_;
    if (closest_) {
      miss.binding = closest_binding_;
      miss.shortfall = closest_ratio_;
      miss.closest = closest_->config;
      miss.missed = closest_missed_;
    }
    result_.miss = std::move(miss);
  }
  if (!result_.configurations.empty() && result_.configurations.front().layout.dp_attention()) {
    result_.notes.push_back(fmt::format("#1: {}", attention_dp_note()));
  }
  if (!result_.configurations.empty() && result_.configurations.front().price.stale()) {
    // A stale price can decide the ranking (spot prices move weekly): say so, and which row is
    // the first on a current price.
    const auto& configs = result_.configurations;
    const auto current = std::find_if(configs.begin(), configs.end(), [](const PlanConfig& c) { return !c.price.stale(); });
    const Price& p = configs.front().price;
    result_.notes.push_back(fmt::format(
        "#1's price is {} days old ({} {} {}, stale): check it before acting on the ranking{}", p.age_days, p.provider,
        to_string(p.mode), p.gpu,
        current == configs.end() ? fmt::format("; none of the {} rows ranked has a current price", configs.size())
                                 : fmt::format("; the first row on a current price is #{}", current - configs.begin() + 1)));
  }
  // The cheapest configuration on a stale price: one set aside for its GPU's current price, or a
  // GPU's priced only stale, ranked after the current rows.
  const Candidate* stale = cheaper_stale_ ? &*cheaper_stale_ : nullptr;
  for (const Candidate& c : feasible_) {
    if (stale_ranks_last(c) && (stale == nullptr || c.key < stale->key)) {
      stale = &c;
    }
  }
  if (stale != nullptr && !feasible_.empty() && stale->key < feasible_.front().key * (1.0 - 1e-9)) {
    // A rate over 180 days old is no offer to act on, but the money it may save is the reader's
    // to judge: say what, how much, and both prices' ages.
    const PlanConfig& k = stale->config;
    const PlanConfig& first = result_.configurations.front();
    const Price& p = k.price;
    result_.notes.push_back(fmt::format(
        "cheaper on a stale price: {} {}/{} {} x {} at {} {} ${:.2f}/GPU-h ({}, {} days old) costs {:.2f} USD/h, "
        "{:.4f} USD/Mtok, against #1's {:.2f} USD/h, {:.4f} USD/Mtok on a price {} days old; the ranking puts every "
        "row on a current price before the rows on stale ones, whichever GPU (--include-stale ranks prices older "
        "than {} days by cost with the current ones)",
        k.gpu, to_string(k.weights_dtype), to_string(k.kv_dtype), layout_label(k.layout), k.replicas, p.provider,
        offer_label(p.mode, p.term), p.usd_per_gpu_hour, p.date, p.age_days, k.usd_per_hour(),
        k.cost.usd_per_million_tokens, first.usd_per_hour(), first.cost.usd_per_million_tokens,
        first.price.age_days, kStalePriceDays));
    result_.cheaper_stale = k;
  }
  // Reserved rates of several terms in one ranking: a 3-year rate undercuts a 1-year one by the
  // commitment, not the configuration, and an unstated term is a rate card's "from" price of a
  // contract (helper s57 tasks F4: #1 on hyperstack's unstated term over civo's 3y). compare keeps
  // each term apart; plan names the rows' terms and how to rank one.
  if (r_.term.empty() && mode_has_term(r_.mode.value_or(PricingMode::on_demand))) {
    std::map<std::string, std::vector<std::size_t>> rows_by_term;
    for (std::size_t i = 0; i < result_.configurations.size(); ++i) {
      const Price& price = result_.configurations[i].price;
      if (price.provider != kGivenProvider) {  // --price has the term the user meant
        rows_by_term[price.term.empty() ? "unstated" : price.term].push_back(i + 1);
      }
    }
    if (rows_by_term.size() > 1 || rows_by_term.contains("unstated")) {
      std::vector<std::string> parts;
      for (const auto& [term, rows] : rows_by_term) {
        parts.push_back(fmt::format("{} #{}", term == "unstated" ? "term unstated (a \"from\" price)" : term,
                                    fmt::join(rows, ", #")));
      }
      result_.notes.push_back(fmt::format(
          "reserved rates of {} ranked together: {}; a longer commitment is cheaper by its term, not by the "
          "configuration: --term 1y (or 3y, ...) ranks one term",
          rows_by_term.size() > 1 ? "several terms" : "an unstated term", fmt::join(parts, "; ")));
    }
  }
  for (const auto& [reason, n] : result_.skipped) {
    result_.notes.push_back(fmt::format("{} layout{} skipped: {}", n, n == 1 ? "" : "s", reason));
  }
  if (r_.weights_dtypes.empty() && quantized_config(model_, r_)) {
    result_.notes.push_back(fmt::format("weights: {} as the checkpoint ships them (a quantized checkpoint is not "
                                        "re-quantized; --weights-dtype searches other formats, of its 16-bit original)",
                                        to_string(*checkpoint_dtype(model_, r_))));
  }
  result_.notes.push_back(fmt::format(
      "prices: the {}{} price of each GPU{}{} that costs least for each configuration, whole instances paid where "
      "the price gives their size {}{}",
      r_.include_stale ? "" : "current ",
      mode == "spot" ? std::string("spot (or preemptible or interruptible: each offer's own word)") : mode,
      r_.provider.empty() ? " over every provider" : " at " + r_.provider,
      r_.region.empty() ? "" : " in region " + r_.region,
      r_.include_stale ? fmt::format("(stale ones, older than {} days, ranked by cost with them: --include-stale)",
                                     kStalePriceDays)
                       : "(the newest stale one where none is current, its rows ranked after every row on a current "
                         "price)",
      r_.given_usd_per_gpu_hour.empty() ? "" : "; a price given with --price is a row of its own (provider given)"));
  // What --region dropped that may be there (no region stated): a cheaper offer is never left
  // out silently (--region us dropped Civo's H100 at 2.99 for AWS's at 6.88).
  if (!r_.region.empty()) {
    const PricingMode mode_searched = r_.mode.value_or(PricingMode::on_demand);
    std::vector<const Price*> others;
    for (const Price& p : catalog_.prices()) {
      if ((r_.provider.empty() || p.provider == r_.provider) && mode_matches(p.mode, mode_searched) &&
          (r_.term.empty() || p.term == r_.term) &&
          (r_.gpus.empty() || std::find(r_.gpus.begin(), r_.gpus.end(), p.gpu) != r_.gpus.end())) {
        others.push_back(&p);
      }
    }
    if (std::string note = region_left_out_note(region_left_out(others, r_.region), r_.region); !note.empty()) {
      // The one that matters most: a region-less offer of #1's own GPU below #1's price.
      if (!result_.configurations.empty()) {
        const PlanConfig& first = result_.configurations.front();
        // As #1's own price is chosen: a current offer over a stale one unless --include-stale.
        std::erase_if(others, [&](const Price* p) { return p->gpu != first.gpu || (!r_.include_stale && p->stale()); });
        const RegionLeftOut same_gpu = region_left_out(others, r_.region);
        if (same_gpu.cheapest != nullptr && same_gpu.cheapest->usd_per_gpu_hour < first.price.usd_per_gpu_hour) {
          note += fmt::format("; of #1's GPU, {}: {} {} {:.2f} USD/GPU-h against #1's {:.2f}", first.gpu,
                              same_gpu.cheapest->provider, offer_label(same_gpu.cheapest->mode, same_gpu.cheapest->term),
                              same_gpu.cheapest->usd_per_gpu_hour, first.price.usd_per_gpu_hour);
        }
      }
      result_.notes.push_back(std::move(note));
    }
  }
  return std::move(result_);
}

}  // namespace

std::string_view to_string(PlanTarget target) {
  switch (target) {
    case PlanTarget::output_tokens_per_s: return "target_output_tokens_per_s";
    case PlanTarget::max_itl: return "max_itl";
    case PlanTarget::max_ttft: return "max_ttft";
    case PlanTarget::min_tokens_per_s_per_user: return "min_tokens_per_s_per_user";
    case PlanTarget::max_usd_per_million_tokens: return "max_usd_per_million_tokens";
    case PlanTarget::memory: return "memory";
  }
  return "?";
}

std::vector<DType> default_weights_dtypes(const GpuSpec& gpu) {
  const auto has = [&gpu](const char* t) { return gpu.dense_flop_per_s.contains(t); };
  std::vector<DType> out{has("bf16") || !has("fp16") ? DType::bf16 : DType::fp16};
  if (has("fp8")) {
    out.push_back(DType::fp8);
  }
  if (has("int8")) {
    out.push_back(DType::int8);
  }
  out.push_back(DType::int4);  // weight-only (W4A16): dequantized to 16 bits on any GPU
  if (has("fp4")) {
    out.push_back(DType::fp4);
    out.push_back(DType::mxfp4);
  }
  return out;
}

std::vector<DType> default_kv_dtypes(const GpuSpec& gpu, const ModelSpec& model, DType weights) {
  // Served in 16 bits, the KV cache follows them; quantized, the model's own 16-bit format.
  WeightFormats shipped = model.shipped_formats.value_or(WeightFormats{});
  if (weights == DType::fp16 || weights == DType::bf16) {
    shipped.vectors = weights;
  }
  const DType sixteen = default_kv_dtype(shipped, gpu);
  std::vector<DType> out{sixteen};
  if (gpu.dense_flop_per_s.contains("fp8")) {
    out.push_back(DType::fp8);
  }
  return out;
}

std::vector<Layout> plan_layouts(const ModelSpec& model, const GpuSpec& gpu, const PlanRequest& r,
                                 bool weights_exceed_node) {
  const std::uint64_t most = r.max_gpus_per_replica;
  const std::uint64_t node_tp = tp_within_node(gpu, {.gpus = 1, .gpus_per_node = r.gpus_per_node});
  const auto experts_split = [&model](std::uint64_t ways) { return model.moe && model.moe->routed_experts % ways == 0; };
  std::vector<Layout> out;
  for (std::uint64_t tp = 1; tp <= std::min(node_tp, most); ++tp) {
    if (!tp_allowed(model, tp)) {
      continue;
    }
    for (std::uint64_t pp = 1; tp * pp <= most && pp <= model.num_hidden_layers; ++pp) {
      out.push_back(Layout{.tp = tp, .pp = pp, .ep = 1, .dp = 1});
      if (tp > 1 && experts_split(tp)) {
        out.push_back(Layout{.tp = tp, .pp = pp, .ep = tp, .dp = 1});
      }
    }
  }
  // DP attention: each rank attends over its own sequences (no TP all-reduce, no KV copies of an
  // MLA latent), the experts are split over all GPUs and fed by all-to-alls. A rank may itself
  // be a TP group within a node (fewer, larger batches; attention weights split), where the
  // engine allows it.
  const std::uint64_t rank_tp_most = r.launch_engine == Engine::trtllm ? 1 : std::min(node_tp, most);
  for (std::uint64_t gpus = 2; gpus <= most; ++gpus) {
    if (!experts_split(gpus)) {
      continue;
    }
    for (std::uint64_t tp = 1; tp <= rank_tp_most && 2 * tp <= gpus; ++tp) {
      if (gpus % tp == 0 && tp_allowed(model, tp)) {
        out.push_back(Layout{.tp = tp, .pp = 1, .ep = gpus, .dp = gpus / tp});
      }
    }
  }
  // TP across nodes, only when a node cannot hold the weights (recipes pipeline between nodes
  // first; both are searched and the network prices the difference).
  if (weights_exceed_node) {
    for (std::uint64_t tp = 2 * node_tp; tp <= most; tp += node_tp) {
      if (tp_allowed(model, tp)) {
        out.push_back(Layout{.tp = tp, .pp = 1, .ep = 1, .dp = 1});
        if (experts_split(tp)) {
          out.push_back(Layout{.tp = tp, .pp = 1, .ep = tp, .dp = 1});
        }
      }
    }
  }
  return out;
}

namespace {

/// The request as the launch engine will run it: TensorRT-LLM and SGLang keep the whole context in
/// windowed and chunked-attention layers (windows_keep_context), so its configurations are sized that way.
PerfRequest launched(const PlanRequest& request) {
  PerfRequest r = request.perf;
  r.fit.windows_keep_context = r.fit.windows_keep_context || request.launch_engine == Engine::trtllm ||
                              request.launch_engine == Engine::sglang;
  r.fit.windows_read_window = r.fit.windows_read_window || request.launch_engine == Engine::sglang;
  r.fit.gpus_per_node = request.gpus_per_node;  // where its NVLink and PCIe end
  // Its memory arithmetic at the share the command sets: the batch cap the command emits is then
  // what that engine's own KV cache holds (the neutral budget had emitted 101 where vLLM holds 94).
  if (request.launch_engine && r.fit.engine.engine == Engine::neutral) {
    r.fit.engine.engine = *request.launch_engine;
    switch (*request.launch_engine) {
      // vLLM's own default unless plan was given --gpu-memory-utilization: the neutral 0.9 had sized
      // and been set in the command while perf and fit --engine vllm used vLLM's 0.92 (helper s58
      // tasks F5; vllm/config/cache.py `gpu_memory_utilization: float = Field(default=0.92, ...)`).
      case Engine::vllm: r.fit.engine.gpu_memory_utilization = request.launch_gpu_memory_utilization; break;
      // SGLang's own rule per GPU and layout unless plan was given --mem-fraction-static: the
      // neutral 0.9 had been set in the command, above SGLang's default (0.856 for Qwen3-235B on
      // H200, 0.834 with DP attention and EP 16 on H100), where it budgets for CUDA graphs and
      // communicators (helper s57 tasks F5). python/sglang/srt/server_args.py sets it in
      // _handle_gpu_memory_settings (sglang v0.5.x).
      case Engine::sglang: r.fit.engine.mem_fraction_static = request.launch_mem_fraction_static; break;
      case Engine::trtllm: r.fit.engine.kv_cache_free_gpu_mem_fraction = r.fit.memory_utilization; break;
      case Engine::neutral: break;
    }
  }
  // trtllm-serve refuses a prompt longer than max_num_tokens unless chunked prefill is on: a
  // prompt longer than that step (the prompt alone, as fit's refusal counts it) gets it in the
  // command's YAML, and the plan is timed and sized chunked as that command runs (helper s55
  // tasks F1: a 32K plan emitted without it).
  if (request.launch_engine == Engine::trtllm && r.fit.engine.engine == Engine::trtllm &&
      !r.fit.engine.trtllm_chunked_prefill &&
      r.input_tokens > r.fit.engine.max_num_batched_tokens.value_or(kTrtllmDefaultMaxNumTokens)) {
    r.fit.engine.trtllm_chunked_prefill = true;
  }
  return r;
}

}  // namespace

PlanResult plan(const Catalog& catalog, const ModelSpec& model, const PlanRequest& request) {
  PlanRequest r = request;
  r.perf = launched(request);
  return Search(catalog, model, r).run();
}

PerfPoint evaluate_config(const Catalog& catalog, const ModelSpec& model, const PlanRequest& request,
                          const PlanConfig& config) {
  PerfRequest pr = launched(request);
  pr.fit.layout = config.layout;
  pr.fit.weights_dtype = config.weights_dtype;
  pr.fit.kv_dtype = config.kv_dtype;
  pr.fit.weight_formats = release_formats(model, request, config.weights_dtype);
  pr.fit.embeddings_dtype.reset();
  pr.fit.concurrency = 1;
  const PerfModel pm(model, catalog.gpu(config.gpu), pr);  // validates what a hand-made config may get wrong
  return pm.evaluate(config.batch, pr.efficiency);
}

}  // namespace gpuplan
