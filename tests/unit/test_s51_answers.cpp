// Answers s51 found wrong or misleading: a replica no instance holds, the target note under
// attention DP, control characters echoed back.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <gpuplan/compare.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/planned_load.hpp>
#include <gpuplan/rental.hpp>
#include <gpuplan/scaling.hpp>

TEST_CASE("a replica split over instances is not rentable in a comparison", "[compare][rental]") {
  gpuplan::PricedOption po;
  po.price = gpuplan::Price{.provider = "lambda", .gpu = "b200", .gpus_per_instance = {1}};
  const std::vector<std::uint64_t> one{1};
  po.cost.rental = gpuplan::rent_instances(8, one, 4);
  CHECK(po.cost.rental.group_split);
  CHECK_FALSE(po.rentable());
  const std::string why = gpuplan::not_rentable_text(po.cost.rental, *po.price);
  CHECK(why.find("a replica needs 4 GPUs in one instance") != std::string::npos);
  // s55: the largest instance of the offer the catalog has (here the price's own sizes).
  CHECK(why.find("the largest lambda on-demand instance of b200 the catalog has holds 1 GPU") != std::string::npos);
  const std::vector<std::uint64_t> eight{8};
  po.cost.rental = gpuplan::rent_instances(8, eight, 4);
  CHECK(po.rentable());
}

TEST_CASE("the sized target note under attention DP counts EP groups and the batch per rank", "[planned_load]") {
  gpuplan::PlannedLoad load;
  load.target_output_tokens_per_s = 20000;
  load.sized_replicas = 16;
  load.batch = 186;
  const gpuplan::Layout dp_attention{.tp = 1, .pp = 1, .ep = 8, .dp = 16};
  const std::string note = gpuplan::target_load_note(load, dp_attention);
  CHECK(note.find("2 replicas of EP 8 with attention DP 8 (16 GPUs), batch 186 per attention rank") != std::string::npos);
  CHECK(note.find("TP 1 PP 1") == std::string::npos);
  const gpuplan::Layout replicas{.tp = 2, .pp = 1, .ep = 1, .dp = 4};
  CHECK(gpuplan::target_load_note(load, replicas).find("4 replicas of TP 2 PP 1 (8 GPUs), batch 186 per replica") !=
        std::string::npos);
}

TEST_CASE("control characters are escaped when echoed", "[input_limits]") {
  CHECK(gpuplan::limits::escaped("h100-sxm\x1b[31m") == "h100-sxm\\x1b[31m");
  CHECK(gpuplan::limits::escaped("tokens/s") == "tokens/s");
  CHECK_THROWS_AS(gpuplan::parse_throughput_unit("\x1b[2J", "--unit"), gpuplan::InputError);
  CHECK(gpuplan::parse_throughput_unit("tokens/s", "--unit").tokens);
}

TEST_CASE("measured serving throughput says replicas scale linearly", "[scaling]") {
  gpuplan::ScalingRequest r;
  r.points = {{.gpus = 2, .throughput = 5776}, {.gpus = 8, .throughput = 15711}};
  r.unit = gpuplan::parse_throughput_unit("tokens/s", "--unit");
  const gpuplan::ScalingResult res = gpuplan::measured_scaling(r);
  const bool said = std::any_of(res.notes.begin(), res.notes.end(), [](const std::string& n) {
    return n.find("replicas of one layout scale linearly (4 x 2 GPUs serve 4 x the 2-GPU rate)") != std::string::npos;
  });
  CHECK(said);
}
