#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/kv_cache.hpp>

#include "test_support.hpp"

using Catch::Matchers::WithinRel;
using gpuplan::DType;
using gpuplan::Layout;

namespace {
using gpuplan::test::model;
}  // namespace

TEST_CASE("kv_cache: GQA bytes per token = 2 x layers x kv_heads x head_dim x bytes", "[kv_cache]") {
  // Llama-3.1-70B: 2 x 80 x 8 x 128 x 2 bytes.
  CHECK_THAT(gpuplan::kv_bytes_per_token(model("llama-3.1-70b"), DType::bf16), WithinRel(327680.0, 1e-12));
  CHECK_THAT(gpuplan::kv_bytes_per_token(model("llama-3.1-70b"), DType::fp8), WithinRel(163840.0, 1e-12));
  // Llama-2-7B is MHA: 32 KV heads.
  CHECK_THAT(gpuplan::kv_bytes_per_token(model("llama-2-7b"), DType::bf16), WithinRel(524288.0, 1e-12));
}

TEST_CASE("kv_cache: MLA stores the latent plus the RoPE key", "[kv_cache]") {
  // Issue 2: DeepSeek-V3 61 x (512 + 64) x 2 = 70,272 bytes per token.
  CHECK_THAT(gpuplan::kv_bytes_per_token(model("deepseek-v3"), DType::bf16), WithinRel(70272.0, 1e-12));
  const auto shape = gpuplan::kv_shape(model("deepseek-v3"), DType::bf16, Layout{.tp = 8});
  CHECK(shape.replicated);  // the latent is not split over TP ranks
  CHECK_THAT(shape.bytes_per_token_per_layer_per_gpu, WithinRel(576.0 * 2.0, 1e-12));
}

TEST_CASE("kv_cache: TP splits KV heads but never below one per GPU", "[kv_cache]") {
  const auto& m = model("llama-3.1-70b");  // 8 KV heads
  const auto tp2 = gpuplan::kv_shape(m, DType::bf16, Layout{.tp = 2});
  CHECK(tp2.kv_heads_per_gpu == 4);
  CHECK_FALSE(tp2.replicated);
  const auto tp16 = gpuplan::kv_shape(m, DType::bf16, Layout{.tp = 16});
  CHECK(tp16.kv_heads_per_gpu == 1);
  CHECK(tp16.replicated);
  CHECK_THAT(tp16.bytes_per_token_per_layer_per_gpu, WithinRel(2.0 * 128 * 2, 1e-12));
}

TEST_CASE("kv_cache: PP splits layers, and the busiest stage holds ceil(layers / PP)", "[kv_cache]") {
  const auto s = gpuplan::kv_shape(model("llama-3.1-405b"), DType::bf16, Layout{.pp = 4});  // 126 layers
  CHECK(s.layers_per_gpu() == 32);
}

TEST_CASE("kv_cache: a sequence is allocated in whole paged blocks", "[kv_cache]") {
  const auto s = gpuplan::kv_shape(model("llama-3.1-8b"), DType::bf16, Layout{});
  const double per_token = 131072.0;
  CHECK_THAT(gpuplan::sequence_kv_bytes(s, 16, 16), WithinRel(16 * per_token, 1e-12));
  CHECK_THAT(gpuplan::sequence_kv_bytes(s, 17, 16), WithinRel(32 * per_token, 1e-12));
  CHECK_THAT(gpuplan::sequence_kv_bytes(s, 17, 1), WithinRel(17 * per_token, 1e-12));
}

TEST_CASE("kv_cache: sliding-window layers hold at most their window", "[kv_cache]") {
  // gpt-oss-120b: 18 of 36 layers slide over 128 tokens; 8 KV heads x 64 dims.
  const auto s = gpuplan::kv_shape(model("gpt-oss-120b"), DType::bf16, Layout{});
  const double per_layer_token = 2.0 * 8 * 64 * 2;
  const double expected = (18.0 * 131072 + 18.0 * 128) * per_layer_token;
  CHECK_THAT(gpuplan::sequence_kv_bytes(s, 131072, 16), WithinRel(expected, 1e-12));
  // Below the window every layer holds every token.
  CHECK_THAT(gpuplan::sequence_kv_bytes(s, 64, 16), WithinRel(36.0 * 64 * per_layer_token, 1e-12));
}

TEST_CASE("kv_cache: Llama 4's chunked layers hold one chunk, or the whole context under TensorRT-LLM", "[kv_cache]") {
  // Llama 4 Scout: 36 of 48 layers attend within 8,192-token chunks, every fourth globally.
  const auto& m = model("llama-4-scout");
  const double per_layer_token = 2.0 * 8 * 128 * 1;  // fp8
  const auto chunked = gpuplan::kv_shape(m, DType::fp8, Layout{});
  CHECK_THAT(gpuplan::sequence_kv_bytes(chunked, 20000, 16),
             WithinRel((12.0 * 20000 + 36.0 * 8192) * per_layer_token, 1e-12));
  // TensorRT-LLM chunks context requests only and sizes its cache by the largest window.
  const auto full = gpuplan::kv_shape(m, DType::fp8, Layout{}, true);
  CHECK(full.full_attention_only);
  CHECK_THAT(gpuplan::sequence_kv_bytes(full, 20000, 16), WithinRel(48.0 * 20000 * per_layer_token, 1e-12));
  // Within one chunk the two agree.
  CHECK_THAT(gpuplan::sequence_kv_bytes(full, 8000, 16),
             WithinRel(gpuplan::sequence_kv_bytes(chunked, 8000, 16), 1e-12));
  // Sliding windows too: TensorRT-LLM's KV cache manager keeps max_seq_len tokens a layer unless
  // max_attention_window is set, so gpt-oss's 128-token-window layers (18 of 36) keep the whole
  // context there, and hold 128 tokens elsewhere.
  const auto& oss = model("gpt-oss-120b");
  const auto windowed = gpuplan::kv_shape(oss, DType::bf16, Layout{});
  const auto whole = gpuplan::kv_shape(oss, DType::bf16, Layout{}, true);
  CHECK(whole.full_attention_only);
  CHECK_THAT(gpuplan::sequence_kv_bytes(whole, 131072, 16),
             WithinRel(gpuplan::sequence_kv_bytes(windowed, 131072, 16) * 36.0 * 131072 / (18.0 * 131072 + 18.0 * 128),
                       1e-12));
}

TEST_CASE("kv_cache: max_context_tokens is the last length that fits", "[kv_cache]") {
  const auto s = gpuplan::kv_shape(model("llama-3.1-8b"), DType::bf16, Layout{});
  const double budget = 10.0 * 1000 * 131072;  // room for 10 x 1000 tokens
  const auto tokens = gpuplan::max_context_tokens(s, budget, 10, 1, 131072);
  CHECK(tokens == 1000);
  CHECK(gpuplan::max_context_tokens(s, budget, 10, 16, 131072) == 992);  // whole blocks only
  CHECK(gpuplan::max_context_tokens(s, 1e18, 1, 16, 131072) == 131072);  // capped at the limit
  CHECK(gpuplan::max_context_tokens(s, 0.0, 1, 16, 131072) == 0);
}

namespace {

/// The last fitting length by plain bisection over sequence_kv_bytes, as max_context_tokens
/// searched before its shortcuts (one division for full attention, windows grouped by size).
std::uint64_t bisected_context(const gpuplan::KvShape& s, double budget, std::uint64_t sequences, std::uint64_t block,
                               std::uint64_t limit) {
  const auto fits = [&](std::uint64_t t) { return static_cast<double>(sequences) * gpuplan::sequence_kv_bytes(s, t, block) <= budget; };
  if (!fits(1)) {
    return 0;
  }
  if (fits(limit)) {
    return limit;
  }
  std::uint64_t lo = 1;
  std::uint64_t hi = limit;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

TEST_CASE("kv_cache: max_context_tokens' shortcuts give the bisection's answer", "[kv_cache]") {
  for (const char* id : {"llama-3.1-8b", "gpt-oss-120b", "gemma-3-27b", "deepseek-v3"}) {
    for (const std::uint64_t pp : {1u, 3u}) {
      const auto s = gpuplan::kv_shape(model(id), DType::bf16, Layout{.tp = 1, .pp = pp, .ep = 1, .dp = 1});
      for (const std::uint64_t block : {1u, 16u, 256u}) {
        for (const std::uint64_t sequences : {1u, 7u, 300u}) {
          for (double budget = 1e6; budget < 1e12; budget *= 3.7) {
            INFO(id << " pp " << pp << " block " << block << " sequences " << sequences << " budget " << budget);
            CHECK(gpuplan::max_context_tokens(s, budget, sequences, block, 131072) ==
                  bisected_context(s, budget, sequences, block, 131072));
          }
        }
      }
    }
  }
}

TEST_CASE("kv_cache: full_attention_only is set exactly when every window is full", "[kv_cache]") {
  CHECK(gpuplan::kv_shape(model("llama-3.1-8b"), DType::bf16, Layout{}).full_attention_only);
  CHECK_FALSE(gpuplan::kv_shape(model("gpt-oss-120b"), DType::bf16, Layout{}).full_attention_only);
  // A shape built by hand without the flag is sized by walking its layers: the same bytes.
  auto s = gpuplan::kv_shape(model("llama-3.1-8b"), DType::bf16, Layout{});
  const double fast = gpuplan::sequence_kv_bytes(s, 4000, 16);
  s.full_attention_only = false;
  CHECK(gpuplan::sequence_kv_bytes(s, 4000, 16) == Approx(fast).epsilon(0));
}
