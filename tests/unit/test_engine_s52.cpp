// Engine refusals and terms on helper s52's findings: no engine runs fp8 on Volta or fp4 before
// Ampere (the engine-neutral verdict), a checkpoint's quantization method (AWQ bits, AWQ on Volta,
// W4A8_AWQ before Ada), TensorRT-LLM before Ampere, SGLang's AITER cut and workspace on AMD.
#include <catch2/catch.hpp>

#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/units.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;
using gpuplan::DType;
using gpuplan::Engine;
using gpuplan::FitRequest;

namespace {

using gpuplan::test::cat;

FitRequest s52_request(DType weights, Engine engine = Engine::neutral) {
  FitRequest r;
  r.weights_dtype = weights;
  r.context_tokens = 4096;
  r.engine.engine = engine;
  return r;
}

// Llama-3.1-8B's config.json with the quantization_config given.
std::string s52_llama_config(const std::string& quantization) {
  return R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16", "quantization_config": )" +
         quantization + "}";
}

std::string s52_fit_error(const gpuplan::ModelSpec& m, const char* gpu, Engine engine) {
  try {
    FitRequest r;
    r.context_tokens = 4096;
    r.engine.engine = engine;
    r.weight_formats = m.shipped_formats;  // as shipped, as fit without --weights-dtype
    gpuplan::fit(m, cat().gpu(gpu), r);
  } catch (const gpuplan::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("s52: with no engine named fp8 on Volta and fp4 before Ampere do not run", "[engine][s52]") {
  const auto& m = cat().model("llama-3.1-8b");
  const auto volta_fp8 = gpuplan::fit(m, cat().gpu("v100-sxm2-16gb"), s52_request(DType::fp8));
  CHECK_FALSE(volta_fp8.fits);
  CHECK(volta_fp8.weights_fit);  // memory alone would hold it
  REQUIRE(volta_fp8.no_engine_runs);
  CHECK_THAT(*volta_fp8.no_engine_runs, Contains("no engine runs these weights on v100-sxm2-16gb"));
  CHECK(gpuplan::engine_start_problem(volta_fp8) == volta_fp8.no_engine_runs);

  const auto turing_fp4 = gpuplan::fit(m, cat().gpu("t4"), s52_request(DType::fp4));
  CHECK_FALSE(turing_fp4.fits);
  CHECK(turing_fp4.no_engine_runs);

  // vLLM runs fp8 as W8A16 (FP8 Marlin) from compute capability 7.5: a T4 runs it.
  const auto turing_fp8 = gpuplan::fit(m, cat().gpu("t4"), s52_request(DType::fp8));
  CHECK(turing_fp8.fits);
  CHECK_FALSE(turing_fp8.no_engine_runs);
  // int8 runs on Volta, fp8 on Hopper.
  CHECK(gpuplan::fit(m, cat().gpu("v100-sxm2-16gb"), s52_request(DType::int8)).fits);
  CHECK(gpuplan::fit(m, cat().gpu("h100-sxm"), s52_request(DType::fp8)).fits);
}

TEST_CASE("s52: TensorRT-LLM does not run before Ampere", "[engine][s52]") {
  CHECK_FALSE(gpuplan::engine_runs_on(Engine::trtllm, cat().gpu("v100-sxm2-16gb")));
  CHECK_FALSE(gpuplan::engine_runs_on(Engine::trtllm, cat().gpu("t4")));
  CHECK(gpuplan::engine_runs_on(Engine::trtllm, cat().gpu("a100-sxm-80gb")));
  CHECK(gpuplan::engine_runs_on(Engine::vllm, cat().gpu("v100-sxm2-16gb")));
  CHECK_THAT(*gpuplan::engine_hardware_refusal(Engine::trtllm, cat().gpu("t4")), Contains("Ampere and later"));
  const auto& m = cat().model("llama-3.1-8b");
  CHECK_THROWS_WITH(gpuplan::fit(m, cat().gpu("v100-sxm2-16gb"), s52_request(DType::bf16, Engine::trtllm)),
                    Contains("engine.name: trtllm does not support v100-sxm2-16gb"));
}

TEST_CASE("s52: a checkpoint's AWQ bits and kernels are the engine's to refuse", "[engine][s52]") {
  const auto awq8 = gpuplan::model_from_hf_config(
      s52_llama_config(R"({"quant_method": "awq", "bits": 8, "group_size": 128, "zero_point": true})"), "awq8.json");
  REQUIRE(awq8.checkpoint_quant);
  CHECK(awq8.checkpoint_quant->method == "awq");
  CHECK(awq8.checkpoint_quant->bits == 8);
  CHECK_THAT(s52_fit_error(awq8, "h100-sxm", Engine::vllm),
             Contains("awq8.json: /quantization_config/bits: vllm refuses AWQ weights of 8 bits") &&
                 Contains("only 4-bit weight quantization is supported for AWQ"));
  CHECK_THAT(s52_fit_error(awq8, "h100-sxm", Engine::sglang), Contains("sglang refuses AWQ weights of 8 bits"));
  CHECK_THAT(s52_fit_error(awq8, "h100-sxm", Engine::trtllm), Contains("trtllm refuses AWQ weights of 8 bits"));

  const auto awq4 = gpuplan::model_from_hf_config(
      s52_llama_config(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true})"), "awq4.json");
  CHECK_THAT(s52_fit_error(awq4, "v100-sxm2-32gb", Engine::vllm), Contains("Minimum capability: 75"));
  CHECK(s52_fit_error(awq4, "t4", Engine::vllm) == "(no error)");
  CHECK(s52_fit_error(awq4, "h100-sxm", Engine::vllm) == "(no error)");
  // GPTQ, the same int4 bytes, runs on Volta.
  const auto gptq = gpuplan::model_from_hf_config(
      s52_llama_config(R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": false})"), "gptq.json");
  CHECK(s52_fit_error(gptq, "v100-sxm2-32gb", Engine::vllm) == "(no error)");
  // With no engine named: vLLM and SGLang refuse AWQ on Volta, TensorRT-LLM does not run there.
  FitRequest neutral;
  neutral.context_tokens = 4096;
  neutral.weight_formats = awq4.shipped_formats;
  const auto awq4_volta = gpuplan::fit(awq4, cat().gpu("v100-sxm2-32gb"), neutral);
  CHECK_FALSE(awq4_volta.fits);
  CHECK(awq4_volta.no_engine_runs);
}

TEST_CASE("s52: ModelOpt W4A8_AWQ needs FP8 tensor cores under TensorRT-LLM", "[engine][s52]") {
  const auto w4a8 = gpuplan::model_from_hf_config(
      s52_llama_config(R"({"quant_method": "modelopt", "quant_algo": "W4A8_AWQ", "group_size": 128})"), "w4a8.json");
  CHECK_THAT(s52_fit_error(w4a8, "a100-sxm-80gb", Engine::trtllm), Contains("trtllm refuses W4A8_AWQ"));
  CHECK(s52_fit_error(w4a8, "h100-sxm", Engine::trtllm) == "(no error)");
  CHECK(s52_fit_error(w4a8, "l40s", Engine::trtllm) == "(no error)");
}

TEST_CASE("s52: bitsandbytes 4-bit types other than nf4 and fp4 are refused", "[hf][s52]") {
  const auto bnb = [](const char* type) {
    return s52_llama_config(std::string(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": )") +
                            type + "}");
  };
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(bnb("\"nf5\""), "c.json"),
                    Contains("c.json: /quantization_config/bnb_4bit_quant_type: expected \"nf4\" or \"fp4\""));
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(bnb("4"), "c.json"), Contains("bnb_4bit_quant_type"));
  CHECK_NOTHROW(gpuplan::model_from_hf_config(bnb("\"fp4\""), "c.json"));
  CHECK_NOTHROW(gpuplan::model_from_hf_config(bnb("\"nf4\""), "c.json"));
}

TEST_CASE("s52: SGLang on AMD cuts its fraction by 0.85 above 8192 tokens and sizes the AITER workspace",
          "[engine][s52]") {
  const auto& m = cat().model("llama-3.1-8b");
  FitRequest r;
  r.engine.engine = Engine::sglang;
  r.engine.mem_fraction_static = 0.8;
  r.context_tokens = 8192;
  const auto short_context = gpuplan::fit(m, cat().gpu("mi300x"), r);
  REQUIRE(short_context.engine);
  CHECK(short_context.engine->share == Approx(0.8));
  CHECK_FALSE(short_context.engine->aiter_share_cut);
  r.context_tokens = 8193;
  const auto long_context = gpuplan::fit(m, cat().gpu("mi300x"), r);
  REQUIRE(long_context.engine);
  CHECK(long_context.engine->share == Approx(0.8 * 0.85));  // the user's fraction too
  CHECK(long_context.engine->aiter_share_cut);
  // The workspace: requests x 32 heads x ceil(8193 / 256) = 33 partitions x (128 x 4 + 8) bytes.
  const double per_request = 32.0 * 33.0 * 520.0;
  CHECK(long_context.engine->aiter_workspace_bytes ==
        Approx(per_request * static_cast<double>(long_context.engine->aiter_workspace_requests)));
  CHECK(long_context.engine->aiter_workspace_requests >= 2048);
  // NVIDIA: no AITER.
  const auto nvidia = gpuplan::fit(m, cat().gpu("h100-sxm"), r);
  REQUIRE(nvidia.engine);
  CHECK(nvidia.engine->share == Approx(0.8));
  CHECK(nvidia.engine->aiter_workspace_bytes < 1.0);
}

TEST_CASE("s52: SGLang's AITER workspace beyond what the pool leaves is a server that does not start",
          "[engine][s52]") {
  // Qwen3-30B-A3B (bf16) on MI355X at 262,144 tokens: requests x 32 heads x 1024 partitions x 520 bytes.
  const auto& m = cat().model("qwen3-30b-a3b-instruct-2507");
  FitRequest r;
  r.engine.engine = Engine::sglang;
  r.context_tokens = 262144;
  const auto f = gpuplan::fit(m, cat().gpu("mi355x"), r);
  REQUIRE(f.engine);
  CHECK(f.engine->aiter_share_cut);
  // bf16 weights leave a pool of about 1.8M tokens: 3535 requests' workspace, 56.10 GiB, fits in
  // the 64.87 GiB left (the FP8 checkpoint's 4096 do not: CLI golden fit-engine-sglang-aiter-mi355x-long).
  CHECK(f.engine->aiter_workspace_requests == 3535);
  CHECK(f.engine->aiter_workspace_bytes / gpuplan::units::kGiB == Approx(56.10).epsilon(0.01));
  CHECK_FALSE(f.engine->aiter_workspace_short());
  // At half the context the partitions halve.
  r.context_tokens = 131072;
  const auto half = gpuplan::fit(m, cat().gpu("mi355x"), r);
  REQUIRE(half.engine);
  CHECK(half.engine->aiter_workspace_bytes <
        0.5 * f.engine->aiter_workspace_bytes * static_cast<double>(half.engine->aiter_workspace_requests) /
                static_cast<double>(f.engine->aiter_workspace_requests) + 1.0);
}
