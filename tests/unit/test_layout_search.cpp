// Layout search, fit suggestions and the default-context clamp (issue 7, "Every layout").
#include <algorithm>
#include <catch2/catch.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/fit_report.hpp>
#include <gpuplan/layout_search.hpp>

#include "test_support.hpp"
#include <string>

using gpuplan::DType;
using gpuplan::FitChange;
using gpuplan::FitQuestion;
using gpuplan::FitRequest;
using gpuplan::LayoutOption;

namespace {
using gpuplan::test::cat;

FitQuestion question(std::uint64_t gpus, FitRequest request) {
  return FitQuestion{.request = request, .search = {.gpus = gpus}, .layout_given = false, .context_given = true};
}

gpuplan::FitReport plan(const std::string& model, const std::string& gpu, const FitQuestion& q) {
  return gpuplan::plan_fit(cat().model(model), cat().gpu(gpu), q);
}

std::uint64_t seqs(const LayoutOption& o) { return o.max_concurrent_sequences.value_or(0); }

/// The choice rule: the first option is the chosen fit; no fitting layout of the same tier
/// (pipeline stages inside a node or not) serves more sequences, and an equal one has at least
/// as many pipeline stages; a chosen layout with PP inside a node means no other layout fits.
void check_choice(const gpuplan::LayoutSearch& s) {
  REQUIRE_FALSE(s.options.empty());
  const LayoutOption& best = s.options.front();
  CHECK(best.layout.tp == s.chosen.request.layout.tp);
  CHECK(best.layout.pp == s.chosen.request.layout.pp);
  CHECK(best.layout.ep == s.chosen.request.layout.ep);
  CHECK(best.layout.dp == s.chosen.request.layout.dp);
  CHECK(best.fits == s.chosen.fits);
  for (const LayoutOption& o : s.options) {
    if (!o.fits) {
      continue;
    }
    REQUIRE(best.fits);
    if (best.pp_within_node) {
      CHECK(o.pp_within_node);
    }
    if (o.pp_within_node == best.pp_within_node) {
      CHECK(seqs(o) <= seqs(best));
      if (seqs(o) == seqs(best)) {
        CHECK(o.layout.pp >= best.layout.pp);
      }
    }
  }
}
}  // namespace

TEST_CASE("layout search: the chosen layout serves the most sequences", "[layout_search]") {
  struct Case {
    const char* model;
    const char* gpu;
    std::uint64_t gpus;
    FitRequest request;
  };
  const Case cases[] = {
      {"llama-3.1-70b", "h100-sxm", 8, {.context_tokens = 32768, .concurrency = 16}},
      {"qwen3-235b-a22b", "h200-sxm", 8, {.context_tokens = 32768, .concurrency = 32}},
      {"deepseek-v3", "h200-sxm", 8, {.weights_dtype = DType::fp8, .context_tokens = 32768, .concurrency = 32}},
      {"mixtral-8x7b", "l40s", 4, {.context_tokens = 8192, .concurrency = 8}},
      {"llama-3.1-405b", "h100-sxm", 16, {.weights_dtype = DType::fp8, .context_tokens = 8192, .concurrency = 8}},
      {"qwen2.5-72b", "a100-sxm-80gb", 8, {.context_tokens = 16384, .concurrency = 4}},
      {"gpt-oss-120b", "h100-sxm", 2, {.weights_dtype = DType::mxfp4, .context_tokens = 8192, .concurrency = 4}},
  };
  for (const Case& c : cases) {
    INFO(c.model << " on " << c.gpus << " x " << c.gpu);
    const auto r = plan(c.model, c.gpu, question(c.gpus, c.request));
    check_choice(r.search);
    CHECK(r.search.chosen.fits);
    CHECK(r.search.options.size() > 1);
    CHECK(r.suggestions.empty());  // suggestions only when nothing fits
  }
}

TEST_CASE("layout search: every layout uses the GPUs and keeps TP inside a node", "[layout_search]") {
  const auto check = [](const char* model, const char* gpu, std::uint64_t gpus, const FitRequest& req) {
    const auto& g = cat().gpu(gpu);
    const auto s = gpuplan::search_layouts(cat().model(model), g, req, {.gpus = gpus});
    const std::uint64_t node = gpuplan::tp_within_node(g, {.gpus = gpus});
    for (const LayoutOption& o : s.options) {
      INFO(model << " TP " << o.layout.tp << " PP " << o.layout.pp << " DP " << o.layout.dp);
      CHECK(o.layout.gpus() == gpus);
      if (!s.across_nodes_tried) {
        CHECK(o.layout.tp <= node);
        CHECK(o.tp_span != gpuplan::TpSpan::across_nodes);
      }
      CHECK((o.layout.tp > node) == (o.tp_span == gpuplan::TpSpan::across_nodes));
      if (o.layout.ep > 1) {
        CHECK(o.layout.ep == o.layout.tp * o.layout.dp);  // experts over the whole TP x DP group
      }
    }
    return s;
  };
  // 16 H100s: TP 16 would cross nodes and is not evaluated when TP 8 layouts fit.
  const auto s16 = check("llama-3.1-70b", "h100-sxm", 16, FitRequest{});
  CHECK_FALSE(s16.across_nodes_tried);
  CHECK(std::none_of(s16.options.begin(), s16.options.end(), [](const LayoutOption& o) { return o.layout.tp == 16; }));
  // Dense models never get an EP layout.
  CHECK(std::all_of(s16.options.begin(), s16.options.end(), [](const LayoutOption& o) { return o.layout.ep == 1; }));
  // 405B in bf16 needs more than a node of L4s whichever way TP stays inside it: TP across
  // nodes is tried and stated.
  const auto l4 = check("llama-3.1-405b", "l4", 32, FitRequest{.context_tokens = 4096});
  CHECK(l4.across_nodes_tried);
  CHECK(std::any_of(l4.options.begin(), l4.options.end(),
                    [](const LayoutOption& o) { return o.tp_span == gpuplan::TpSpan::across_nodes; }));
  // L40S has no NVLink: TP 2 and 4 run over PCIe inside the node and say so.
  const auto pcie = check("llama-3.1-70b", "l40s", 4, FitRequest{.weights_dtype = DType::fp8});
  CHECK(std::any_of(pcie.options.begin(), pcie.options.end(),
                    [](const LayoutOption& o) { return o.tp_span == gpuplan::TpSpan::node; }));
  // A MIG slice is a replica of its own.
  const auto mig = check("llama-3.1-8b", "h100-sxm", 2, FitRequest{.mig_profile = "3g.40gb"});
  REQUIRE(mig.options.size() == 1);
  CHECK(mig.options.front().layout.dp == 2);
}

TEST_CASE("layout search: KV replication beyond the KV heads is marked", "[layout_search]") {
  // Qwen3-235B-A22B has 4 KV heads (config.json num_key_value_heads): TP 8 replicates them.
  const auto s = gpuplan::search_layouts(cat().model("qwen3-235b-a22b"), cat().gpu("h200-sxm"),
                                         FitRequest{.context_tokens = 32768, .concurrency = 32}, {.gpus = 8});
  for (const LayoutOption& o : s.options) {
    CHECK(o.kv_replicated == (o.layout.tp > 4));
  }
}

TEST_CASE("layout search: the issue's 8 x H200 examples choose an 8-GPU expert group", "[layout_search]") {
  // Issue 7: on 8 x H200 at 32,768 tokens x 32 sequences the old search picked TP 4 x PP 2, and
  // the TP 8 / TP 8 + EP 8 layouts gave 21 users (MLA latent replicated on every TP rank).
  const auto check = [](const char* model, DType weights) {
    const auto r = plan(model, "h200-sxm",
                        question(8, FitRequest{.weights_dtype = weights, .context_tokens = 32768, .concurrency = 32}));
    const auto& s = r.search;
    INFO(model);
    REQUIRE(s.chosen.fits);
    const auto& l = s.chosen.request.layout;
    CHECK(l.pp == 1);
    CHECK(l.ep == 8);
    CHECK(l.tp * l.dp == 8);
    CHECK(*s.chosen.max_concurrent_sequences > 21);
    // TP 8 and TP 8 + EP 8 are in the table.
    const auto has = [&s](std::uint64_t tp, std::uint64_t ep) {
      return std::any_of(s.options.begin(), s.options.end(), [&](const LayoutOption& o) {
        return o.layout.tp == tp && o.layout.ep == ep && o.layout.pp == 1;
      });
    };
    CHECK(has(8, 1));
    CHECK(has(8, 8));
    return s;
  };
  const auto ds = check("deepseek-v3", DType::fp8);
  // DeepSeek-V3 under TP 8 keeps the whole MLA latent on each rank: 21 sequences, as the issue says.
  for (const LayoutOption& o : ds.options) {
    if (o.layout.tp == 8) {
      CHECK(seqs(o) == 21);
      CHECK(o.kv_replicated);
    }
  }
  check("qwen3-235b-a22b", DType::bf16);
}

TEST_CASE("layout search: an asked EP is kept", "[layout_search]") {
  const auto s = gpuplan::search_layouts(cat().model("mixtral-8x7b"), cat().gpu("h100-sxm"),
                                         FitRequest{.layout = {.ep = 4}}, {.gpus = 8});
  for (const LayoutOption& o : s.options) {
    CHECK(o.layout.ep == 4);
  }
  CHECK_THROWS_AS(gpuplan::search_layouts(cat().model("llama-3.1-8b"), cat().gpu("h100-sxm"),
                                          FitRequest{.layout = {.ep = 2}}, {.gpus = 8}),
                  gpuplan::InputError);
}

namespace {
/// Applies a suggestion to the question, as a user would by changing one flag.
FitQuestion applied(FitQuestion q, const gpuplan::FitSuggestion& s) {
  switch (s.change) {
    case FitChange::gpus:
      q.search.gpus = s.count;
      q.request.layout = s.layout;  // a given layout may have needed another TP x PP
      break;
    case FitChange::kv_dtype:
      q.request.kv_dtype = *s.dtype;
      break;
    case FitChange::weights_dtype:
      q.request.weights_dtype = *s.dtype;
      q.request.embeddings_dtype.reset();
      break;
    case FitChange::context:
      q.request.context_tokens = s.count;
      break;
    case FitChange::concurrency:
      q.request.concurrency = s.count;
      break;
    case FitChange::mig_profile:
      q.request.mig_profile = s.mig_profile;
      break;
    case FitChange::prefill_chunk:
      q.request.prefill_chunk_tokens = s.count;
      break;
  }
  return q;
}
}  // namespace

TEST_CASE("fit suggestions: each fitting change fits when applied", "[layout_search]") {
  struct Case {
    const char* model;
    const char* gpu;
    FitQuestion q;
  };
  FitQuestion given = question(
      8, FitRequest{.layout = {.tp = 8}, .weights_dtype = DType::fp8, .context_tokens = 131072, .concurrency = 64});
  given.layout_given = true;
  const Case cases[] = {
      {"deepseek-v3", "h200-sxm", question(8, FitRequest{.context_tokens = 32768, .concurrency = 32})},
      {"llama-3.1-405b", "l4", question(2, FitRequest{})},
      {"qwen3-235b-a22b", "h100-sxm", question(8, FitRequest{.context_tokens = 32768, .concurrency = 64})},
      {"llama-3.1-70b", "h100-sxm", given},
      {"llama-3.1-8b", "l4", question(1, FitRequest{.context_tokens = 131072, .concurrency = 8})},
      // Millions of sequences: logits buffers shrink with the load, so the largest load is a fixed point.
      {"llama-3.1-8b", "h100-sxm", question(4096, FitRequest{.concurrency = 100'000'000})},
      // A prefill chunk typed a thousand times too large (helper s57 badinput F6): only a smaller
      // chunk fits, and it is suggested.
      {"llama-3.1-8b", "h100-sxm", question(1, FitRequest{.prefill_chunk_tokens = 4'194'304})},
  };
  for (const Case& c : cases) {
    INFO(c.model << " on " << c.q.search.gpus << " x " << c.gpu);
    const auto r = plan(c.model, c.gpu, c.q);
    REQUIRE_FALSE(r.search.chosen.fits);
    REQUIRE_FALSE(r.suggestions.empty());
    CHECK(r.suggestions.front().change == FitChange::gpus);
    int fitting = 0;
    for (const auto& s : r.suggestions) {
      INFO("change " << static_cast<int>(s.change) << " to " << s.count);
      if (!s.fits) {
        CHECK(s.shortfall_bytes >= 0);
        continue;
      }
      ++fitting;
      const auto again = plan(c.model, c.gpu, applied(c.q, s));
      CHECK(again.search.chosen.fits);
      CHECK(again.search.chosen.request.layout.gpus() == s.layout.gpus());
      if (s.change == FitChange::gpus) {
        CHECK(s.count > 0);
        // A count that is rented: a divisor of the node or whole nodes, and no smaller such count fits.
        const std::uint64_t node = c.q.search.gpus_per_node;
        if (!c.q.layout_given) {
          CHECK((s.count <= node ? node % s.count : s.count % node) == 0);
        }
        if (!c.q.layout_given && s.count > 1) {
          std::uint64_t smaller = s.count > node ? s.count - node : s.count - 1;
          while (smaller > 1 && node % smaller != 0) {
            --smaller;
          }
          FitQuestion fewer = c.q;
          fewer.search.gpus = smaller;
          CHECK_FALSE(plan(c.model, c.gpu, fewer).search.chosen.fits);
        }
      }
      if (s.change == FitChange::prefill_chunk) {
        // The largest in steps of 256 tokens: one step more does not fit.
        FitQuestion more = applied(c.q, s);
        more.request.prefill_chunk_tokens += 256;
        CHECK_FALSE(plan(c.model, c.gpu, more).search.chosen.fits);
      }
      if (s.change == FitChange::context || s.change == FitChange::concurrency) {
        // The largest: one more does not fit.
        FitQuestion more = applied(c.q, s);
        (s.change == FitChange::context ? more.request.context_tokens : more.request.concurrency) += 16;
        CHECK_FALSE(plan(c.model, c.gpu, more).search.chosen.fits);
      }
    }
    CHECK(fitting > 0);
  }
}

TEST_CASE("fit suggestions: a MIG slice too small names the smallest larger profile that fits", "[layout_search]") {
  // s54 tasks F5: 8B in FP8 (9.1 GB of weights) on an H100 1g.10gb slice only heard that more
  // slices cannot help; 1g.20gb holds it with room for 4 sequences of 8K.
  const FitQuestion q = question(1, FitRequest{.mig_profile = "1g.10gb", .weights_dtype = DType::fp8,
                                               .context_tokens = 8192, .concurrency = 4});
  const auto r = plan("llama-3.1-8b", "h100-sxm", q);
  REQUIRE_FALSE(r.search.chosen.fits);
  const auto mig = std::find_if(r.suggestions.begin(), r.suggestions.end(),
                                [](const gpuplan::FitSuggestion& s) { return s.change == FitChange::mig_profile; });
  REQUIRE(mig != r.suggestions.end());
  CHECK(mig->mig_profile == "1g.20gb");
  CHECK(mig->fits);
  CHECK(plan("llama-3.1-8b", "h100-sxm", applied(q, *mig)).search.chosen.fits);
}

TEST_CASE("fit: the default context gives way to a smaller model maximum", "[layout_search]") {
  // Llama 2 (config.json max_position_embeddings 4096) failed a plain `fit` with the 8,192 default.
  FitQuestion q = question(1, FitRequest{});
  q.context_given = false;
  const auto r = plan("llama-2-7b", "h100-sxm", q);
  REQUIRE(r.default_context_clamped_from.has_value());
  CHECK(*r.default_context_clamped_from == 8192);
  CHECK(r.search.chosen.request.context_tokens == 4096);
  CHECK(r.search.chosen.fits);
  // A model whose maximum is above the default keeps the default.
  const auto big = plan("llama-3.1-8b", "h100-sxm", q);
  CHECK_FALSE(big.default_context_clamped_from.has_value());
  CHECK(big.search.chosen.request.context_tokens == 8192);
  // A context the user typed stays an error.
  q.context_given = true;
  CHECK_THROWS_WITH(plan("llama-2-7b", "h100-sxm", q),
                    Catch::Matchers::StartsWith(
                        "fit.context_tokens: 8192 exceeds the 4096 tokens of 'llama-2-7b' (max_position_embeddings)"));
}

TEST_CASE("layout search: perf's smallest layout that fits", "[layout_search]") {
  const auto& m = cat().model("llama-3.1-70b");
  // 141 GB of bf16 weights: two H100s per replica, four replicas on a node.
  const auto r = gpuplan::fit_smallest_layout(m, cat().gpu("h100-sxm"), FitRequest{}, 8);
  CHECK(r.fits);
  CHECK(r.layout_automatic);
  CHECK(r.request.layout.tp == 2);
  CHECK(r.request.layout.pp == 1);
  CHECK(r.request.layout.dp == 4);
  // Nothing fits: the widest layout is reported, not a smaller one.
  const auto none = gpuplan::fit_smallest_layout(cat().model("llama-3.1-405b"), cat().gpu("l4"), FitRequest{}, 2);
  CHECK_FALSE(none.fits);
  CHECK(none.request.layout.gpus_per_replica() == 2);
}

// TensorRT-LLM's attention-DP ranks are single GPUs: its layout search offers no EP over DP
// ranks that are TP groups (fit --engine trtllm had chosen TP 4 DP 2 EP 8 for Qwen3-235B).
TEST_CASE("layout search: no attention DP over TP groups under TensorRT-LLM", "[layout_search]") {
  FitRequest r{.weights_dtype = gpuplan::DType::fp8, .context_tokens = 4096, .concurrency = 1};
  const auto neutral = plan("qwen3-235b-a22b", "h200-sxm", question(8, r));
  const auto split_ranks = [](const LayoutOption& o) { return o.layout.dp_attention() && o.layout.tp > 1; };
  CHECK(std::any_of(neutral.search.options.begin(), neutral.search.options.end(), split_ranks));
  r.engine.engine = gpuplan::Engine::trtllm;
  const auto trt = plan("qwen3-235b-a22b", "h200-sxm", question(8, r));
  CHECK_FALSE(trt.search.options.empty());
  CHECK(std::none_of(trt.search.options.begin(), trt.search.options.end(), split_ranks));
}
