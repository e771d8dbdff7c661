#include <algorithm>
#include <functional>
#include <array>

#include <gpuplan/weight_choice.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/fit_suggestions.hpp>
#include <gpuplan/input_limits.hpp>

#include "detail/fit_basis.hpp"

namespace gpuplan {
namespace {

using limits::kMaxGpus;

/// Evaluates changed requests the way the original was evaluated.
struct Evaluator {
  const ModelSpec& model;
  const GpuSpec& gpu;
  const LayoutSearchOptions& options;
  bool layout_given;
  FitCache* cache;                        ///< the figures of each request's formats, when given
  std::optional<detail::FitBasis>& own;  ///< else shared by every search of the suggestions

  /// Where the figures of `r`'s model and formats are kept.
  [[nodiscard]] std::optional<detail::FitBasis>& basis(const FitRequest& r) const {
    return cache != nullptr ? cache->basis(model, r) : own;
  }

  /// What fit would choose for `r`: its layout's fit, sequences and shortfall.
  [[nodiscard]] LayoutOption run(const FitRequest& r) const {
    if (layout_given) {
      const FitResult f = fit(model, gpu, r);
      return LayoutOption{.layout = f.request.layout,
                          .fits = f.fits,
                          .shortfall_bytes = f.per_gpu.shortfall_bytes,
                          .max_concurrent_sequences = f.max_concurrent_sequences};
    }
    return detail::chosen_layout_option(model, gpu, r, options, basis(r));
  }

  /// The request with one change applied by `modify`. Every dtype suggestion goes through here
  /// so the change of a format is written in one place.
  [[nodiscard]] FitSuggestion with_change(const FitRequest& request, FitChange change,
                                          const std::function<void(FitRequest&)>& modify) const {
    FitRequest r = request;
    modify(r);
    const LayoutOption chosen = run(r);
    return FitSuggestion{.change = change,
                         .count = 0,
                         .dtype = std::nullopt,
                         .fits = chosen.fits,
                         .layout = chosen.layout,
                         .context_tokens = r.context_tokens,
                         .concurrency = r.concurrency,
                         .max_concurrent_sequences = chosen.max_concurrent_sequences,
                         .shortfall_bytes = chosen.shortfall_bytes};
  }
};

/// A deployment that fits: what a suggestion reports of it.
struct Fitting {
  Layout layout;
  std::optional<std::uint64_t> max_concurrent_sequences;
};

/// The fit's figures, or nothing for a shape the model does not allow.
const detail::FitFigures* try_fit(const ModelSpec& model, const GpuSpec& gpu, FitRequest r, const Layout& l,
                                  std::optional<detail::FitBasis>& basis, detail::FitFigures& figures) {
  r.layout = l;
  try {
    // A context above the model's maximum fits no shape.
    return detail::fit_figures(model, gpu, r, basis, figures, nullptr, detail::FigureSet::without_max_context)
               ? nullptr
               : &figures;
  } catch (const InputError&) {
    return nullptr;  // a shape the model does not allow
  }
}

/// Smallest deployment of a TP x PP replica shape that fits: replicas added until the
/// concurrency fits, or for EP the smallest group whose experts spread far enough.
void best_for_shape(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request, std::uint64_t tp,
                    std::uint64_t pp, std::optional<Fitting>& best, std::optional<detail::FitBasis>& basis) {
  const std::uint64_t shape = tp * pp;
  const auto better = [&best](std::uint64_t gpus) {
    return gpus <= kMaxGpus && (!best || gpus < best->layout.gpus());
  };
  detail::FitFigures figures;
  const auto keep = [&best](const Layout& l, const detail::FitFigures* f) {
    if (f == nullptr || !f->fits) {
      return false;
    }
    best = Fitting{.layout = l, .max_concurrent_sequences = f->max_concurrent_sequences};
    return true;
  };
  const std::uint64_t asked_ep = request.layout.ep;
  if (asked_ep <= 1) {
    // Without EP replicas are independent: one replica's capacity gives the replica count.
    FitRequest one = request;
    one.concurrency = 1;
    const detail::FitFigures* f = try_fit(model, gpu, one, Layout{.tp = tp, .pp = pp}, basis, figures);
    if (f != nullptr && f->fits) {
      const std::uint64_t per_replica = f->max_concurrent_sequences.value_or(request.concurrency);
      std::uint64_t dp = (request.concurrency + per_replica - 1) / std::max<std::uint64_t>(per_replica, 1);
      // Logits grow with sequences per replica, so the estimate may be one replica short.
      for (int tries = 0; tries < 4 && better(shape * dp); ++tries, ++dp) {
        const Layout l{.tp = tp, .pp = pp, .ep = 1, .dp = dp};
        if (keep(l, try_fit(model, gpu, request, l, basis, figures))) {
          break;
        }
      }
    }
  }
  if (!model.moe) {
    return;
  }
  for (std::uint64_t dp = 1; better(shape * dp) && tp * dp <= model.moe->routed_experts; ++dp) {
    const std::uint64_t ep = asked_ep > 1 ? asked_ep : tp * dp;
    if (ep < 2 || (tp * dp) % ep != 0 || model.moe->routed_experts % ep != 0) {
      continue;
    }
    const Layout l{.tp = tp, .pp = pp, .ep = ep, .dp = dp};
    if (keep(l, try_fit(model, gpu, request, l, basis, figures))) {
      return;
    }
  }
}

/// The smallest GPU count (of this GPU) that fits; replica shapes by size, TP within a node
/// first and across nodes only if nothing within one fits.
std::optional<Fitting> smallest_fitting_count(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                                              const LayoutSearchOptions& options, bool layout_given,
                                              std::optional<detail::FitBasis>& basis) {
  std::optional<Fitting> best;
  if (layout_given || !request.mig_profile.empty()) {
    // More replicas of the given layout first; if replicas cannot help (the weights do not
    // fit one), any layout.
    best_for_shape(model, gpu, request, request.layout.tp, request.layout.pp, best, basis);
    if (best || !request.mig_profile.empty()) {
      return best;
    }
  }
  const std::uint64_t within_node = tp_within_node(gpu, options);
  const WeightFormats formats = detail::resolve_formats(model, request);
  // Bare parameter counts have no layers to bound PP; 1,024 stages is beyond any deployment.
  const std::uint64_t max_pp = model.has_architecture() ? model.num_hidden_layers : 1024;
  const std::uint64_t max_tp = model.has_architecture() ? model.tp_divisible_heads() : within_node;
  for (const bool across : {false, true}) {
    const std::uint64_t lo = across ? within_node + 1 : 1;
    const std::uint64_t hi = across ? max_tp : std::min(within_node, max_tp);
    // Shapes by size: a shape of S GPUs needs at least S, so stop once S reaches the best.
    for (std::uint64_t size = 1; size <= kMaxGpus && (!best || size < best->layout.gpus()); ++size) {
      for (std::uint64_t tp = lo; tp <= std::min(hi, size); ++tp) {
        if (size % tp == 0 && size / tp <= max_pp && tp_allowed(model, formats, tp)) {
          best_for_shape(model, gpu, request, tp, size / tp, best, basis);
        }
      }
      if (size >= hi * max_pp) {
        break;
      }
    }
    if (best) {
      return best;
    }
  }
  return best;
}

// The largest n * step for n in [lo, hi) whose suggestion fits, given lo's (`fitting`) does and
// hi's does not: bisection, since fitting is monotone in the load and in the prefill chunk.
template <class At>
FitSuggestion largest_fitting(const At& at, FitSuggestion fitting, std::uint64_t lo, std::uint64_t hi,
                              std::uint64_t step) {
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    FitSuggestion probe = at(mid * step);
    if (probe.fits) {
      lo = mid;
      fitting = std::move(probe);
    } else {
      hi = mid;
    }
  }
  return fitting;
}

}  // namespace

std::vector<FitSuggestion> suggest_fits(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                                        const LayoutSearchOptions& options, bool layout_given,
                                        const LayoutSearch& search) {
  return detail::suggest_fits(model, gpu, request, options, layout_given, search, nullptr);
}

std::vector<FitSuggestion> detail::suggest_fits(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                                                const LayoutSearchOptions& options, bool layout_given,
                                                const LayoutSearch& search, FitCache* cache) {
  std::vector<FitSuggestion> out;
  if (search.chosen.fits) {
    return out;
  }
  // TensorRT-LLM refusing a prompt longer than its step is no memory shortfall: more GPUs or
  // narrower formats do not cure it, and the verdict names what does (chunked prefill on).
  if (search.chosen.engine && search.chosen.engine->trtllm_refused_prompt_tokens > 0) {
    return out;
  }
  std::optional<detail::FitBasis> own;
  const Evaluator eval{model, gpu, options, layout_given, cache, own};
  std::optional<detail::FitBasis>& basis = eval.basis(request);
  // The request as asked (its EP, if any, is a constraint; the chosen layout's EP is not).
  const FitRequest& r = request;

  FitSuggestion more{.change = FitChange::gpus, .context_tokens = r.context_tokens, .concurrency = r.concurrency};
  if (auto best = smallest_fitting_count(model, gpu, r, options, layout_given, basis)) {
    // Report the layout fit itself would choose on that many GPUs, rounded to what is rented:
    // a count dividing the node (1, 2, 4, 8) or whole nodes (6 H200s as TP 2 PP 3, or 9 MI300Xs
    // as PP 9, are deployments nobody runs).
    Fitting chosen = *best;
    const std::uint64_t node = std::max<std::uint64_t>(1, options.gpus_per_node);
    std::uint64_t count = chosen.layout.gpus();
    // Replicas of a given layout are counted as they are; any other layout, a fallback included, rounded.
    const bool any_layout = !layout_given || chosen.layout.gpus_per_replica() != r.layout.gpus_per_replica();
    if (any_layout && r.mig_profile.empty()) {
      if (count > node) {
        count = (count + node - 1) / node * node;
      } else {
        while (node % count != 0) {
          ++count;
        }
      }
    }
    if (count <= kMaxGpus && any_layout) {
      LayoutSearchOptions more_gpus = options;
      more_gpus.gpus = count;
      const LayoutOption s = detail::chosen_layout_option(model, gpu, r, more_gpus, basis);
      if (s.fits) {
        chosen = Fitting{.layout = s.layout, .max_concurrent_sequences = s.max_concurrent_sequences};
      }
    }
    more.count = chosen.layout.gpus();
    more.fits = true;
    more.layout = chosen.layout;
    more.max_concurrent_sequences = chosen.max_concurrent_sequences;
  }
  out.push_back(more);

  // A MIG slice too small: the smallest larger profile of the same GPU that holds the request
  // (1g.10gb -> 1g.20gb), which more slices of the small one cannot do when one must hold a
  // whole replica.
  if (const MigProfile* now = r.mig_profile.empty() ? nullptr : gpu.find_mig_profile(r.mig_profile)) {
    const double now_bytes = mig_memory(gpu, *now).bytes;
    std::vector<std::pair<double, const MigProfile*>> larger;
    for (const MigProfile& p : gpu.mig_profiles) {
      if (const double bytes = mig_memory(gpu, p).bytes; bytes > now_bytes) {
        larger.emplace_back(bytes, &p);
      }
    }
    std::stable_sort(larger.begin(), larger.end(), [](const auto& a, const auto& b) {
      return a.first < b.first || (a.first <= b.first && a.second->compute_slices < b.second->compute_slices);
    });
    for (const auto& entry : larger) {
      const std::string& name = entry.second->name;
      FitSuggestion s = eval.with_change(r, FitChange::mig_profile, [&name](FitRequest& q) { q.mig_profile = name; });
      if (s.fits) {
        s.mig_profile = name;
        out.push_back(s);
        break;
      }
    }
  }

  // Formats: each alone, only where it is narrower than the request's.
  const auto narrower = [](DType a, DType b) { return bits_per_element(a) < bits_per_element(b); };
  if (model.has_architecture() && narrower(DType::fp8, r.kv_dtype)) {
    FitSuggestion s = eval.with_change(r, FitChange::kv_dtype, [](FitRequest& q) { q.kv_dtype = DType::fp8; });
    s.dtype = DType::fp8;
    out.push_back(s);
  }
  // GPUs before Ampere (no bf16) have no Marlin kernels for FP8 or FP4 weights: engines run
  // INT8 and INT4 (GPTQ, AWQ) checkpoints there instead.
  const bool before_ampere = !gpu.dense_flop_per_s.contains("bf16");
  for (const DType w : before_ampere ? std::array{DType::int8, DType::int4} : std::array{DType::fp8, DType::fp4}) {
    // Not a format the named engine refuses on this GPU (TensorRT-LLM: no NVFP4 before Blackwell).
    if (narrower(w, r.weights_dtype) && !engine_weights_refusal(r.engine.engine, gpu, w)) {
      FitSuggestion s = eval.with_change(r, FitChange::weights_dtype, [w, &model](FitRequest& q) {
        // What --weights-dtype w means: every linear layer in w, embeddings as quantized
        // checkpoints ship them (bf16).
        q.weights_dtype = w;
        q.embeddings_dtype.reset();
        q.weight_formats.reset();
        if (model.has_architecture()) {
          q.weight_formats = choose_weight_formats(model, WeightChoice{.all = default_format(w)});
          q.embeddings_dtype = (*q.weight_formats)[WeightPart::embedding].element;
        }
      });
      s.dtype = w;
      out.push_back(s);
    }
  }

  // Load: the largest context at this concurrency and the most sequences at this context,
  // over the layouts evaluated; each verified by evaluating the changed request.
  std::uint64_t context = 0;
  std::uint64_t sequences = 0;
  for (const LayoutOption& o : search.options) {
    if (o.weights_fit) {
      context = std::max(context, o.max_context_tokens.value_or(0));
    }
    // The most sequences count each one's logits, so they hold even where the requested load's
    // logits alone left no room for the weights.
    sequences = std::max(sequences, o.max_concurrent_sequences.value_or(0));
  }
  if (context > 0 && context < r.context_tokens) {
    FitSuggestion s = eval.with_change(r, FitChange::context, [context](FitRequest& q) { q.context_tokens = context; });
    s.count = context;
    out.push_back(s);
  }
  if (sequences > 0 && sequences < r.concurrency) {
    const auto at = [&](std::uint64_t n) {
      FitSuggestion s = eval.with_change(r, FitChange::concurrency, [n](FitRequest& q) { q.concurrency = n; });
      s.count = n;
      return s;
    };
    FitSuggestion s = at(sequences);
    // The layouts were weighed at the requested load, whose logits buffers alone may not fit
    // some of them; at a smaller load those may hold more sequences than the figure above:
    // bisect between a load that fits and the requested one, which does not (fitting is
    // monotone in the load).
    if (s.fits) {
      s = largest_fitting(at, std::move(s), sequences, r.concurrency, 1);
    }
    out.push_back(s);
  }

  // The prefill chunk sizes the activations: a chunk typed a thousand times too large
  // ("--prefill-chunk 4096k") needs hundreds of GB that no GPU count or format recovers, and
  // only a smaller chunk was never suggested (helper s57 badinput F6). The largest chunk, in
  // steps of kChunkStep tokens, that fits when the smallest step does (fitting is monotone in the
  // chunk).
  constexpr std::uint64_t kChunkStep = 256;
  if (r.prefill_chunk_tokens > kChunkStep) {
    const auto at = [&](std::uint64_t chunk) {
      FitSuggestion s = eval.with_change(r, FitChange::prefill_chunk, [chunk](FitRequest& q) { q.prefill_chunk_tokens = chunk; });
      s.count = chunk;
      return s;
    };
    if (FitSuggestion s = at(kChunkStep); s.fits) {
      // In steps, up to the request's, which does not fit.
      out.push_back(largest_fitting(at, std::move(s), 1, (r.prefill_chunk_tokens - 1) / kChunkStep + 1, kChunkStep));
    }
  }
  return out;
}

}  // namespace gpuplan
