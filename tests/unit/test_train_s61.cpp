// Helper s61 (train): the network between nodes follows the GPU's own NICs where the catalog
// gives them (GB300 NVL72: a ConnectX-8, 800 Gb/s, per GPU), a typed --network-gbit-per-s wins.
#include <string>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/train_plan.hpp>

#include "test_support.hpp"

using namespace gpuplan;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

using gpuplan::test::gpu;
using gpuplan::test::model;

std::string gpu_entry(const std::string& extra) {
  return R"({"schema_version": 1, "gpus": [{"id": "x-gpu", "name": "X", "vendor": "nvidia", "memory_gb": 80,
  "memory_bandwidth_tb_per_s": 3.35, "dense_tflop_per_s": {"bf16": 989}, "tdp_w": 700,
  "host_link": {"kind": "pcie5-x16", "gb_per_s_per_direction": 64}, "sources": ["test"])" +
         extra + "}]}";
}

// torchtitan's DeepSeek-V3 671B on 256 GB300 (docs/dsv3_671b_dist_moe_256gpu_report.md @1ec9e872):
// FSDP 256 with EP 64, 16 micro-batches of 4096 tokens per GPU, gradients reduced once per step.
TrainPlanRequest dsv3_256() {
  TrainPlanRequest r;
  TrainRequest& t = r.train;
  t.layout.dp = 256;
  t.layout.ep = 64;
  t.sharding = Sharding::fsdp;
  t.seq_tokens = 4096;
  t.global_batch_tokens = 16777216;
  t.precision = TrainPrecision::fp8;
  t.sync_last_micro_batch = true;
  return r;
}

}  // namespace

TEST_CASE("catalog s61: scale_out_gbit_per_s is read as bytes per second and range-checked", "[catalog][train]") {
  Catalog c;
  c.merge_text(gpu_entry(R"(, "scale_out_gbit_per_s": 800)"), "t.json");
  REQUIRE(c.gpu("x-gpu").scale_out_bytes_per_s.has_value());
  CHECK_THAT(*c.gpu("x-gpu").scale_out_bytes_per_s, WithinRel(100e9, 1e-12));

  Catalog none;
  none.merge_text(gpu_entry(""), "t.json");
  CHECK_FALSE(none.gpu("x-gpu").scale_out_bytes_per_s.has_value());

  for (const char* bad : {R"(, "scale_out_gbit_per_s": 0)", R"(, "scale_out_gbit_per_s": 1e9)",
                          R"(, "scale_out_gbit_per_s": "800")"}) {
    Catalog c2;
    CHECK_THROWS_WITH(c2.merge_text(gpu_entry(bad), "t.json"), Contains("scale_out_gbit_per_s"));
  }
}

TEST_CASE("train s61: network_rate takes the typed rate, else the GPU's NICs, else 400 Gb/s", "[train]") {
  TrainEfficiency e;
  CHECK_THAT(network_rate(gpu("h100-sxm"), e), WithinRel(kDefaultNetworkBytesPerSPerGpu, 1e-12));
  CHECK_THAT(network_rate(gpu("gb200"), e), WithinRel(50e9, 1e-12));  // ConnectX-7: 400 Gb/s
  // GB300 NVL72: one ConnectX-8 (800 Gb/s) per GPU.
  CHECK_THAT(network_rate(gpu("gb300"), e), WithinRel(100e9, 1e-12));
  e.network_bytes_per_s_per_gpu = 25e9;
  CHECK_THAT(network_rate(gpu("gb300"), e), WithinRel(25e9, 1e-12));
  e.network_bytes_per_s_per_gpu = 0.0;
  CHECK_THROWS_AS(train_step(model("llama-3-8b"), gpu("gb300"), TrainRequest{}, e), InputError);
}

TEST_CASE("train s61: 256 GB300 over the network run at their own NICs' rate unless told otherwise", "[train]") {
  const Catalog& catalog = gpuplan::test::cat();
  const ModelSpec& dsv3 = model("deepseek-v3");
  TrainPlanRequest r = dsv3_256();
  const TrainPlan own = train_plan(catalog, dsv3, gpu("gb300"), r);
  r.efficiency.network_bytes_per_s_per_gpu = 50e9;
  const TrainPlan typed400 = train_plan(catalog, dsv3, gpu("gb300"), r);
  REQUIRE(own.step.dp_link == "network");
  // Half the network time: the 256-way FSDP collectives, exposed at 400 Gb/s, are halved.
  CHECK_THAT(own.step.dp_comm_s, WithinRel(typed400.step.dp_comm_s / 2.0, 0.05));
  CHECK(own.step.tokens_per_s > 1.3 * typed400.step.tokens_per_s);
  // The report measured 5,822 tokens/s per GPU (PP1, eager): the catalog's NICs bring the
  // estimate within 15 %; 400 Gb/s left it 40 % short.
  CHECK_THAT(own.step.tokens_per_s / 256.0, WithinRel(5822.0, 0.15));
  CHECK(typed400.step.tokens_per_s / 256.0 < 0.7 * 5822.0);
  // The plan says where the rate came from only when the catalog chose it.
  const auto says_nics = [](const TrainPlan& p) {
    for (const std::string& n : p.notes) {
      if (n.find("catalog scale-out NICs") != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  CHECK(says_nics(own));
  CHECK_FALSE(says_nics(typed400));
}
