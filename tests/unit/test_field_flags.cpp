// Every request field the library names in an InputError is either mapped to the flag people
// type (src/cli/field_flags.hpp) or listed as one no flag reaches. Scans the library's sources,
// so a new message with a new field fails here until it is mapped.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "../../src/cli/field_flags.hpp"

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool known(const std::string& prefix) {
  const auto has = [&](const auto& table) {
    return std::any_of(std::begin(table), std::end(table), [&](const auto& f) { return f.field == prefix; });
  };
  return has(gpuplan::cli::kFieldFlags) || has(gpuplan::cli::kFieldsWithoutFlag);
}

}  // namespace

TEST_CASE("every field an InputError names maps to a flag or is listed as unreachable", "[cli][errors]") {
  const std::filesystem::path lib = std::filesystem::path(GPUPLAN_FIXTURES_DIR) / ".." / ".." / "src" / "lib";
  REQUIRE(std::filesystem::is_directory(lib));
  // The first string literal after `InputError(`, or returned as a problem a caller throws
  // (layout_problem, timing_problem): the start of the message.
  const std::regex message(R"re((?:InputError\(|return)\s*(?:fmt::format\(\s*)?"([a-z_]+(?:\.[a-z_{}]+)?): )re");
  std::set<std::string> literal;
  std::set<std::string> templated;
  for (const auto& entry : std::filesystem::directory_iterator(lib)) {
    if (entry.path().extension() != ".cpp" || entry.path().filename().string().starts_with("render_")) {
      continue;
    }
    const std::string text = read(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), message); it != std::sregex_iterator(); ++it) {
      const std::string prefix = (*it)[1].str();
      (prefix.ends_with(".{}") ? templated : literal).insert(prefix + ":");
    }
  }
  REQUIRE(literal.size() > 20);  // the scan found the messages at all
  for (const std::string& prefix : literal) {
    INFO(prefix);
    CHECK(known(prefix));
  }
  // Templated prefixes ("cost.{}:") take their field from a helper's argument; their fields are
  // listed by hand below. A new templated prefix must be added here with its fields.
  const std::set<std::string> expected_templates{"cost.{}:", "engine.{}:", "efficiency.{}:",
                                                 "fit.{}:",  "layout.{}:", "perf.{}:",
                                                 "plan.{}:", "scale.{}:", "train.{}:", "train_efficiency.{}:",
                                                 "train_plan.{}:"};
  CHECK(templated == expected_templates);
  const char* expanded[] = {
      // cost.cpp check(...)
      "cost.gpus:", "cost.output_tokens_per_s:", "cost.input_tokens_per_s:", "cost.utilization:",
      "cost.storage_usd_per_month:", "cost.egress_usd_per_month:", "cost.failed_run_overhead:", "cost.pue:",
      "cost.usd_per_kwh:", "cost.gpu_power_w:", "cost.usd_per_gpu_hour:", "cost.capex_usd_per_gpu:",
      "cost.amortization_years:", "cost.operations_share_per_year:", "cost.instance_group:", "cost.gpus_per_instance:",
      // engine_memory.cpp check_share / tokens_check
      "engine.gpu_memory_utilization:", "engine.mem_fraction_static:", "engine.kv_cache_free_gpu_mem_fraction:",
      "engine.max_num_batched_tokens:", "engine.max_num_seqs:",
      // perf.cpp validate_efficiency, tokens
      "efficiency.bandwidth:", "efficiency.compute:", "efficiency.kv_bandwidth:", "efficiency.link:",
      "efficiency.step_overhead_s:", "efficiency.layer_overhead_s:", "efficiency.hop_latency_s:", "efficiency.activation_passes:",
      "efficiency.sequence_overhead_s:", "efficiency.routed_copy_s_per_gb:",
      "efficiency.gemm_half_flop:", "efficiency.format_exponent:", "perf.input_tokens:", "perf.output_tokens:",
      // memory.cpp in_range, layout.cpp check_degree
      "fit.concurrency:", "fit.context_tokens:", "fit.prefill_chunk_tokens:", "fit.block_tokens:", "fit.gpus_per_node:", "layout.tp:",
      "layout.pp:", "layout.ep:", "layout.dp:",
      // planner.cpp check_target
      "plan.output_tokens_per_s:", "plan.max_itl_s:", "plan.max_ttft_s:", "plan.min_tokens_per_s_per_user:",
      "plan.max_usd_per_million_tokens:",
      // scale_model.cpp check_cap
      "scale.max_itl_s:", "scale.max_ttft_s:",
      // train_plan.cpp prices_for: a price lookup's own field
      "train_plan.provider:", "train_plan.term:",
      // train_memory.cpp range checks
      "train.cp:", "train.vpp:", "train.lora_rank:", "train.micro_batch:", "train.seq_tokens:",
      "train.first_stage_layers:", "train.last_stage_layers:"};
  for (const char* prefix : expanded) {
    INFO(prefix);
    CHECK(known(prefix));
  }
}

TEST_CASE("the field table maps each field once, to a flag", "[cli][errors]") {
  std::set<std::string_view> seen;
  for (const auto& [field, flag] : gpuplan::cli::kFieldFlags) {
    INFO(field);
    CHECK(seen.insert(field).second);
    CHECK(flag.starts_with("--"));
    CHECK(field.ends_with(":"));
    CHECK(flag.ends_with(":"));
  }
}
