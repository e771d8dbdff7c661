// A user catalog entry changes only the answers that use it: overriding a GPU or model the
// shipped benchmarks calibrate on must not move the band of unrelated runs, nor break them.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include <gpuplan/band.hpp>
#include <gpuplan/calibration.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/perf.hpp>

using namespace gpuplan;

TEST_CASE("overriding a calibrated GPU leaves the band of runs on other GPUs alone", "[band][override]") {
  const Catalog& shipped = Catalog::builtin();
  Catalog user = shipped;
  // b200 is the only Blackwell GPU in the calibration set; as "amd" it would leave Blackwell
  // uncalibrated for every run on a b300 that never touches the b200 entry. (Its NVLink goes
  // with it: NVLink on an AMD GPU is refused.)
  (void)user.merge_text(R"({"schema_version": 1, "gpus": [{"id": "b200", "vendor": "amd", "scale_up": {"kind": "xgmi"}}]})",
                        "user.json");
  const ModelSpec& model = user.model("qwen3-30b-a3b");
  const EstimateBand before = estimate_band(shipped, model, shipped.gpu("b300"), DType::fp4, true);
  const EstimateBand after = estimate_band(user, model, user.gpu("b300"), DType::fp4, true);
  CHECK(before.band_case == BandCase::combination_not_calibrated);
  CHECK(after.band_case == before.band_case);
  CHECK(after.band.low == Approx(before.band.low));
  CHECK(after.band.high == Approx(before.band.high));
}

TEST_CASE("a run on an overridden entry is not 'calibrated' under the calibrated id", "[band][override]") {
  Catalog user = Catalog::builtin();
  (void)user.merge_text(R"({"schema_version": 1, "gpus": [{"id": "h100-sxm", "memory_bandwidth_tb_per_s": 2.0}]})",
                        "user.json");
  const ModelSpec& model = user.model("llama-3.1-8b");
  CHECK(estimate_band(Catalog::builtin(), model, Catalog::builtin().gpu("h100-sxm"), DType::fp8, true).band_case ==
        BandCase::calibrated);
  CHECK(differs_from_builtin(user.gpu("h100-sxm")));
  CHECK_FALSE(differs_from_builtin(user.gpu("h200-sxm")));
  CHECK(estimate_band(user, model, user.gpu("h100-sxm"), DType::fp8, true).band_case ==
        BandCase::combination_not_calibrated);
}

TEST_CASE("an override that breaks shipped benchmarks is reported, unrelated runs still work", "[override]") {
  Catalog user = Catalog::builtin();
  (void)user.merge_text(
      R"({"schema_version": 1, "models": [{"id": "llama-3.3-70b", "config": {"max_position_embeddings": 2048}}]})",
      "user.json");
  const auto lines = shipped_benchmarks_on_changed_entries(user);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].starts_with("model 'llama-3.3-70b' is used by "));
  CHECK(lines[0].find("fail with this file's entry") != std::string::npos);
  CHECK(shipped_benchmarks_on_changed_entries(Catalog::builtin()).empty());
  // An unrelated model on a GPU of the broken benchmarks: estimated as before, same band.
  const ModelSpec& model = user.model("qwen3-8b");
  PerfRequest req;
  const PerfResult mine = perf(model, user.gpu("h200-sxm"), req, {1, 8},
                               estimate_band(user, model, user.gpu("h200-sxm"), req.fit.weights_dtype, true));
  const PerfResult shipped = perf(model, Catalog::builtin().gpu("h200-sxm"), req, {1, 8},
                                  estimate_band(Catalog::builtin(), model, Catalog::builtin().gpu("h200-sxm"),
                                                req.fit.weights_dtype, true));
  CHECK(mine.rows[1].output_tokens_per_s == Approx(shipped.rows[1].output_tokens_per_s).epsilon(1e-12));
  CHECK(mine.band_case == shipped.band_case);
}
