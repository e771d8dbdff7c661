// Modeled serving scaling (include/gpuplan/scale_model.hpp): every row is one PerfModel
// evaluation of a layout at the engine's batch cap (or what the KV cache holds; under latency caps
// the largest batch within them), priced by cost().
#include <gpuplan/scale_model.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <gpuplan/band.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/latency_batch.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/layout_search.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/comm.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/rental.hpp>

#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

using detail::d;

using limits::kMaxGpus;
bool same(const Layout& a, const Layout& b) { return a.tp == b.tp && a.pp == b.pp && a.dp == b.dp && a.ep == b.ep; }

// The links a layout's groups talk over, as the communication model times them (group_path).
std::string links_of(const GpuSpec& gpu, const Layout& l, std::uint64_t node_gpus) {
  const auto over = [&](std::uint64_t group) { return path_name(gpu, group_path(gpu, group, node_gpus)); };
  std::string text = l.tp > 1 ? "TP " + over(l.tp) : "";
  if (l.pp > 1) {
    text += (text.empty() ? "" : ", ") + std::string("PP ") + over(l.tp * l.pp);
  }
  if (l.ep > 1) {  // the all-to-all spans the EP group
    text += (text.empty() ? "" : ", ") + std::string("EP ") + over(l.ep);
  }
  return text.empty() ? "-" : text;
}

class TableBuilder {
 public:
  TableBuilder(const ModelSpec& model, const GpuSpec& gpu, const ScaleModelRequest& r) : model_(model), gpu_(gpu), r_(r) {
    // The GPUs one server joins without the network: its NVLink domain, or its PCIe (cards with
    // or without bridges; group_path).
    const std::uint64_t node = r.perf.fit.gpus_per_node;
    domain_ = group_path(gpu, node, node) == GroupPath::pcie ? node : scale_up_reach(gpu, node);
    if (const auto it = r.usd_per_gpu_hour.find(gpu.id); it != r.usd_per_gpu_hour.end()) {
      price_ = it->second;
    }
    if (const auto it = r.band_by_gpu.find(gpu.id); it != r.band_by_gpu.end()) {
      band_ = it->second;
    }
  }

  // One layout; nullopt when it is not a valid layout for the model or its weights do not fit.
  std::optional<ScaleModelRow> row(const Layout& layout, ScaleWay way, std::string shape) const {
    PerfRequest pr = unit_request();
    pr.fit.layout = layout;
    if (layout.ep <= 1) {
      pr.fit.layout.ep = r_.perf.fit.layout.ep;
    }
    std::optional<PerfModel> pm;
    try {
      validate_layout(pr.fit.layout, model_);
      pm.emplace(model_, gpu_, pr);
    } catch (const InputError&) {
      return std::nullopt;  // TP that does not divide the heads, EP that does not divide: not a candidate
    }
    if (!pm->fit().weights_fit || pm->max_batch_by_memory() < 1) {
      return std::nullopt;
    }
    ScaleModelRow row;
    row.way = way;
    row.shape = std::move(shape);
    row.layout = pr.fit.layout;
    const std::uint64_t full_load = std::min(pm->full_load_batch(), r_.max_batch);
    // Under --max-itl-ms / --max-ttft-ms a row runs at the largest batch within them, found as
    // plan finds it: judged at full load alone, a layout that meets the caps at a smaller batch
    // was dropped (DeepSeek-V3 on MI300X, TP 2 EP 8 DP 4: ITL 283 ms at batch 252, 98 ms at 53).
    PerfModel::StepCache steps(pr.efficiency);
    const PerfPoint first = pm->evaluate(1, steps);
    PerfPoint est = first;
    row.batch = full_load;
    if (caps().any()) {
      const LatencyBatch within = largest_batch_within(caps(), full_load, first, [&](std::uint64_t b) {
        return pm->evaluate(b, steps);
      });
      // Over the caps even at batch 1: shown at full load, never the answer.
      row.batch = within.met ? within.point.batch : full_load;
      row.batch_by_latency = within.met && row.batch < full_load;
      row.over_latency = !within.met;
    }
    if (row.batch != 1) {
      est = pm->evaluate(row.batch, steps);
    }
    row.batch_by_memory = pm->max_batch_by_memory() <= row.batch;
    const PerfPoint roof = pm->evaluate(row.batch, Efficiency::roofline());
    row.links = links_of(gpu_, layout, r_.perf.fit.gpus_per_node);
    row.output_tokens_per_s = est.output_tokens_per_s;
    // A layout no calibration run used (another TP/EP degree, TP across nodes, pipeline stages)
    // widens the GPU's band.
    const Band band = for_layout(band_, layout, r_.perf.fit.gpus_per_node).band;
    row.low = est.output_tokens_per_s * (1.0 + std::min(0.0, band.low));
    row.high = std::min(est.output_tokens_per_s * (1.0 + std::max(0.0, band.high)), roof.output_tokens_per_s);
    row.low = std::min(row.low, row.high);
    row.tokens_per_s_per_gpu = est.output_tokens_per_s / d(layout.gpus());
    row.itl_s = est.itl_s;
    row.single_stream_itl_s = first.itl_s;
    row.ttft_s = est.ttft_s;
    row.communication_share = est.decode.communication_s / est.decode.total_s();
    // The largest part of the step, overhead included: communication that beats memory and
    // compute but is a tenth of a step the fixed overheads fill does not dominate it.
    row.communication_dominates = est.decode.communication_s >= std::max(est.decode.work_s, est.decode.overhead_s);
    row.paid_gpus = layout.gpus();
    if (price_) {
      CostRequest c;
      c.gpus = layout.gpus();
      c.usd_per_gpu_hour = *price_;
      if (const auto it = r_.prices.find(gpu_.id); it != r_.prices.end()) {
        c.instance_group = std::min(c.gpus, instance_group(layout, gpu_, r_.perf.fit.gpus_per_node));
        const auto offer = r_.offers.find(gpu_.id);
        const Price& paid = offer == r_.offers.end() || offer->second.empty()
                                ? it->second
                                : best_for(offer->second, GpuNeed{.gpus = c.gpus, .group = c.instance_group});
        c.usd_per_gpu_hour = paid.usd_per_gpu_hour;
        c.gpus_per_instance = paid.gpus_per_instance;
      }
      c.output_tokens_per_s = est.output_tokens_per_s;
      c.input_tokens_per_s = input_tokens_per_s_for(est.output_tokens_per_s, pr.input_tokens, pr.output_tokens);
      const CostResult paid = cost(c);
      row.not_rentable = paid.rental.group_split;
      if (!row.not_rentable) {
        row.usd_per_million_tokens = paid.usd_per_million_tokens;
        row.paid_gpus = paid.rental.rented_gpus;
      }
    }
    return row;
  }

  ScaleModelTable build() const {
    ScaleModelTable t;
    t.gpu = gpu_.id;
    t.domain_gpus = domain_;
    t.usd_per_gpu_hour = price_;
    if (const auto it = r_.prices.find(gpu_.id); it != r_.prices.end()) {
      t.price = it->second;
    }
    // The smallest replica that fits: fewest GPUs, TP inside the scale-up domain first.
    std::optional<ScaleModelRow> base;
    std::string last_error;
    for (std::uint64_t n = 1; n <= r_.up_to && !base; n *= 2) {
      FitRequest fr = r_.perf.fit;
      fr.context_tokens = r_.perf.input_tokens + r_.perf.output_tokens;
      fr.concurrency = 1;
      std::optional<FitResult> f;
      try {
        f = fit_smallest_layout(model_, gpu_, fr, n);
      } catch (const InputError& e) {
        last_error = e.what();  // e.g. an EP degree that cannot divide this few GPUs
        continue;
      }
      if (f->fits) {
        // One replica, unless expert parallelism spans replicas (EP over TP x DP).
        const Layout l = f->request.layout;
        base = row(l, n <= domain_ ? ScaleWay::scale_up : ScaleWay::scale_out, "smallest");
      }
    }
    if (!base && !last_error.empty()) {
      throw InputError(last_error);
    }
    if (!base) {
      throw InputError(fmt::format("scale.up_to: {} does not fit any layout of up to {} x {} (weights and one "
                                   "{}-token sequence); raise --up-to or see 'gpuplan fit'",
                                   model_.id, r_.up_to, gpu_.id, r_.perf.input_tokens + r_.perf.output_tokens));
    }
    t.smallest = base->layout;
    t.smallest_tokens_per_s = base->output_tokens_per_s;
    const std::uint64_t n0 = base->layout.gpus();
    const Layout& s = base->layout;
    std::vector<ScaleModelRow> rows;
    const auto add = [&](const Layout& l, ScaleWay way, const std::string& shape) {
      if (std::any_of(rows.begin(), rows.end(), [&](const ScaleModelRow& x) { return x.way != ScaleWay::serve_out && same(x.layout, l); })) {
        return;
      }
      if (auto x = row(l, way, shape)) {
        rows.push_back(std::move(*x));
      }
    };
    std::vector<Layout> ep_units;  // best layouts inside the scale-up domain that spread experts over DP
    for (std::uint64_t n = n0; n <= r_.up_to; n *= 2) {
      const ScaleWay way = n <= domain_ ? ScaleWay::scale_up : ScaleWay::scale_out;
      add({.tp = s.tp, .pp = s.pp, .ep = s.ep, .dp = s.dp * (n / n0)}, way, n == n0 ? "smallest" : "replicas");
      // The layout perf, cost and compare would choose on n GPUs (expert parallelism, attention
      // DP, TP x DP): scale's rows must not miss what the other commands serve with.
      if (const std::optional<Layout> best = best_of(n)) {
        add(*best, way, "most tok/s");
        if (n <= domain_ && best->ep > 1 && best->ep == best->tp * best->dp) {
          ep_units.push_back(*best);
        }
      }
      if (n <= domain_) {
        add({.tp = n, .pp = 1, .dp = 1}, way, "wider TP");
        continue;
      }
      // Across nodes: one replica with TP inside the node and PP over the network, TP itself
      // over the network, and node-wide TP replicas.
      if (gpu_.scale_up) {
        add({.tp = domain_, .pp = n / domain_, .dp = 1}, way, "TP x PP over network");
        add({.tp = n, .pp = 1, .dp = 1}, way, "TP over network");
      }
      if (domain_ % n0 == 0 && domain_ > n0 && s.pp == 1) {
        add({.tp = domain_, .pp = 1, .dp = n / domain_}, way, "node-wide TP replicas");
      }
    }
    if (r_.target_output_tokens_per_s) {
      serve_out(*base, rows, t);
      for (const Layout& unit : ep_units) {
        serve_out_units(unit, rows, t);
      }
    }
    // Speed-up is against the smallest layout that fits; under latency caps it meets at no batch,
    // against the smallest that meets them (fewest GPUs, then most tok/s), and rows over the caps
    // get none: measured against a layout no load can use, every row that can read as a loss.
    const ScaleModelRow* ref = &*base;
    if (base->over_latency) {
      for (const ScaleModelRow& x : rows) {
        if (x.way != ScaleWay::serve_out && !x.over_latency &&
            (ref->over_latency || x.layout.gpus() < ref->layout.gpus() ||
             (x.layout.gpus() == ref->layout.gpus() && x.output_tokens_per_s > ref->output_tokens_per_s))) {
          ref = &x;
        }
      }
      if (!ref->over_latency) {
        t.baseline_within_caps = ref->layout;
        t.baseline_tokens_per_s = ref->output_tokens_per_s;
      }
    }
    const ScaleModelRow reference = *ref;  // rows' figures change below; ref points into them
    t.baseline_batch_by_latency = reference.batch_by_latency;
    for (ScaleModelRow& x : rows) {
      if (t.baseline_within_caps && x.over_latency) {
        continue;
      }
      x.speedup = x.output_tokens_per_s / reference.output_tokens_per_s;
      x.efficiency = *x.speedup / (d(x.layout.gpus()) / d(reference.layout.gpus()));
    }
    // A baseline whose weights leave room for few sequences (70B fp8 on one H100: 1) makes every
    // wider row look super-linear: the gain is the batch the added memory holds, not the GPUs.
    // (Whole experts on each GPU lift EP rows for another reason: render_scale notes those.)
    const bool memory_superlinear = std::any_of(rows.begin(), rows.end(), [&](const ScaleModelRow& x) {
      const bool whole_experts = x.layout.ep > 1 && x.layout.ep >= x.layout.tp;
      return x.efficiency.value_or(0.0) > 1.0 + 1e-9 && !whole_experts && x.batch > reference.batch;
    });
    if (memory_superlinear && reference.batch_by_memory) {
      t.notes.push_back(fmt::format(
          "efficiency above 100 %: the {} layout ({}, {}) holds only {} sequence{} of {} tokens in the memory "
          "its weights leave; wider layouts hold and batch more, so throughput grows faster than their GPUs. There "
          "efficiency measures memory, not scaling: where adding GPUs stops paying is in tok/s/GPU (the line "
          "'where adding GPUs stops paying')",
          t.baseline_within_caps ? "baseline" : "smallest", layout_label(reference.layout),
          gpus_text(reference.layout.gpus()), reference.batch, reference.batch == 1 ? "" : "s",
          r_.perf.input_tokens + r_.perf.output_tokens));
    }
    if (t.price && std::any_of(rows.begin(), rows.end(), [](const ScaleModelRow& x) { return x.paid_gpus > x.layout.gpus(); })) {
      const auto offer = r_.offers.find(gpu_.id);
      const Price sizes = offer == r_.offers.end() ? *t.price : offer_sizes(*t.price, offer->second);
      t.notes.push_back(fmt::format(
          "{} rents whole instances of {}: a row's USD/Mtok pays the size that costs it least, idle GPUs included "
          "(\"4 (8 paid)\")",
          t.price->provider, instance_sizes_text(sizes)));
    }
    if (std::any_of(rows.begin(), rows.end(), [](const ScaleModelRow& x) { return x.not_rentable; })) {
      const auto offer = r_.offers.find(gpu_.id);
      const Price sizes = !t.price ? Price{} : offer == r_.offers.end() ? *t.price : offer_sizes(*t.price, offer->second);
      // The group the rows need: the widest whose instances did not hold it.
      std::uint64_t group = 1;
      for (const ScaleModelRow& x : rows) {
        if (x.not_rentable) {
          group = std::max(group, instance_group(x.layout, gpu_, r_.perf.fit.gpus_per_node));
        }
      }
      t.notes.push_back(fmt::format(
          "rows noted 'not rentable': no instance {} rents ({}) holds their TP x PP group ({}); no USD/Mtok for "
          "them",
          t.price ? t.price->provider : std::string("the price"), instance_sizes_text(sizes),
          replica_link_text(&gpu_, group)));
    }
    t.rows = std::move(rows);
    return t;
  }

 private:
  [[nodiscard]] LatencyCaps caps() const { return {.max_itl_s = r_.max_itl_s, .max_ttft_s = r_.max_ttft_s}; }

  // What each row is evaluated at: one sequence of the request's lengths must fit.
  PerfRequest unit_request() const {
    PerfRequest pr = r_.perf;
    pr.fit.context_tokens = pr.input_tokens + pr.output_tokens;
    pr.fit.prompt_tokens = pr.input_tokens;
    pr.fit.concurrency = 1;
    pr.max_batch = std::min(pr.max_batch, r_.max_batch);
    return pr;
  }

  // The layout with the most estimated throughput on n GPUs (best_layout, as perf chooses).
  std::optional<Layout> best_of(std::uint64_t n) const {
    try {
      const ThroughputLayout best = best_layout(model_, gpu_, unit_request(), n);
      if (best.chosen && best.fit.fits) {
        return best.fit.request.layout;
      }
    } catch (const InputError&) {
      // nothing fits on n GPUs
    }
    return std::nullopt;
  }

  void note_fewest(std::vector<ScaleModelRow>& rows, ScaleModelTable& t) const {
    const std::size_t i = rows.size() - 1;
    if (rows[i].over_latency) {
      return;  // over --max-itl-ms or --max-ttft-ms: shown, never the answer
    }
    if (!t.serve_out_fewest || rows[i].layout.gpus() < rows[*t.serve_out_fewest].layout.gpus() ||
        (rows[i].layout.gpus() == rows[*t.serve_out_fewest].layout.gpus() && rows[i].itl_s < rows[*t.serve_out_fewest].itl_s)) {
      t.serve_out_fewest = i;
    }
  }

  // As many copies of `unit` as the target needs (its DP ranks multiplied), as one serve-out row;
  // `shape(count)` names them, `what` names the unit when the copies pass the GPU limit.
  template <typename Shape>
  void serve_out_copies(const Layout& unit, std::string_view what, Shape shape, std::vector<ScaleModelRow>& rows,
                        ScaleModelTable& t) const {
    const auto one = row(unit, ScaleWay::serve_out, "");
    if (!one) {
      return;
    }
    const double copies = std::ceil(*r_.target_output_tokens_per_s / one->output_tokens_per_s);
    if (copies * d(unit.gpus()) > d(kMaxGpus)) {
      t.notes.push_back(fmt::format("serve-out with {} needs more than {} GPUs", what, kMaxGpus));
      return;
    }
    const auto count = static_cast<std::uint64_t>(copies);
    Layout many = unit;
    many.dp = count * unit.dp;
    if (auto x = row(many, ScaleWay::serve_out, shape(count))) {
      rows.push_back(std::move(*x));
      note_fewest(rows, t);
    }
  }

  // Whole expert-parallel groups (attention DP over the scale-up domain), as many as the target
  // needs: a group is the unit, its experts spread over all of its GPUs.
  void serve_out_units(const Layout& unit, std::vector<ScaleModelRow>& rows, ScaleModelTable& t) const {
    serve_out_copies(unit, fmt::format("EP {} groups", unit.ep), [&](std::uint64_t count) {
      return fmt::format("{} group{} of EP {}", count, count == 1 ? "" : "s", unit.ep);
    }, rows, t);
  }

  // Replicas of each replica shape from the smallest up to the scale-up domain, as many as the
  // target needs.
  void serve_out(const ScaleModelRow& base, std::vector<ScaleModelRow>& rows, ScaleModelTable& t) const {
    const std::uint64_t replica0 = base.layout.gpus();
    const std::uint64_t unit_dp = base.layout.dp;  // > 1 only when EP spans replicas
    const std::uint64_t pp = base.layout.pp;
    for (std::uint64_t tp = base.layout.tp; tp * pp * unit_dp <= std::max(domain_, replica0); tp *= 2) {
      serve_out_copies({.tp = tp, .pp = pp, .dp = unit_dp}, fmt::format("TP {}", tp), [&](std::uint64_t count) {
        return fmt::format("{} replica{} of TP {}{}", count * unit_dp, count * unit_dp == 1 ? "" : "s", tp,
                           pp > 1 ? fmt::format(" x PP {}", pp) : "");
      }, rows, t);
    }
  }

  const ModelSpec& model_;
  const GpuSpec& gpu_;
  const ScaleModelRequest& r_;
  EstimateBand band_{.band = {0.0, 0.0}};
  std::uint64_t domain_ = 1;
  std::optional<double> price_;
};

}  // namespace

std::string_view to_string(ScaleWay way) {
  switch (way) {
    case ScaleWay::scale_up: return "scale-up";
    case ScaleWay::scale_out: return "scale-out";
    case ScaleWay::serve_out: return "serve-out";
  }
  return "?";
}

ScaleModelTable model_scaling_table(const ModelSpec& model, const GpuSpec& gpu, const ScaleModelRequest& request) {
  if (request.up_to < 1 || request.up_to > kMaxGpus) {
    throw InputError(fmt::format("scale.up_to: expected between 1 and {} GPUs, got {}", kMaxGpus, request.up_to));
  }
  if (request.max_batch < 1) {
    throw InputError("scale.max_batch: expected at least 1");
  }
  if (request.target_output_tokens_per_s &&
      (!std::isfinite(*request.target_output_tokens_per_s) || !(*request.target_output_tokens_per_s > 0))) {
    throw InputError(fmt::format("scale.target_output_tokens_per_s: expected a positive rate, got {}",
                                 *request.target_output_tokens_per_s));
  }
  // The same bounds as plan's targets (planner.cpp check_target).
  const auto check_cap = [](std::string_view field, const std::optional<double>& v, double max_s) {
    if (v && !(*v > 0.0 && *v <= max_s)) {  // NaN fails both comparisons
      throw InputError(fmt::format("scale.{}: expected a number in (0, {:g}], got {}", field, max_s, *v));
    }
  };
  check_cap("max_itl_s", request.max_itl_s, limits::kMaxItlLimitS);
  check_cap("max_ttft_s", request.max_ttft_s, limits::kMaxTtftLimitS);
  PerfRequest pr = request.perf;
  validate_perf_request(model, pr);
  return TableBuilder(model, gpu, request).build();
}

ScaleModelResult model_scaling(const Catalog& catalog, const ModelSpec& model, const ScaleModelRequest& request) {
  if (request.gpus.empty()) {
    throw InputError("scale.gpus: give at least one GPU");
  }
  ScaleModelResult res;
  res.model_id = model.id;
  res.request = request;
  for (std::size_t i = 0; i < request.gpus.size(); ++i) {
    const GpuSpec& gpu = catalog.gpu(request.gpus[i]);
    if (std::find(request.gpus.begin(), request.gpus.begin() + static_cast<std::ptrdiff_t>(i), gpu.id) !=
        request.gpus.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw InputError(fmt::format("scale.gpus: '{}' is given twice", gpu.id));
    }
    res.tables.push_back(model_scaling_table(model, gpu, request));
  }
  // Attention-DP rows lead "most tok/s" and the stop-paying footer: say what they are worth.
  const bool attention_dp = std::any_of(res.tables.begin(), res.tables.end(), [](const ScaleModelTable& t) {
    return std::any_of(t.rows.begin(), t.rows.end(), [](const ScaleModelRow& r) { return r.layout.dp_attention(); });
  });
  if (attention_dp) {
    res.notes.push_back(fmt::format("rows with EP over data-parallel attention ranks (TP 1 EP 8 DP 8 and the like): {}",
                                    attention_dp_note()));
  }
  res.notes.push_back("replicas do not talk to each other while serving: they scale linearly, and a wider TP buys "
                      "a lower inter-token latency at batch 1 (the lowest-ITL column) at the cost of throughput per GPU; "
                      "at full load its larger batch can wait longer between tokens");
  return res;
}

}  // namespace gpuplan
