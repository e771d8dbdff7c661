// Prompt tokens the engine's prefix cache already holds (PerfRequest::cached_input_tokens; perf
// --cached-input; a measurement row's cached_input_tokens). vLLM V1 and SGLang cache prefixes by
// default, so a sweep that resends one seed's prompts to the same server prefills almost nothing:
// Vultr's B200 Nemotron Super 49B sweep (tools/heldout/community-2026ah.json) prints a mean TTFT
// of 205 ms for 50 prompts of 2,048 tokens sent at once, 102,400 prompt tokens that need at least
// 2.3 s of FP8 compute at B200's peak. Session 61: perf had no such term and charged every prompt
// in full (TTFT 2.2 s, throughput -47 %).
#include <string>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/measurement_file.hpp>
#include <gpuplan/perf.hpp>

using namespace gpuplan;

namespace {

PerfRequest request(std::uint64_t cached) {
  PerfRequest req;
  req.fit.weights_dtype = DType::fp8;
  req.fit.kv_dtype = DType::bf16;
  req.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 1, .dp = 1};
  req.input_tokens = 2048;
  req.output_tokens = 512;
  req.cached_input_tokens = cached;
  return req;
}

}  // namespace

TEST_CASE("prefix cache: prefill computes the uncached tokens over the whole prompt", "[perf][prefix-cache]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& m = catalog.model("llama-3.1-8b");
  const GpuSpec& gpu = catalog.gpu("h100-sxm");
  // vLLM caches whole blocks of 16 and recomputes the last prompt token: 2,048 cached tokens hit
  // 127 blocks (2,032), leaving 16 to compute.
  const PerfModel fresh(m, gpu, request(0));
  const PerfModel cached(m, gpu, request(2032));
  const Efficiency e = request(0).efficiency;
  const PerfPoint f = fresh.evaluate(32, e);
  const PerfPoint c = cached.evaluate(32, e);

  // One prompt alone: one prefill step of the 16 computed tokens, each attending over the 2,048
  // of its prompt (not a 16-token prompt of its own).
  CHECK(c.ttft_alone_s == Approx(cached.prefill_step(16, 2048, e).total_s()));
  CHECK(c.ttft_alone_s >= cached.prefill_step(16, 16, e).total_s());
  CHECK(c.ttft_alone_s < f.ttft_alone_s / 5.0);  // 6.1 ms against 32.8 ms: the weights are read once either way
  // Decode reads the whole prompt's KV: the step is the same with or without the cache.
  CHECK(c.step_s == Approx(f.step_s));
  CHECK(c.decode.total_s() == Approx(f.decode.total_s()));
  // The cycle is still output x step + batch x prefill, the prefill now that of 16 tokens.
  CHECK(c.prefill_busy_s < f.prefill_busy_s / 10.0);
  CHECK(c.cycle_s == Approx(512.0 * c.step_s + 32.0 * c.prefill_busy_s));
  CHECK(c.output_tokens_per_s > f.output_tokens_per_s);
  // The loaded TTFT (32 prompts at once) shrinks with the prefill; never below one prompt alone.
  CHECK(c.ttft_s < f.ttft_s / 10.0);
  CHECK(c.ttft_s >= c.ttft_alone_s);
  // The default: no prompt token cached (validate's rows and every other command as before).
  CHECK(PerfRequest{}.cached_input_tokens == 0);
  // One cached token less computed: a little more prefill, the same decode.
  const PerfPoint c1 = PerfModel(m, gpu, request(2031)).evaluate(32, e);
  CHECK(c1.ttft_alone_s == Approx(cached.prefill_step(17, 2048, e).total_s()));
  CHECK(c1.step_s == Approx(c.step_s));
}

TEST_CASE("prefix cache: the whole prompt cannot be cached", "[perf][prefix-cache]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& m = catalog.model("llama-3.1-8b");
  CHECK_NOTHROW(validate_perf_request(m, request(2047)));
  CHECK_THROWS_WITH(validate_perf_request(m, request(2048)),
                    Catch::Contains("perf.cached_input_tokens") && Catch::Contains("2048"));
}

TEST_CASE("prefix cache: a measurement row's cached_input_tokens reaches the estimate", "[perf][prefix-cache]") {
  const std::string row = R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.16.0", "model": "llama-3.1-8b",
    "gpu": "h100-sxm", "parallelism": "TP1", "num_gpus": 1, "precision": "FP8", "kv_cache_dtype": "bf16",
    "isl": 2048, "osl": 512, "concurrency": 32, "num_requests": 32, "output_tokens_per_s": 3000,
    "cached_input_tokens": 2032, "source": "test"}]})";
  const MeasurementFile f = read_measurement_file(Catalog::builtin(), row, "row.json");
  REQUIRE(f.benchmarks.size() == 1);
  CHECK(f.benchmarks[0].cached_input_tokens == 2032);
  std::string whole = row;
  whole.replace(whole.find("2032"), 4, "2048");
  CHECK_THROWS_WITH(read_measurement_file(Catalog::builtin(), whole, "row.json"),
                    Catch::Contains("cached_input_tokens"));
}
