#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <gpuplan/comm.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/layout_search.hpp>
#include <optional>
#include <tuple>

#include "detail/fit_basis.hpp"

namespace gpuplan {
namespace {

using limits::kMaxGpus;

void check_gpus(std::uint64_t gpus) {
  if (gpus < 1 || gpus > kMaxGpus) {
    throw InputError(fmt::format("layout.gpus: expected between 1 and {}, got {}", kMaxGpus, gpus));
  }
}

TpSpan tp_span(std::uint64_t tp, const GpuSpec& gpu, std::uint64_t gpus_per_node) {
  if (tp <= scale_up_reach(gpu, gpus_per_node)) {
    return TpSpan::scale_up;
  }
  return tp <= gpus_per_node ? TpSpan::node : TpSpan::across_nodes;
}

/// Sort key: smaller is better (see search_layouts). Pipeline stages inside a node rank last
/// among layouts that fit; when none fits, the one holding the most sequences is closest, and on
/// a tie the layout an engine would be launched with (no stages inside a node) comes before a
/// smaller shortfall.
auto rank_key(const LayoutOption& o) {
  const Layout& l = o.layout;
  const double sequences = -static_cast<double>(o.max_concurrent_sequences.value_or(0));
  return std::tuple(!o.fits, o.fits && o.pp_within_node, sequences, !o.fits && o.pp_within_node, o.shortfall_bytes,
                    l.pp, l.gpus_per_replica(), l.ep, l.tp);
}

/// At most two expert-parallel degrees, kept in place (a search asks for every TP x PP, and a
/// vector each was most of a search's allocations).
struct EpChoices {
  std::array<std::uint64_t, 2> eps{};
  std::size_t count = 0;
  [[nodiscard]] const std::uint64_t* begin() const { return eps.data(); }
  [[nodiscard]] const std::uint64_t* end() const { return eps.data() + count; }
};

/// Expert-parallel degrees a TP x DP group runs with: none (experts TP-sharded) and all of the
/// group (EP = TP x DP), or only the EP the request names. TensorRT-LLM's attention-DP ranks
/// are single GPUs (`single_gpu_ranks`): no EP over DP ranks of TP groups there.
EpChoices ep_choices(const ModelSpec& model, const Layout& l, std::uint64_t asked_ep, bool single_gpu_ranks) {
  const std::uint64_t group = l.tp * l.dp;
  EpChoices c;
  if (asked_ep > 1) {
    if (group % asked_ep == 0 && model.moe && model.moe->routed_experts % asked_ep == 0) {
      c.eps[c.count++] = asked_ep;
    }
    return c;
  }
  c.eps[c.count++] = 1;
  if (model.moe && group > 1 && model.moe->routed_experts % group == 0 && !(single_gpu_ranks && l.dp > 1 && l.tp > 1)) {
    c.eps[c.count++] = group;
  }
  return c;
}

}  // namespace

bool tp_allowed(const ModelSpec& model, std::uint64_t tp) {
  if (!model.has_architecture()) {
    return true;
  }
  // vLLM's rule, as validate_layout checks it.
  return model.tp_divisible_heads() % tp == 0 &&
         (model.caches_latent() || model.num_key_value_heads % tp == 0 || tp % model.num_key_value_heads == 0);
}

bool tp_allowed(const ModelSpec& model, const WeightFormats& formats, std::uint64_t tp) {
  // Experts split by EP are whole on their ranks: whether this TP's share of them is whole groups
  // is the layout's question (quantized_shard_problem with its EP), not the TP degree's.
  return tp_allowed(model, tp) && !quantized_shard_problem(Layout{.tp = tp, .ep = tp}, model, formats);
}

std::uint64_t tp_within_node(const GpuSpec& gpu, const LayoutSearchOptions& options) {
  return std::max(scale_up_reach(gpu, options.gpus_per_node), options.gpus_per_node);
}

namespace {

/// The table figures of a layout's fit, whether whole (FitResult) or figures only.
template <typename Fit>
LayoutOption option_of(const Layout& l, const Fit& f, bool kv_replicated, const GpuSpec& gpu,
                       const LayoutSearchOptions& options) {
  const std::uint64_t node = tp_within_node(gpu, options);
  return LayoutOption{.layout = l,
                      .fits = f.fits,
                      .weights_fit = f.weights_fit,
                      .kv_budget_bytes = f.per_gpu.kv_budget_bytes,
                      .shortfall_bytes = f.per_gpu.shortfall_bytes,
                      .max_concurrent_sequences = f.max_concurrent_sequences,
                      .max_context_tokens = f.max_context_tokens,
                      .kv_replicated = kv_replicated,
                      .tp_span = tp_span(l.tp, gpu, options.gpus_per_node),
                      .pp_within_node = l.pp > 1 && l.tp % node != 0};
}

}  // namespace

LayoutOption layout_option(const FitResult& f, const GpuSpec& gpu, const LayoutSearchOptions& options) {
  return option_of(f.request.layout, f, f.kv_known && f.kv.replicated, gpu, options);
}

LayoutSearch given_layout(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                          const LayoutSearchOptions& options) {
  LayoutSearch s;
  s.chosen = fit(model, gpu, request);
  s.options.push_back(layout_option(s.chosen, gpu, options));
  s.choice = LayoutChoice::given;
  return s;
}

LayoutSearch search_layouts(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                            const LayoutSearchOptions& options) {
  std::optional<detail::FitBasis> basis;
  return detail::search_layouts(model, gpu, request, options, basis);
}

namespace {

/// Every layout a search evaluates, with its figures, and the one it chooses.
struct Evaluated {
  std::vector<LayoutOption> options;  ///< in evaluation order
  std::size_t best_at = 0;            ///< the first of the best ranked (std::stable_sort's first)
  bool across_nodes_tried = false;
  std::optional<std::string> context_error;  ///< fit_figures()'s, for the first layout (then no options)
};

/// search_layouts()'s enumeration and evaluation, without the ranking of the table or the chosen
/// fit. `figure_set` says which figures each option needs (the suggestions' searches read only
/// the chosen option's fit, sequences and shortfall).
Evaluated evaluate_layouts(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                           const LayoutSearchOptions& options, std::optional<detail::FitBasis>& basis,
                           detail::FigureSet figure_set) {
  const std::uint64_t n = options.gpus;
  check_gpus(n);
  if (options.gpus_per_node < 1) {
    throw InputError("layout.gpus_per_node: expected at least 1");
  }
  const std::uint64_t asked_ep = request.layout.ep;
  if (asked_ep > 1) {
    // Reject EP on dense models or EP that cannot divide the GPUs before searching layouts.
    validate_layout(Layout{.tp = 1, .pp = 1, .ep = asked_ep, .dp = n}, model);
  }
  // MIG slices have no peer-to-peer: every replica is one slice.
  const std::uint64_t max_replica = request.mig_profile.empty() ? n : 1;
  const std::uint64_t within_node = tp_within_node(gpu, options);
  const std::uint64_t max_pp = model.has_architecture() ? model.num_hidden_layers : n;

  std::vector<Layout> within;
  std::vector<Layout> across;
  // Room for a usual search's layouts at once (8 GPUs: 10, 20 for MoE), not grown step by step.
  constexpr std::size_t kUsualLayouts = 32;
  within.reserve(kUsualLayouts);
  // TP degrees whose shares of a group-quantized weight are not whole groups cannot load.
  const WeightFormats formats = detail::resolve_formats(model, request);
  for (std::uint64_t tp = 1; tp <= max_replica; ++tp) {
    if (n % tp != 0 || !tp_allowed(model, formats, tp)) {
      continue;
    }
    for (std::uint64_t pp = 1; tp * pp <= max_replica && pp <= max_pp; ++pp) {
      if (n % (tp * pp) != 0) {
        continue;
      }
      Layout l{.tp = tp, .pp = pp, .ep = 1, .dp = n / (tp * pp)};
      for (std::uint64_t ep : ep_choices(model, l, asked_ep, request.engine.engine == Engine::trtllm)) {
        l.ep = ep;
        if (quantized_shard_problem(l, model, formats)) {
          continue;  // experts split by TP into shares of partial groups (Qwen3-235B FP8 at TP 8 without EP)
        }
        (tp <= within_node ? within : across).push_back(l);
      }
    }
  }
  if (within.empty() && across.empty()) {
    throw InputError(asked_ep > 1 ? fmt::format("layout.ep: {} does not fit any layout of {} GPUs", asked_ep, n)
                                  : fmt::format("layout.gpus: no TP x PP layout of '{}' divides {} GPUs", model.id, n));
  }

  Evaluated e;
  // Each layout's figures only; the best (the first of the best ranked, as the stable sort of
  // search_layouts() puts first) becomes a whole fit once the search is done.
  FitRequest r = request;
  detail::FitFigures figures;
  const auto evaluate = [&](const std::vector<Layout>& layouts) {
    for (const Layout& l : layouts) {
      r.layout = l;
      // The context's error is the request's, whatever the layout: the first layout meets it.
      if ((e.context_error = detail::fit_figures(model, gpu, r, basis, figures, nullptr, figure_set))) {
        return false;
      }
      e.options.push_back(option_of(l, figures, figures.kv != nullptr && figures.kv->replicated, gpu, options));
      if (e.options.size() > 1 && rank_key(e.options.back()) < rank_key(e.options[e.best_at])) {
        e.best_at = e.options.size() - 1;
      }
    }
    return true;
  };
  e.options.reserve(within.size() + across.size());
  if (!evaluate(within)) {
    return e;
  }
  const bool any_fits = std::any_of(e.options.begin(), e.options.end(), [](const LayoutOption& o) { return o.fits; });
  if (!any_fits && !across.empty()) {
    e.across_nodes_tried = true;
    evaluate(across);
  }
  return e;
}

}  // namespace

LayoutSearch detail::search_layouts(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                                    const LayoutSearchOptions& options, std::optional<FitBasis>& basis,
                                    std::optional<std::string>* context_error) {
  Evaluated e = evaluate_layouts(model, gpu, request, options, basis, FigureSet::all);
  LayoutSearch s;
  if (e.context_error) {
    if (context_error == nullptr) {
      throw InputError(std::move(*e.context_error));
    }
    *context_error = std::move(e.context_error);
    return s;
  }
  s.across_nodes_tried = e.across_nodes_tried;

  // Ranked as std::stable_sort would, by an insertion sort of indices over keys computed once: a
  // search has a few dozen layouts at most, and the merge sort's buffer and keys recomputed at
  // every comparison cost more than the rest of the search's bookkeeping.
  std::vector<decltype(rank_key(e.options.front()))> keys;
  keys.reserve(e.options.size());
  for (const LayoutOption& o : e.options) {
    keys.push_back(rank_key(o));
  }
  std::vector<std::size_t> order(e.options.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::size_t at = i;
    while (at > 0 && keys[i] < keys[order[at - 1]]) {
      order[at] = order[at - 1];
      --at;
    }
    order[at] = i;
  }
  s.options.reserve(order.size());
  for (std::size_t i : order) {
    s.options.push_back(e.options[i]);
  }
  FitRequest r = request;
  r.layout = e.options[e.best_at].layout;
  s.chosen = detail::fit_numbers(model, gpu, r, basis);
  s.chosen.layout_automatic = true;
  detail::annotate_fit(s.chosen, model, gpu, *basis);
  s.choice = s.chosen.fits ? LayoutChoice::most_sequences : LayoutChoice::none_fits;
  return s;
}

LayoutOption detail::chosen_layout_option(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                                          const LayoutSearchOptions& options, std::optional<FitBasis>& basis) {
  Evaluated e = evaluate_layouts(model, gpu, request, options, basis, FigureSet::without_max_context);
  if (e.context_error) {
    throw InputError(std::move(*e.context_error));
  }
  return e.options[e.best_at];
}

FitResult fit_smallest_layout(const ModelSpec& model, const GpuSpec& gpu, FitRequest request, std::uint64_t gpus) {
  check_gpus(gpus);
  if (request.layout.ep > 1) {
    // Reject EP on dense models or EP that cannot divide the GPUs before searching layouts.
    validate_layout(Layout{.tp = 1, .pp = 1, .ep = request.layout.ep, .dp = gpus}, model);
  }
  const std::uint64_t domain = scale_up_reach(gpu, request.gpus_per_node);
  struct Candidate {
    std::uint64_t tp, pp;
  };
  std::vector<Candidate> candidates;
  // MIG slices have no peer-to-peer: every replica is one slice.
  const std::uint64_t max_replica = request.mig_profile.empty() ? gpus : 1;
  const WeightFormats formats = detail::resolve_formats(model, request);
  for (std::uint64_t tp = 1; tp <= max_replica; tp *= 2) {
    if (!tp_allowed(model, formats, tp)) {
      continue;
    }
    for (std::uint64_t pp = 1; tp * pp <= max_replica; ++pp) {
      if (gpus % (tp * pp) != 0 || (model.has_architecture() && pp > model.num_hidden_layers)) {
        continue;
      }
      if (request.layout.ep > 1 && ((gpus / pp) % request.layout.ep != 0)) {
        continue;
      }
      if (quantized_shard_problem(Layout{.tp = tp, .pp = pp, .ep = request.layout.ep}, model, formats)) {
        continue;
      }
      candidates.push_back({tp, pp});
    }
  }
  // Fewest GPUs per replica first; among equals, TP inside the scale-up domain, then less PP.
  std::sort(candidates.begin(), candidates.end(), [domain](const Candidate& a, const Candidate& b) {
    const auto key = [domain](const Candidate& c) { return std::tuple(c.tp * c.pp, c.tp > domain && c.tp > 1, c.pp); };
    return key(a) < key(b);
  });
  if (candidates.empty()) {
    throw InputError(fmt::format("layout.gpus: no TP x PP layout of '{}' divides {} GPUs", model.id, gpus));
  }
  std::optional<FitResult> last;
  std::optional<detail::FitBasis> basis;
  for (const Candidate& c : candidates) {
    request.layout.tp = c.tp;
    request.layout.pp = c.pp;
    request.layout.dp = gpus / (c.tp * c.pp);
    if (request.layout.ep > 1 && (request.layout.tp * request.layout.dp) % request.layout.ep != 0) {
      continue;
    }
    FitResult res = detail::fit_numbers(model, gpu, request, basis);
    res.layout_automatic = true;
    if (res.fits) {
      detail::annotate_fit(res, model, gpu);
      return res;
    }
    // Report the closest failing layout, as fit's table ranks them (the smallest shortfall; the
    // widest replica among equals): perf named TP 1 PP 4 where fit named TP 4 for the same GPUs
    // (helper s52 configs F6).
    const auto closer = [&res](const FitResult& than) {
      const double a = res.per_gpu.shortfall_bytes;
      const double b = than.per_gpu.shortfall_bytes;
      return a < b || (!(b < a) && res.request.layout.gpus_per_replica() > than.request.layout.gpus_per_replica());
    };
    if (!last || closer(*last)) {
      last = std::move(res);
    }
  }
  if (!last) {
    throw InputError(fmt::format("layout.ep: {} does not fit any layout of {} GPUs", request.layout.ep, gpus));
  }
  detail::annotate_fit(*last, model, gpu);
  return *last;
}

}  // namespace gpuplan
