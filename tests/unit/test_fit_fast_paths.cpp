// The batch's shortcuts through fit (issue 11's 100,000 requests a second) must answer what the
// general path answers: the suggestions' searches (the chosen option only, without the longest
// context), the figures without max_context_tokens, and the context error handed back unthrown.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <optional>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/fit_cache.hpp>
#include <gpuplan/fit_report.hpp>
#include <gpuplan/layout_search.hpp>

// The search's internals are the library's (src/lib/detail), not an installed header.
#include "../../src/lib/detail/fit_basis.hpp"

#include "test_support.hpp"

using gpuplan::FitRequest;

namespace {

using gpuplan::test::cat;

/// The very same double (the shortcuts compute the same operations, so no tolerance).
bool same(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

/// Dense, MoE, MLA, sliding-window and linear-attention models on GPUs small and large.
constexpr const char* kModels[] = {"llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "deepseek-v3",
                                   "gemma-3-27b", "gpt-oss-120b", "qwen3-next-80b-a3b", "llama-2-7b"};
constexpr const char* kGpus[] = {"h100-sxm", "l4", "mi300x"};

}  // namespace

TEST_CASE("chosen_layout_option: the option search_layouts chooses, with its fit's figures", "[fit][batch]") {
  for (const char* model_id : kModels) {
    const gpuplan::ModelSpec& model = cat().model(model_id);
    for (const char* gpu_id : kGpus) {
      const gpuplan::GpuSpec& gpu = cat().gpu(gpu_id);
      for (const std::uint64_t gpus : {1U, 8U, 24U}) {
        for (const std::uint64_t context : {4096U, 32768U}) {
          for (const std::uint64_t concurrency : {1U, 256U}) {
            INFO(model_id << " on " << gpus << " x " << gpu_id << ", context " << context << ", concurrency "
                          << concurrency);
            const FitRequest r{.context_tokens = context, .concurrency = concurrency};
            const gpuplan::LayoutSearchOptions options{.gpus = gpus};
            std::optional<gpuplan::detail::FitBasis> full_basis;
            std::optional<gpuplan::detail::FitBasis> light_basis;
            if (context > model.max_position_embeddings) {
              CHECK_THROWS_AS(gpuplan::detail::chosen_layout_option(model, gpu, r, options, light_basis),
                              gpuplan::InputError);
              continue;
            }
            const gpuplan::LayoutSearch s = gpuplan::detail::search_layouts(model, gpu, r, options, full_basis);
            const gpuplan::LayoutOption o = gpuplan::detail::chosen_layout_option(model, gpu, r, options, light_basis);
            const gpuplan::Layout& l = s.chosen.request.layout;
            CHECK(o.layout.tp == l.tp);
            CHECK(o.layout.pp == l.pp);
            CHECK(o.layout.ep == l.ep);
            CHECK(o.layout.dp == l.dp);
            CHECK(o.fits == s.chosen.fits);
            CHECK(o.max_concurrent_sequences == s.chosen.max_concurrent_sequences);
            CHECK(same(o.shortfall_bytes, s.chosen.per_gpu.shortfall_bytes));
            CHECK_FALSE(o.max_context_tokens.has_value());
          }
        }
      }
    }
  }
}

TEST_CASE("FigureSet::without_max_context leaves every other figure as it was", "[fit][batch]") {
  for (const char* model_id : kModels) {
    const gpuplan::ModelSpec& model = cat().model(model_id);
    const gpuplan::GpuSpec& gpu = cat().gpu("h100-sxm");
    for (const std::uint64_t tp : {1U, 2U, 8U}) {
      INFO(model_id << " TP " << tp);
      const FitRequest r{.layout = {.tp = tp, .pp = 1, .ep = 1, .dp = 1}, .context_tokens = 4096, .concurrency = 8};
      std::optional<gpuplan::detail::FitBasis> basis;
      gpuplan::detail::FitFigures all;
      gpuplan::detail::FitFigures some;
      REQUIRE_FALSE(gpuplan::detail::fit_figures(model, gpu, r, basis, all).has_value());
      REQUIRE_FALSE(gpuplan::detail::fit_figures(model, gpu, r, basis, some, nullptr,
                                                 gpuplan::detail::FigureSet::without_max_context)
                        .has_value());
      CHECK(all.max_context_tokens.has_value());
      CHECK_FALSE(some.max_context_tokens.has_value());
      CHECK_FALSE(some.max_context_limited_by_model);
      CHECK(some.fits == all.fits);
      CHECK(some.weights_fit == all.weights_fit);
      CHECK(some.max_concurrent_sequences == all.max_concurrent_sequences);
      CHECK(same(some.per_gpu.kv_budget_bytes, all.per_gpu.kv_budget_bytes));
      CHECK(same(some.per_gpu.kv_cache_bytes, all.per_gpu.kv_cache_bytes));
      CHECK(same(some.per_gpu.shortfall_bytes, all.per_gpu.shortfall_bytes));
      CHECK(same(some.per_gpu.activation_bytes, all.per_gpu.activation_bytes));
      CHECK(same(some.per_gpu.weights_bytes, all.per_gpu.weights_bytes));
      CHECK(same(some.sequence_kv_bytes_per_gpu, all.sequence_kv_bytes_per_gpu));
    }
  }
}

TEST_CASE("plan_fit with a cache hands back the context error plan_fit throws", "[fit][batch]") {
  const gpuplan::ModelSpec& model = cat().model("llama-2-7b");  // 4,096 tokens
  const gpuplan::GpuSpec& gpu = cat().gpu("h100-sxm");
  gpuplan::FitCache cache;
  std::optional<std::string> context_error = std::string("left from before");
  const auto question = [](std::uint64_t context, bool layout_given) {
    return gpuplan::FitQuestion{.request = FitRequest{.layout = {.tp = 2, .pp = 1, .ep = 1, .dp = 1},
                                                      .context_tokens = context},
                                .search = {.gpus = 2},
                                .layout_given = layout_given,
                                .context_given = true};
  };

  // Too long: the very message the uncached call throws, and an empty report.
  std::string thrown;
  try {
    (void)gpuplan::plan_fit(model, gpu, question(32768, false));
  } catch (const gpuplan::InputError& e) {
    thrown = e.what();
  }
  REQUIRE_FALSE(thrown.empty());
  const gpuplan::FitReport empty = gpuplan::plan_fit(model, gpu, question(32768, false), cache, context_error);
  REQUIRE(context_error.has_value());
  CHECK(*context_error == thrown);
  CHECK(empty.search.options.empty());
  CHECK(empty.suggestions.empty());

  // With a layout given it is still thrown, with the same words.
  CHECK_THROWS_WITH(gpuplan::plan_fit(model, gpu, question(32768, true), cache, context_error), thrown);

  // A context that fits: no error left over, and the uncached answer.
  const gpuplan::FitReport cached = gpuplan::plan_fit(model, gpu, question(4096, false), cache, context_error);
  CHECK_FALSE(context_error.has_value());
  const gpuplan::FitReport uncached = gpuplan::plan_fit(model, gpu, question(4096, false));
  CHECK(cached.search.options.size() == uncached.search.options.size());
  CHECK(cached.search.chosen.request.layout.tp == uncached.search.chosen.request.layout.tp);
  CHECK(cached.search.chosen.max_context_tokens == uncached.search.chosen.max_context_tokens);
  CHECK(same(cached.search.chosen.per_gpu.kv_budget_bytes, uncached.search.chosen.per_gpu.kv_budget_bytes));
}
