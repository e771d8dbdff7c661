#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include <gpuplan/units.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/weight_choice.hpp>
#include <gpuplan/weight_format.hpp>

#include "test_support.hpp"

using gpuplan::DType;
using gpuplan::Engine;
using gpuplan::EngineInputs;
using gpuplan::EngineSettings;
using gpuplan::FitRequest;
using gpuplan::Layout;

namespace {
using gpuplan::units::kGiB;
using gpuplan::test::cat;
const EngineInputs kH100{.total_bytes = 79.11 * kGiB, .weights_bytes = 16.0 * kGiB,
                         .kv_bytes_per_token_per_gpu = 131072.0, .block_tokens = 16};
}  // namespace

TEST_CASE("engine: vLLM subtracts weights, the profiling peak, non-torch memory and graphs", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  const auto e = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::vllm});
  CHECK(e.share == Approx(0.92));  // vLLM's default from 0.21 (config/cache.py)
  CHECK(e.share_default);
  CHECK(e.batched_tokens == 8192);  // vllm serve on a GPU of at least 70 GiB
  CHECK(e.max_seqs == 1024);
  CHECK(e.kv_bytes == Approx(0.92 * kH100.total_bytes - kH100.weights_bytes -
                             std::max(e.activation_bytes, e.sampler_bytes) - e.non_torch_bytes - e.cuda_graph_bytes));
  CHECK(e.cuda_graph_bytes > 0);  // current vLLM profiles CUDA graphs
  // Whole blocks of 16 tokens.
  CHECK(e.kv_tokens % 16 == 0);
  CHECK(static_cast<double>(e.kv_tokens) * 131072.0 <= e.kv_bytes);
  CHECK(static_cast<double>(e.kv_tokens + 16) * 131072.0 > e.kv_bytes);
  // Before 0.21 the graphs come out of the memory above the cap.
  const auto v20 = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::vllm, .vllm_minor_version = 20});
  CHECK(v20.cuda_graph_bytes < 1.0);
  CHECK(v20.share == Approx(0.9));
  CHECK(v20.kv_bytes == Approx(0.9 * kH100.total_bytes - kH100.weights_bytes -
                               std::max(v20.activation_bytes, v20.sampler_bytes) - v20.non_torch_bytes));
  // Before 0.19 the sampler's profiling run kept sorted copies of the logits: a larger peak.
  const auto v10 = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::vllm, .vllm_minor_version = 10});
  CHECK(v10.cuda_graph_bytes < 1.0);
  CHECK(v10.sampler_bytes > 2.0 * v20.sampler_bytes);
  // With TP > 1 vLLM's communicators add non-torch memory.
  const auto tp2 = gpuplan::engine_memory(m, Layout{.tp = 2}, kH100, {.engine = Engine::vllm});
  CHECK(tp2.non_torch_bytes > e.non_torch_bytes + 1.5 * kGiB);
  // Pipeline stages alone only send and receive: no all-reduce buffers (0.07 GiB logged at PP 2).
  CHECK(gpuplan::engine_memory(m, Layout{.pp = 2}, kH100, {.engine = Engine::vllm}).non_torch_bytes ==
        Approx(e.non_torch_bytes));
  // Over PCIe the 2.1 GiB (NCCL's NVLink buffers, the symmetric-memory all-reduce) is not there:
  // 0.21 GiB of non-torch memory logged at TP 8 on L40S (vLLM 0.10.2); at TP 2 two RTX PRO 6000
  // Blackwell with P2P (custom all-reduce on) left 1.66 GiB for activation, non-torch and graphs
  // together (vLLM 0.27.1).
  EngineInputs pcie = kH100;
  pcie.tp_outside_nvlink = true;
  const auto pcie_tp8 = gpuplan::engine_memory(m, Layout{.tp = 8}, pcie, {.engine = Engine::vllm});
  CHECK(pcie_tp8.non_torch_bytes == Approx(e.non_torch_bytes));
  CHECK(pcie_tp8.non_torch_bytes < 0.3 * kGiB);
  CHECK(gpuplan::engine_memory(m, Layout{.tp = 2}, pcie, {.engine = Engine::vllm}).non_torch_bytes ==
        Approx(e.non_torch_bytes));
  // (Without peer-to-peer access, GeForce RTX 40, a TP 2 run on two RTX 4090s logged 0.25 GiB too,
  // vllm#13061.)
  CHECK_FALSE(cat().gpu("rtx-4090").host_link.peer_to_peer);
  CHECK(cat().gpu("a10").host_link.peer_to_peer);
  // Smaller GPUs get vLLM's smaller defaults.
  const EngineInputs small{.total_bytes = 22.0 * kGiB, .weights_bytes = 15.0 * kGiB,
                           .kv_bytes_per_token_per_gpu = 131072.0, .block_tokens = 16};
  const auto l4 = gpuplan::engine_memory(m, Layout{}, small, {.engine = Engine::vllm});
  CHECK(l4.batched_tokens == 2048);
  CHECK(l4.max_seqs == 256);
  // So does the A100, whatever its memory: vLLM leaves it out of the large-GPU defaults by name.
  EngineInputs a100 = kH100;
  a100.device_name = "NVIDIA A100 SXM4 80GB";
  const auto on_a100 = gpuplan::engine_memory(m, Layout{}, a100, {.engine = Engine::vllm});
  CHECK(on_a100.batched_tokens == 2048);
  CHECK(on_a100.max_seqs == 256);
  a100.device_name = "NVIDIA H100 SXM5 80GB";
  CHECK(gpuplan::engine_memory(m, Layout{}, a100, {.engine = Engine::vllm}).max_seqs == 1024);
}

// vLLM PR #10511 (0.6.5, V0, Meta-Llama-3-8B at max_model_len 8192): "PyTorch activation peak
// memory 1.26GiB", far from the 4 GiB a 1,024-sequence sampler run would take.
TEST_CASE("engine: vLLM before 0.8 runs V0 with its own step defaults", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  EngineInputs in = kH100;
  in.context_tokens = 8192;
  const auto v0 = gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .vllm_minor_version = 6});
  CHECK(v0.vllm_v0);
  CHECK(v0.max_seqs == 256);           // V0's max_num_seqs, whatever the GPU
  CHECK(v0.batched_tokens == 8192);    // chunked prefill off: max(max_model_len, 2048)
  CHECK(std::max(v0.activation_bytes, v0.sampler_bytes) < 1.3 * kGiB);
  in.context_tokens = 1024;
  CHECK(gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .vllm_minor_version = 7}).batched_tokens ==
        2048);
  // Above 32K chunked prefill is on: 512 tokens a step up to 0.6.4 (a 0.6 without its patch is
  // taken as such), 2048 from 0.6.5 (vllm#10544).
  in.context_tokens = 65536;
  CHECK(gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .vllm_minor_version = 6}).batched_tokens ==
        512);
  // From 0.5.3 (vllm PR #6666): a bare 0.5 is 0.5.0, whose step is the whole max_model_len.
  CHECK(gpuplan::engine_memory(m, Layout{}, in,
                               {.engine = Engine::vllm, .vllm_minor_version = 5, .vllm_patch_version = 4})
            .batched_tokens == 512);
  CHECK(gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .vllm_minor_version = 5}).batched_tokens ==
        65536);
  CHECK(gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .vllm_minor_version = 4}).batched_tokens ==
        65536);
  CHECK(gpuplan::engine_memory(m, Layout{}, in,
                               {.engine = Engine::vllm, .vllm_minor_version = 6, .vllm_patch_version = 5})
            .batched_tokens == 2048);
  CHECK(gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .vllm_minor_version = 7}).batched_tokens ==
        2048);
  // 0.8 is V1: the large-GPU defaults again, and no V0 log lines.
  const auto v8 = gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .vllm_minor_version = 8});
  CHECK_FALSE(v8.vllm_v0);
  CHECK(v8.max_seqs == 1024);
  CHECK(v8.batched_tokens == 8192);
}

// https://github.com/vllm-project/recipes/pull/12 (vLLM 0.10.1, Qwen3-Coder-480B-A35B FP8, DP 8
// + EP on H20): the available KV memory went from 48.66 to 55.65 GiB when
// gpu_memory_utilization went from 0.9 to 0.95, i.e. by 0.05 x a 139.8 GiB total: the share
// multiplies the GPU's total, not the free memory after weights.
TEST_CASE("engine: vLLM's share multiplies the total memory", "[engine]") {
  const auto& m = cat().model("qwen3-30b-a3b");
  const EngineInputs in{.total_bytes = 139.8 * kGiB, .weights_bytes = 60.0 * kGiB,
                        .kv_bytes_per_token_per_gpu = 98304.0, .block_tokens = 16};
  const auto at90 = gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .gpu_memory_utilization = 0.9});
  const auto at95 = gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::vllm, .gpu_memory_utilization = 0.95});
  CHECK((at95.kv_bytes - at90.kv_bytes) / kGiB == Approx(55.65 - 48.66).margin(0.01));
}

TEST_CASE("engine: SGLang's static fraction of the free memory at start, minus weights", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  const auto e = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::sglang, .mem_fraction_static = 0.85});
  CHECK(e.kv_bytes == Approx(0.85 * e.start_free_bytes - kH100.weights_bytes));
  CHECK(e.start_free_bytes < kH100.total_bytes);
  CHECK(gpuplan::engine_default_block_tokens(Engine::sglang) == 1);  // page_size
  // A page size given rounds the pool down to whole pages.
  EngineInputs paged = kH100;
  paged.block_tokens = 64;
  const auto p64 = gpuplan::engine_memory(m, Layout{}, paged, {.engine = Engine::sglang, .mem_fraction_static = 0.85});
  CHECK(p64.block_tokens == 64);
  CHECK(p64.kv_tokens % 64 == 0);
  CHECK(p64.kv_tokens > 0);
  CHECK(e.kv_tokens - p64.kv_tokens < 64);
  CHECK_FALSE(gpuplan::engine_accepts_block_tokens(Engine::vllm, 24));
  CHECK_FALSE(gpuplan::engine_accepts_block_tokens(Engine::trtllm, 0));
  CHECK(gpuplan::engine_accepts_block_tokens(Engine::trtllm, 64));
  CHECK(gpuplan::engine_accepts_block_tokens(Engine::sglang, 24));
  // The default reserves at least 10 GiB on GPUs over 60 GiB, and more with larger TP.
  const auto d1 = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::sglang});
  CHECK((1.0 - d1.share) * kH100.total_bytes >= 10.0 * kGiB * 0.999);
  const auto d8 = gpuplan::engine_memory(m, Layout{.tp = 8}, kH100, {.engine = Engine::sglang});
  CHECK(d8.share < d1.share);
}

// s50 logs S1: memory other processes hold at start comes off the free memory SGLang and
// TensorRT-LLM measure; vLLM counts only its own usage and refuses to start short of its share.
TEST_CASE("engine: memory in use by other processes at start", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  const double in_use = 0.75 * kGiB;
  for (const Engine e : {Engine::sglang, Engine::trtllm}) {
    INFO(gpuplan::to_string(e));
    const auto idle = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = e});
    const auto busy = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = e, .memory_in_use_bytes = in_use});
    CHECK(idle.start_free_bytes - busy.start_free_bytes == Approx(in_use));
    CHECK(idle.kv_bytes - busy.kv_bytes == Approx(busy.share * in_use));
  }
  const auto idle = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::vllm});
  const auto busy = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::vllm, .memory_in_use_bytes = in_use});
  CHECK(busy.kv_bytes == Approx(idle.kv_bytes));
  CHECK_FALSE(busy.in_use_blocks_start);  // 79.11 - 0.75 - 0.5 GiB free >= 0.92 x 79.11
  const auto full = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::vllm, .memory_in_use_bytes = 6.0 * kGiB});
  CHECK(full.in_use_blocks_start);
  CHECK(full.in_use_start_free_bytes == Approx(79.11 * kGiB - 6.5 * kGiB));
}

// SGLang's --max-total-tokens and TensorRT-LLM's kv_cache_config.max_tokens cap the pool: the engine
// takes the smaller of the cap and what its share holds (trtllm-bench passes its dataset's cap).
TEST_CASE("engine: a KV token cap bounds the pool and not the share", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  EngineInputs trt = kH100;
  trt.block_tokens = 32;
  const auto free = gpuplan::engine_memory(m, Layout{}, trt, {.engine = Engine::trtllm});
  REQUIRE(free.kv_tokens > 100000);
  CHECK_FALSE(free.kv_capped);
  // TensorRT-LLM rounds 100,001 tokens up to 3,126 blocks of 32; the pool is then those tokens' bytes.
  const auto capped = gpuplan::engine_memory(m, Layout{}, trt, {.engine = Engine::trtllm, .max_kv_tokens = 100001});
  CHECK(capped.kv_capped);
  CHECK(capped.kv_tokens == 100032);
  CHECK(capped.kv_bytes == Approx(100032 * 131072.0));
  // A cap above what the share holds changes nothing.
  const auto loose = gpuplan::engine_memory(m, Layout{}, trt, {.engine = Engine::trtllm, .max_kv_tokens = 1u << 30});
  CHECK_FALSE(loose.kv_capped);
  CHECK(loose.kv_tokens == free.kv_tokens);
  EngineInputs pages = kH100;
  pages.block_tokens = 1;  // SGLang's default page_size
  const auto sg = gpuplan::engine_memory(m, Layout{}, pages, {.engine = Engine::sglang, .max_kv_tokens = 51201});
  CHECK(sg.kv_tokens == 51201);
}

// server_args.py's earlier defaults (forks' copies dated by version.py): a TP table to 0.4.6, a
// reserve by GPU memory class from 0.4.7 to 0.5.2. SGLang's docs (about 0.4.1) log 444,500 tokens
// for Llama 3.1 8B on one H100 at 0.88; PR #4760 (about 0.4.4) 442,750.
TEST_CASE("engine: SGLang's default fraction by release", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  const auto at = [&](int version, std::uint64_t tp) {
    return gpuplan::engine_memory(m, Layout{.tp = tp}, kH100, {.engine = Engine::sglang, .sglang_version = version})
        .share;
  };
  CHECK(at(205, 1) == Approx(0.90));
  CHECK(at(205, 8) == Approx(0.80));
  CHECK(at(300, 8) == Approx(0.83));
  CHECK(at(401, 1) == Approx(0.88));
  CHECK(at(401, 2) == Approx(0.87));
  CHECK(at(404, 4) == Approx(0.85));
  CHECK(at(406, 8) == Approx(0.81));
  CHECK(at(406, 16) == Approx(0.79));
  // 0.4.7 to 0.5.2: 79.11 GiB less 9.5 + TP / 2 GiB.
  CHECK(at(407, 1) == Approx(std::round((79.11 - 10.0) / 79.11 * 1000.0) / 1000.0));
  CHECK(at(502, 2) == Approx(std::round((79.11 - 10.5) / 79.11 * 1000.0) / 1000.0));
  // From 0.5.3 the formula (at least 10 GiB on this GPU).
  CHECK(at(503, 1) == Approx(gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::sglang}).share));
  CHECK(at(502, 1) == Approx(at(407, 1)));  // 0.5.3rc0 (read as 502) still has the reserve table
  CHECK_THROWS_AS(gpuplan::validate_engine_settings({.engine = Engine::vllm, .sglang_version = 401}),
                  gpuplan::InputError);
}

// A multimodal model's default shrinks with its vision tower (adjust_mem_fraction_for_vlm, from
// 0.5.0): Kimi-K2.5's MoonViT (27 layers of 1152) gives 0.95 x (1 - 0.1 x 0.424) = 0.910, which
// puts a 0.908 default at the 0.826 an MI355X run logged.
TEST_CASE("engine: SGLang scales a multimodal model's default by its vision tower", "[engine]") {
  gpuplan::ModelSpec m = cat().model("llama-3.1-8b");
  const double text_only = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::sglang}).share;
  m.vision = gpuplan::VisionSpec{.hidden_size = 1152, .layers = 27};
  const double factor = 0.95 * (1.0 - 0.1 * (27.0 * 1152.0 * 1152.0 / (24.0 * 1024.0 * 1024.0) - 1.0));
  CHECK(factor == Approx(0.9097).epsilon(1e-3));
  CHECK(gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::sglang}).share == Approx(text_only * factor));
  // A value the user gives is kept from about 0.4.9; before, ModelRunner took 5 % off any value.
  CHECK(gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::sglang, .mem_fraction_static = 0.85}).share ==
        Approx(0.85));
  CHECK(gpuplan::engine_memory(m, Layout{}, kH100,
                               {.engine = Engine::sglang, .mem_fraction_static = 0.85, .sglang_version = 404})
            .share == Approx(0.85 * 0.95));
}

// SGLang reads vision_config's num_hidden_layers and hidden_size, 24 and 1024 when not written,
// whatever sizes the tower: Qwen2.5-VL writes depth 32 and hidden_size 1280 (a 24 x 1280 tower to
// SGLang: x 0.897, where the real 32 layers would give x 0.847; a Qwen2.5-VL-7B log's 0.749 is the
// first); Qwen2-VL's hidden_size is its projector's 3584 (x 0.76, clamped); a vision_config with
// neither key is a ViT-L (x 0.95).
TEST_CASE("engine: SGLang's vision factor reads the two keys SGLang reads", "[engine]") {
  const auto share = [](std::string_view vision_config) {
    const auto m = gpuplan::model_from_hf_config(
        fmt::format(R"({{"model_type": "qwen2_5_vl", "architectures": ["Qwen2_5_VLForConditionalGeneration"],
          "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28,
          "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 128000,
          "vision_config": {}}})",
                    vision_config),
        "config.json");
    return gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::sglang}).share;
  };
  const double plain = share(R"({"model_type": "siglip_vision_model"})");  // no sizes: ViT-L's
  const double vit_l = 0.95;
  CHECK(share(R"({"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "out_hidden_size": 3584})") ==
        Approx(plain / vit_l * 0.95 * (1.0 - 0.1 * (1280.0 * 1280.0 / (1024.0 * 1024.0) - 1.0))));
  CHECK(share(R"({"depth": 32, "embed_dim": 1280, "hidden_size": 3584, "mlp_ratio": 4})") ==
        Approx(plain / vit_l * 0.95 * 0.8));
  CHECK(share(R"({"num_hidden_layers": 27, "hidden_size": 1152, "intermediate_size": 4304})") ==
        Approx(plain / vit_l * 0.95 * (1.0 - 0.1 * (27.0 * 1152.0 * 1152.0 / (24.0 * 1024.0 * 1024.0) - 1.0))));
  // Before about 0.4.9 any multimodal model took 5 % off its TP table's value (0.88 at TP 1).
  const auto m = gpuplan::model_from_hf_config(
      R"({"model_type": "qwen2_5_vl", "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
          "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064,
          "max_position_embeddings": 128000, "vision_config": {"depth": 32, "hidden_size": 1280}})",
      "config.json");
  CHECK(gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::sglang, .sglang_version = 404}).share ==
        Approx(0.88 * 0.95));
}

// SGLang's NSA backend serves DeepSeek-V3.2 with an fp8_e4m3 cache on B200 and bf16 on H200
// (sgl-project/sglang docs/basic_usage/deepseek_v32.md); PR #11309's 8 x B200 log, run without
// --kv-cache-dtype, holds FlashMLA's 656-byte fp8 record a layer. gpuplan took bf16 there, 63 %
// more bytes a token (helper s57 logs N2). DeepSeek-V3 (no indexer) and the other engines keep theirs.
TEST_CASE("engine: SGLang's default KV cache for DeepSeek-V3.2 on Blackwell is fp8", "[engine]") {
  const std::string mla = gpuplan::test::kDeepseekV3ArchitectureFields;
  const auto v32 = gpuplan::model_from_hf_config(
      R"({"model_type": "deepseek_v32", )" + mla + R"(, "index_head_dim": 128, "index_n_heads": 64})", "config.json");
  const auto v3 = gpuplan::model_from_hf_config(R"({"model_type": "deepseek_v3", )" + mla + "}", "config.json");
  const auto formats = gpuplan::choose_weight_formats(v32, {});
  const auto kv = [&](const gpuplan::ModelSpec& m, const char* gpu, Engine e) {
    return gpuplan::engine_default_kv_dtype(m, formats, cat().gpu(gpu), e);
  };
  CHECK(kv(v32, "b200", Engine::sglang) == DType::fp8);
  CHECK(kv(v32, "h200-sxm", Engine::sglang) == DType::bf16);
  CHECK(kv(v3, "b200", Engine::sglang) == DType::bf16);
  CHECK(kv(v32, "b200", Engine::vllm) == DType::bf16);
}

// TensorRT-LLM from 1.2 estimates on a temporary cache that holds one max_seq_len request and a
// CUDA-graph warm-up; its profiling forward and graphs must fit beside it (NVIDIA/TensorRT-LLM PR
// #17470: gpt-oss-120b on one H100 ran out there at a 131K max_seq_len and started at 12,416).
// A warning: the release is not pinned and the PR's own case is not reproduced.
TEST_CASE("engine: TensorRT-LLM's estimation cache leaves room for the profiling run", "[engine]") {
  const auto& m = cat().model("gpt-oss-120b");
  EngineInputs in{.total_bytes = 79.11 * kGiB, .weights_bytes = 70.0 * kGiB, .kv_bytes_per_token_per_gpu = 73728.0,
                  .block_tokens = 32};
  in.context_tokens = 131072;
  const EngineSettings s{.engine = Engine::trtllm, .max_num_seqs = 720};
  const auto long_seq = gpuplan::engine_memory(m, Layout{}, in, s);
  // 4,097 + 127 blocks of 32 tokens at most 0.9 of the 8.4 GiB free: under 1 GiB is left.
  CHECK(long_seq.trtllm_estimation_cache_bytes == Approx(0.9 * (long_seq.start_free_bytes - 70.0 * kGiB)));
  CHECK(long_seq.trtllm_estimation_need_bytes == Approx(long_seq.activation_bytes + long_seq.cuda_graph_bytes));
  CHECK(long_seq.trtllm_estimation_short());
  CHECK_FALSE(long_seq.outside_short());  // a warning, not a start failure
  in.context_tokens = 12416;
  const auto short_seq = gpuplan::engine_memory(m, Layout{}, in, s);
  CHECK(short_seq.trtllm_estimation_cache_bytes == Approx(720.0 * 32 * 73728.0));  // max_batch_size blocks
  CHECK_FALSE(short_seq.trtllm_estimation_short());
  // 1.1 sized it for max_num_tokens alone: no such check.
  in.context_tokens = 131072;
  CHECK_FALSE(gpuplan::engine_memory(m, Layout{}, in, {.engine = Engine::trtllm, .max_num_seqs = 720,
                                                       .trtllm_version = 101})
                  .trtllm_estimation_short());
}

TEST_CASE("engine: TensorRT-LLM's fraction of the memory free after weights and warm-up", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  const auto e = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::trtllm});
  CHECK(e.share == Approx(0.9));
  // The PyTorch backend's estimation captures its CUDA graphs before it reads the peak.
  CHECK(e.cuda_graph_bytes > 0.0);
  CHECK(e.kv_bytes ==
        Approx(0.9 * (e.start_free_bytes - kH100.weights_bytes - e.activation_bytes - e.cuda_graph_bytes)));
  // Nothing free: no KV cache, and the deficit shows.
  const EngineInputs full{.total_bytes = 20.0 * kGiB, .weights_bytes = 30.0 * kGiB,
                          .kv_bytes_per_token_per_gpu = 131072.0, .block_tokens = 16};
  const auto none = gpuplan::engine_memory(m, Layout{}, full, {.engine = Engine::trtllm});
  CHECK(none.kv_bytes < 0);
  CHECK(none.kv_tokens == 0);
}

TEST_CASE("engine: more batched tokens, more activation memory, and TP splits it", "[engine]") {
  const auto& m = cat().model("llama-3.1-70b");
  const double a1 = gpuplan::forward_activation_bytes(m, Layout{}, 2048);
  const double a2 = gpuplan::forward_activation_bytes(m, Layout{}, 8192);
  CHECK(a2 == Approx(4.0 * a1));
  CHECK(gpuplan::forward_activation_bytes(m, Layout{.tp = 4}, 8192) < a2);
  // MoE: the top-k experts' intermediates, not all experts'.
  const auto& moe = cat().model("qwen3-30b-a3b");
  CHECK(gpuplan::forward_activation_bytes(moe, Layout{}, 1) < 16.0 * 1024 * 1024);
}

TEST_CASE("engine: settings are checked against the engine named", "[engine]") {
  CHECK(gpuplan::parse_engine("vLLM") == Engine::vllm);
  CHECK(gpuplan::parse_engine("tensorrt-llm") == Engine::trtllm);
  CHECK_THROWS_WITH(gpuplan::parse_engine("sgl"), Catch::Contains("engine.name") && Catch::Contains("sglang"));
  using gpuplan::validate_engine_settings;
  CHECK_THROWS_WITH(validate_engine_settings({.engine = Engine::vllm, .mem_fraction_static = 0.8}),
                    Catch::Contains("engine.mem_fraction_static") && Catch::Contains("sglang"));
  CHECK_THROWS_WITH(validate_engine_settings({.engine = Engine::sglang, .gpu_memory_utilization = 0.8}),
                    Catch::Contains("engine.gpu_memory_utilization"));
  CHECK_THROWS_WITH(validate_engine_settings({.engine = Engine::trtllm,
                                              .kv_cache_free_gpu_mem_fraction = std::nan("")}),
                    Catch::Contains("engine.kv_cache_free_gpu_mem_fraction"));
  CHECK_THROWS_AS(validate_engine_settings({.engine = Engine::trtllm, .kv_cache_free_gpu_mem_fraction = 0.0}),
                  gpuplan::InputError);
  CHECK_THROWS_AS(validate_engine_settings({.engine = Engine::neutral, .max_num_seqs = 4}), gpuplan::InputError);
  CHECK_THROWS_AS(validate_engine_settings({.engine = Engine::sglang, .vllm_minor_version = 10}), gpuplan::InputError);
  CHECK_THROWS_AS(gpuplan::engine_memory(cat().model("llama-3.1-8b"), Layout{},
                                         {.total_bytes = std::numeric_limits<double>::infinity()},
                                         {.engine = Engine::vllm}),
                  gpuplan::InputError);
}

TEST_CASE("engine: fit with an engine uses the engine's KV figure", "[engine][memory]") {
  const auto& m = cat().model("llama-3.1-8b");
  const auto& g = cat().gpu("h100-sxm");
  FitRequest req{.context_tokens = 8192, .concurrency = 4};
  req.engine.engine = Engine::vllm;
  const auto r = gpuplan::fit(m, g, req);
  REQUIRE(r.engine);
  CHECK(r.per_gpu.kv_budget_bytes == Approx(r.engine->kv_bytes));
  CHECK(r.engine->total_bytes == Approx(*g.cuda_memory_bytes));  // what CUDA reports, not nvidia-smi
  CHECK(r.fits);
  // The neutral default stays as it was.
  const auto neutral = gpuplan::fit(m, g, FitRequest{.context_tokens = 8192, .concurrency = 4});
  CHECK_FALSE(neutral.engine);
  CHECK(neutral.per_gpu.engine_cap_bytes == Approx(0.9 * 81559.0 * 1048576.0));
  // A model that leaves no room: the engine would not start, and fit says it does not fit.
  FitRequest big{.context_tokens = 8192};
  big.engine.engine = Engine::vllm;
  const auto r70 = gpuplan::fit(cat().model("llama-3.1-70b"), g, big);
  CHECK_FALSE(r70.fits);
  CHECK_FALSE(r70.weights_fit);
  CHECK(r70.engine->kv_bytes < 0);
  CHECK(r70.per_gpu.kv_budget_bytes < 1.0);
}

// SGLang keeps a hybrid model's linear-attention state in a pool of its own: 0.9 of the token
// pool's size (mamba_full_memory_ratio), one request's state with its SSM part in fp32
// (SGLANG_MAMBA_SSM_DTYPE), three slots per running request with the radix cache on. Qwen3-Next
// at TP 2: 36 linear layers x (32 x 128 x 128 x 4 + (2 x 16 x 128 + 32 x 128) x 3 x 2) / 2 =
// 38,633,472 bytes a request. A Nemotron-H log shows the split: ssm 24.84 + conv 0.44 GB beside
// K and V of 14.05 each.
TEST_CASE("engine: SGLang splits a hybrid model's memory into a state pool and a token pool", "[engine]") {
  const auto& m = cat().model("qwen3-next-80b-a3b");
  FitRequest r{.context_tokens = 8192, .concurrency = 1};
  r.layout = Layout{.tp = 2};
  r.engine.engine = Engine::sglang;
  const auto f = gpuplan::fit(m, cat().gpu("h200-sxm"), r);
  REQUIRE(f.engine);
  const auto& e = *f.engine;
  CHECK(e.state_slot_bytes == Approx(38633472.0));
  CHECK(e.state_pool_bytes / e.kv_bytes == Approx(0.9).epsilon(0.01));
  CHECK(e.state_slots == static_cast<std::uint64_t>(e.state_pool_bytes / e.state_slot_bytes + 0.5));
  CHECK(e.state_requests == e.state_slots / 3);
  REQUIRE(f.max_concurrent_sequences);
  CHECK(*f.max_concurrent_sequences <= e.state_requests);
  CHECK(f.fits);
  // More running requests than the pool admits do not fit at once.
  r.concurrency = e.state_requests + 1;
  CHECK_FALSE(gpuplan::fit(m, cat().gpu("h200-sxm"), r).fits);
  // The longest context at 200 sequences is the token pool's alone: the state is in its own pool.
  r.concurrency = 200;
  const auto at_200 = gpuplan::fit(m, cat().gpu("h200-sxm"), r);
  REQUIRE(at_200.max_context_tokens);
  const double tokens_per_sequence = at_200.engine->kv_bytes / 200.0 / at_200.kv_bytes_per_token_per_gpu;
  CHECK(static_cast<double>(*at_200.max_context_tokens) == Approx(tokens_per_sequence).epsilon(0.01));
  // vLLM keeps the state in its KV blocks: no separate pool. From 0.25 its align mode holds two
  // state pages a request, so fit's sequences agree with its logged concurrency (422 with one).
  r.concurrency = 1;
  r.engine.engine = Engine::vllm;
  const auto vllm = gpuplan::fit(m, cat().gpu("h200-sxm"), r);
  CHECK_FALSE(vllm.engine->state_pool_bytes > 0.0);
  REQUIRE(vllm.max_concurrent_sequences);
  CHECK(static_cast<double>(*vllm.max_concurrent_sequences) == Approx(vllm.engine->max_concurrency).epsilon(0.01));
  r.engine.vllm_minor_version = 24;
  const auto v24 = gpuplan::fit(m, cat().gpu("h200-sxm"), r);
  CHECK(static_cast<double>(*v24.max_concurrent_sequences) == Approx(v24.engine->max_concurrency).epsilon(0.01));
  CHECK(*v24.max_concurrent_sequences > *vllm.max_concurrent_sequences);
}

// On memory the host shares (GB10) CUDA's free memory is the host's: TensorRT-LLM and SGLang
// start from what is free at boot (the OS holds the rest) and count the page cache of the
// checkpoint they just read as used: half the checkpoint, as a DGX Spark log's cache held, up to
// what is left (audit s46 logs F1).
TEST_CASE("engine: on unified memory TensorRT-LLM and SGLang count the OS and the page cache", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  const EngineInputs gb10{.total_bytes = 119.7 * kGiB, .weights_bytes = 15.0 * kGiB,
                          .kv_bytes_per_token_per_gpu = 131072.0, .block_tokens = 32, .unified_memory = true,
                          .free_at_start_bytes = 101.3 * kGiB};
  const auto t = gpuplan::engine_memory(m, Layout{}, gb10, {.engine = Engine::trtllm});
  // Free at boot has the CUDA context up; the workspaces come out of it.
  CHECK(t.start_free_bytes == Approx(101.3 * kGiB - 0.25 * kGiB));
  CHECK(t.page_cache_bytes == Approx(7.5 * kGiB));
  CHECK(t.kv_bytes == Approx(0.9 * (t.start_free_bytes - 22.5 * kGiB - t.activation_bytes - t.cuda_graph_bytes)));
  CHECK(t.kv_bytes_without_page_cache ==
        Approx(0.9 * (t.start_free_bytes - 15.0 * kGiB - t.activation_bytes - t.cuda_graph_bytes)));
  const auto s = gpuplan::engine_memory(m, Layout{}, gb10, {.engine = Engine::sglang});
  CHECK(s.page_cache_bytes == Approx(7.5 * kGiB));
  CHECK(s.kv_bytes == Approx(s.share * s.start_free_bytes - 22.5 * kGiB));
  CHECK(s.kv_bytes_without_page_cache == Approx(s.kv_bytes + 7.5 * kGiB));
  // vLLM sizes from its share of the total: no page-cache term.
  CHECK_FALSE(gpuplan::engine_memory(m, Layout{}, gb10, {.engine = Engine::vllm}).page_cache_bytes > 0.0);
  // A discrete GPU of the same size: neither term.
  EngineInputs discrete = gb10;
  discrete.unified_memory = false;
  discrete.free_at_start_bytes.reset();
  const auto d = gpuplan::engine_memory(m, Layout{}, discrete, {.engine = Engine::trtllm});
  CHECK_FALSE(d.page_cache_bytes > 0.0);
  CHECK(d.start_free_bytes == Approx(119.7 * kGiB - 0.75 * kGiB));
  // Weights larger than what the cache could leave: the page cache takes all that is left, no less.
  EngineInputs big = gb10;
  big.weights_bytes = 70.0 * kGiB;
  const auto b = gpuplan::engine_memory(m, Layout{}, big, {.engine = Engine::trtllm});
  CHECK(b.page_cache_bytes == Approx(b.start_free_bytes - 70.0 * kGiB - b.activation_bytes - b.cuda_graph_bytes));
  CHECK(b.kv_bytes == Approx(0.0).margin(1.0));
  CHECK(b.kv_bytes_without_page_cache > 20.0 * kGiB);
}

// vLLM from 0.19: FlashInfer's sampler peaks at 16 bytes a logit, the PyTorch-native one at 28.7
// (audit s46 logs F2); before, both are charged the 38.5 measured on 0.11.
TEST_CASE("engine: vLLM's sampler peak follows the sampler from 0.19", "[engine]") {
  using gpuplan::VllmSampler;
  const auto& m = cat().model("qwen2.5-7b");
  const EngineInputs small{.total_bytes = 15.99 * kGiB, .weights_bytes = 5.29 * kGiB,
                           .kv_bytes_per_token_per_gpu = 57344.0, .block_tokens = 16};
  const double logits = 256.0 * static_cast<double>(m.vocab_size);
  EngineSettings s{.engine = Engine::vllm, .vllm_minor_version = 26};
  const auto flashinfer = gpuplan::engine_memory(m, Layout{}, small, s);
  CHECK(flashinfer.sampler == VllmSampler::flashinfer);  // the default on an NVIDIA GPU
  CHECK(flashinfer.sampler_bytes == Approx(logits * 16.0));
  s.vllm_sampler = VllmSampler::native;
  const auto native = gpuplan::engine_memory(m, Layout{}, small, s);
  CHECK(native.sampler_bytes == Approx(logits * 28.7));
  CHECK(native.kv_bytes < flashinfer.kv_bytes);
  // Without FlashInfer (ROCm) native is the default.
  EngineInputs rocm = small;
  rocm.flashinfer_sampler = false;
  const auto amd = gpuplan::engine_memory(m, Layout{}, rocm, {.engine = Engine::vllm, .vllm_minor_version = 26});
  CHECK(amd.sampler == VllmSampler::native);
  CHECK(amd.sampler_bytes == Approx(native.sampler_bytes));
  // Before 0.19 either sampler is charged 38.5.
  s.vllm_minor_version = 11;
  CHECK(gpuplan::engine_memory(m, Layout{}, small, s).sampler_bytes == Approx(logits * 38.5));
  // A vLLM setting only.
  CHECK_THROWS_WITH(gpuplan::validate_engine_settings({.engine = Engine::sglang, .vllm_sampler = VllmSampler::native}),
                    Catch::Contains("engine.vllm_sampler") && Catch::Contains("--engine vllm"));
}

// An engine that would not load the weights on the GPU is no fit (s48: fit --engine vllm said
// FITS for FP8 on a V100 beside its own note that engines refuse it); the neutral estimate still
// answers, with the note.
TEST_CASE("engine: FP8 and FP4 weights an engine refuses on the GPU are refused", "[engine][memory]") {
  const auto& m = cat().model("llama-3.1-8b");
  const auto fit_with = [&](const char* gpu, DType weights, Engine engine) {
    FitRequest req{.context_tokens = 8192, .concurrency = 1};
    req.weights_dtype = weights;
    req.engine.engine = engine;
    return gpuplan::fit(m, cat().gpu(gpu), req);
  };
  // TensorRT-LLM runs on Ampere and later only: refused on Volta and Turing whatever the weights.
  for (const char* old_gpu : {"v100-sxm2-32gb", "t4"}) {
    CHECK_THROWS_WITH(fit_with(old_gpu, DType::int4, Engine::trtllm),
                      Catch::Contains("trtllm does not support") && Catch::Contains("Ampere and later"));
  }
  CHECK_NOTHROW(fit_with("h100-sxm", DType::fp8, Engine::trtllm));
  for (const Engine e : {Engine::vllm, Engine::sglang}) {
    INFO(gpuplan::to_string(e));
    CHECK_THROWS_WITH(fit_with("v100-sxm2-32gb", DType::fp8, e),
                      Catch::StartsWith("fit.weights_dtype: ") &&
                          Catch::Contains("refuses fp8 weights on v100-sxm2-32gb: it has no fp8 tensor cores"));
    CHECK_THROWS_WITH(fit_with("t4", DType::fp4, e), Catch::Contains("refuses fp4 weights on t4"));
    CHECK_THROWS_WITH(fit_with("t4", DType::mxfp4, e), Catch::Contains("refuses mxfp4 weights on t4"));
    CHECK_NOTHROW(fit_with("h100-sxm", DType::fp8, e));
    CHECK_NOTHROW(fit_with("v100-sxm2-32gb", DType::int4, e));
  }
  // Weight-only FP8 (Marlin) on Ampere, and on Turing in recent vLLM releases; TensorRT-LLM has none.
  CHECK_NOTHROW(fit_with("a100-sxm-80gb", DType::fp8, Engine::vllm));
  CHECK_NOTHROW(fit_with("t4", DType::fp8, Engine::vllm));
  CHECK_THROWS_WITH(fit_with("a100-sxm-80gb", DType::fp8, Engine::trtllm),
                    Catch::Contains("trtllm refuses fp8 weights on a100-sxm-80gb"));
  // The engine-neutral estimate answers, and its note says engines refuse them there.
  const auto neutral = fit_with("v100-sxm2-32gb", DType::fp8, Engine::neutral);
  CHECK(std::any_of(neutral.notes.begin(), neutral.notes.end(),
                    [](const std::string& n) { return n.find("engines refuse them there") != std::string::npos; }));
}

// s50 logs finding 1: trtllm-build lowers max_num_tokens to max_seq_len x max_batch_size
// (check_max_num_tokens), so a small engine's activation profile is small (a Qwen2.5-7B engine at
// max_seq_len 512, max_batch_size 1 logged 91 MB of activations, not 8,192 tokens' worth).
TEST_CASE("engine: TensorRT-LLM's engine flow caps max_num_tokens at max_seq_len x max_batch_size", "[engine]") {
  const auto& m = cat().model("qwen2.5-7b");
  EngineInputs small = kH100;
  small.context_tokens = 512;
  const EngineSettings one{.engine = Engine::trtllm, .max_num_seqs = 1, .trtllm_version = 19};
  const auto flow = gpuplan::engine_memory(m, Layout{}, small, one);
  CHECK(flow.batched_tokens == 512);
  CHECK(flow.activation_bytes == Approx(gpuplan::forward_activation_bytes(m, Layout{}, 512)));
  EngineSettings pytorch = one;
  pytorch.trtllm_version = 100;  // the PyTorch flow keeps max_num_tokens
  CHECK(gpuplan::engine_memory(m, Layout{}, small, pytorch).batched_tokens == 8192);
  EngineSettings wide = one;
  wide.max_num_seqs = 64;  // 64 x 512 > 8192: the setting stands
  CHECK(gpuplan::engine_memory(m, Layout{}, small, wide).batched_tokens == 8192);
}

// s50 logs finding 8: the engine-flow buffer note gave "0.1 to 0.1 GiB" when the range collapses.
TEST_CASE("engine: the engine-flow buffer note prints one figure when its range collapses", "[engine][memory]") {
  FitRequest req{.context_tokens = 2048, .concurrency = 1};
  req.weights_dtype = DType::fp16;
  req.kv_dtype = DType::fp16;
  req.engine = {.engine = Engine::trtllm, .kv_cache_free_gpu_mem_fraction = 0.45, .max_num_seqs = 64,
                .trtllm_version = 14};
  const auto f = gpuplan::fit(cat().model("qwen2.5-7b"), cat().gpu("l4"), req);
  // Since session 59 the buffers are subtracted (7.3 logits buffers) and the note gives the range
  // of the logs around that figure, one figure each way.
  const auto note = std::find_if(f.notes.begin(), f.notes.end(), [](const std::string& n) {
    return n.find("is subtracted before free memory") != std::string::npos;
  });
  REQUIRE(note != f.notes.end());
  CHECK_THAT(*note, Catch::Contains("the KV cache may be 0.1 GiB smaller or 0.0 GiB larger") &&
                        !Catch::Contains("0.1 to 0.1"));
  req.engine.max_num_seqs = 2048;  // a wide range
  const auto wide = gpuplan::fit(cat().model("qwen2.5-7b"), cat().gpu("l4"), req);
  CHECK(std::any_of(wide.notes.begin(), wide.notes.end(),
                    [](const std::string& n) { return n.find("GiB smaller or") != std::string::npos; }));
}

// From 0.21: the largest captured batch's activations (min(2 x max_num_seqs, 512,
// max_num_batched_tokens) tokens) and 2 MiB a layer of the stage.
TEST_CASE("engine: vLLM's CUDA-graph term follows the largest captured batch and the stage's layers", "[engine]") {
  const auto& m = cat().model("qwen2.5-7b");  // 28 layers
  const EngineInputs rtx4080{.total_bytes = 15.99 * kGiB, .weights_bytes = 5.2 * kGiB,
                             .kv_bytes_per_token_per_gpu = 57344.0, .block_tokens = 16};
  const double per_layer = 2.0 * 1048576.0;
  const auto e = gpuplan::engine_memory(m, Layout{}, rtx4080, {.engine = Engine::vllm, .vllm_minor_version = 26});
  REQUIRE(e.max_seqs == 256);
  CHECK(e.cuda_graph_bytes == Approx(gpuplan::forward_activation_bytes(m, Layout{}, 512) + 28.0 * per_layer));
  const auto few = gpuplan::engine_memory(m, Layout{}, rtx4080,
                                          {.engine = Engine::vllm, .max_num_seqs = 4, .vllm_minor_version = 26});
  CHECK(few.cuda_graph_bytes == Approx(gpuplan::forward_activation_bytes(m, Layout{}, 8) + 28.0 * per_layer));
  const auto stage = gpuplan::engine_memory(m, Layout{.pp = 2}, rtx4080, {.engine = Engine::vllm, .vllm_minor_version = 26});
  CHECK(stage.cuda_graph_bytes == Approx(gpuplan::forward_activation_bytes(m, Layout{}, 512) + 14.0 * per_layer));
}

TEST_CASE("engine: vLLM splits layers over pipeline stages as get_pp_indices does", "[engine]") {
  using V = std::vector<std::uint64_t>;
  CHECK(gpuplan::vllm_pp_layers(27, 2) == V{14, 13});  // DeepSeek-V2-Lite: the first stage holds one more
  CHECK(gpuplan::vllm_pp_layers(32, 4) == V{8, 8, 8, 8});
  CHECK(gpuplan::vllm_pp_layers(30, 4) == V{7, 8, 8, 7});  // the remainder to the middle stages
  CHECK(gpuplan::vllm_pp_layers(31, 4) == V{8, 8, 8, 7});
  CHECK(gpuplan::vllm_pp_layers(28, 1) == V{28});
}

// Each vLLM worker sizes its own cache and the engine keeps the fewest blocks: the sampler's peak
// is the last stage's only, the embedding the first's, and a stage with fewer layers fits more
// tokens in the same bytes. A DeepSeek-V2-Lite log at TP 2 x PP 2 on L4s: 12.13 GiB on the first
// stage (14 layers), 11.33 on the last (vllm#20665).
TEST_CASE("engine: vLLM with pipeline stages takes the binding stage's own budget", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");  // 32 layers: 16 a stage
  EngineInputs in = kH100;
  in.pp_stages = {{.weights_bytes = 8.0 * kGiB, .layers = 16}, {.weights_bytes = 8.0 * kGiB, .layers = 16}};
  const EngineSettings s{.engine = Engine::vllm, .max_num_seqs = 1024, .vllm_minor_version = 20};
  const auto e = gpuplan::engine_memory(m, Layout{.pp = 2}, in, s);
  REQUIRE(e.stage_kv_bytes.size() == 2);
  // Same weights and layers: the last stage, which also samples, binds.
  CHECK(e.binding_stage == 1);
  CHECK(e.stage_kv_bytes[0] - e.stage_kv_bytes[1] ==
        Approx(std::max(e.activation_bytes, e.sampler_bytes) - e.activation_bytes));
  CHECK(e.kv_bytes == Approx(e.stage_kv_bytes[1]));
  // A heavier first stage binds instead, and the sampler is not charged to it.
  in.pp_stages[0].weights_bytes = 14.0 * kGiB;
  const auto heavy = gpuplan::engine_memory(m, Layout{.pp = 2}, in, s);
  CHECK(heavy.binding_stage == 0);
  CHECK(heavy.sampler_bytes < 1.0);
  CHECK(heavy.kv_bytes == Approx(heavy.stage_kv_bytes[0]));
  // A stage of fewer layers holds more tokens a byte: its budget counts over the busiest stage's layers.
  in.pp_stages = {{.weights_bytes = 8.0 * kGiB, .layers = 16}, {.weights_bytes = 8.0 * kGiB, .layers = 8}};
  const auto short_last = gpuplan::engine_memory(m, Layout{.pp = 2}, in, s);
  CHECK(short_last.binding_stage == 0);
  CHECK(short_last.kv_bytes == Approx(short_last.stage_kv_bytes[0]));
  // Without stages the single budget stands.
  CHECK(gpuplan::engine_memory(m, Layout{.pp = 2}, kH100, s).stage_kv_bytes.empty());
}

TEST_CASE("engine: TensorRT-LLM's engine flow sizes its max_batch_size logits buffer", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  const auto pytorch = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::trtllm});
  CHECK(pytorch.trtllm_logits_buffer_bytes < 1.0);
  const auto flow = gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::trtllm, .trtllm_version = 19});
  CHECK(flow.trtllm_logits_buffer_bytes == Approx(2048.0 * 128256.0 * 4.0));
  // Subtracted at 7.3 logits buffers since session 59 (the PyTorch backend's CUDA graphs are its own term).
  CHECK(flow.trtllm_runtime_buffer_bytes == Approx(7.3 * flow.trtllm_logits_buffer_bytes));
  CHECK(flow.kv_bytes ==
        Approx(pytorch.kv_bytes + 0.9 * pytorch.cuda_graph_bytes - 0.9 * flow.trtllm_runtime_buffer_bytes));
  CHECK(gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::trtllm, .trtllm_version = 100})
            .trtllm_logits_buffer_bytes < 1.0);
  CHECK_THROWS_WITH(gpuplan::engine_memory(m, Layout{}, kH100, {.engine = Engine::vllm, .trtllm_version = 19}),
                    Catch::Contains("engine.trtllm_version"));
}

// s50 W1: TensorRT-LLM's hardware matrix gives NVFP4 and MXFP4 on Blackwell only, gpt-oss's MXFP4
// experts also on Hopper (its W4A16 MoE), and it has no bitsandbytes recipe at all.
TEST_CASE("engine: TensorRT-LLM refuses FP4 before Blackwell and nf4 everywhere", "[engine]") {
  using gpuplan::engine_weights_refusal;
  using gpuplan::parse_weight_format;
  const auto refused = [](const char* gpu, const char* format, bool experts) {
    return engine_weights_refusal(Engine::trtllm, cat().gpu(gpu), parse_weight_format(format, "t"), experts);
  };
  for (const char* gpu : {"h100-sxm", "h200-sxm", "l40s", "a100-sxm-80gb", "a10g"}) {
    INFO(gpu);
    const auto fp4 = refused(gpu, "fp4", false);
    REQUIRE(fp4);
    CHECK_THAT(*fp4, Catch::Contains("trtllm refuses fp4 (NVFP4) weights") && Catch::Contains("Blackwell"));
    CHECK(refused(gpu, "mxfp4", false));
    CHECK(refused(gpu, "nf4", false));
    CHECK(refused(gpu, "nf4-dq", false));
  }
  CHECK_FALSE(refused("b200", "fp4", false));
  CHECK_FALSE(refused("b200", "mxfp4", false));
  CHECK(refused("b200", "nf4", false));
  // MXFP4 experts: Hopper and Blackwell, not Ada or Ampere.
  CHECK_FALSE(refused("h100-sxm", "mxfp4", true));
  CHECK_FALSE(refused("h200-sxm", "mxfp4", true));
  CHECK(refused("l40s", "mxfp4", true));
  CHECK(refused("a100-sxm-80gb", "mxfp4", true));
  // What runs instead: FP8 where there are FP8 tensor cores, INT4 everywhere.
  CHECK_THAT(*refused("h100-sxm", "fp4", false), Catch::Contains("fp8 or int4"));
  CHECK_THAT(*refused("a100-sxm-80gb", "fp4", false), Catch::Contains("int4 weights") && !Catch::Contains("fp8"));
  CHECK_THAT(*refused("h100-sxm", "nf4", false), Catch::Contains("bitsandbytes") && Catch::Contains("int4"));
  // Plain int4 (AWQ/GPTQ) is not bitsandbytes; vLLM's ROCm build lists bitsandbytes.
  CHECK_FALSE(refused("a100-sxm-80gb", "int4", false));
  CHECK_FALSE(engine_weights_refusal(Engine::vllm, cat().gpu("mi300x"), parse_weight_format("nf4", "t"), false));
  CHECK_FALSE(engine_weights_refusal(Engine::vllm, cat().gpu("h100-sxm"), parse_weight_format("nf4", "t"), false));
}

// Helper s59 tasks F1: vLLM's CUTLASS int8 scaled-mm is not built for Blackwell ("Int8 not
// supported on SM1xx. Use FP8 quantization instead", vllm PR #25935; the Triton fallback is
// unreachable there, issue #54311, fix PR #54316 open), yet W8A8 int8 on B200 was sized, timed at
// its int8 peak and launched. Weight-only int8 (W8A16, Marlin) and the other GPUs are unaffected.
TEST_CASE("engine: vLLM refuses W8A8 int8 weights on Blackwell", "[engine]") {
  using gpuplan::engine_weights_refusal;
  using gpuplan::parse_weight_format;
  for (const char* gpu : {"b200", "gb200", "b300", "rtx-5090", "rtx-pro-6000-server", "gb10"}) {
    INFO(gpu);
    const auto why = engine_weights_refusal(Engine::vllm, cat().gpu(gpu), DType::int8);
    REQUIRE(why);
    CHECK_THAT(*why, Catch::Contains("vllm refuses int8 (W8A8)") && Catch::Contains("#25935"));
    CHECK_FALSE(engine_weights_refusal(Engine::vllm, cat().gpu(gpu), parse_weight_format("w8a16", "t"), false));
  }
  for (const char* gpu : {"h100-sxm", "a100-sxm-80gb", "l40s", "mi355x"}) {
    INFO(gpu);
    CHECK_FALSE(engine_weights_refusal(Engine::vllm, cat().gpu(gpu), DType::int8));
  }
  CHECK_FALSE(engine_weights_refusal(Engine::sglang, cat().gpu("b200"), DType::int8));
  CHECK_FALSE(engine_weights_refusal(Engine::neutral, cat().gpu("b200"), DType::int8));
  // fit with --engine vllm refuses the flag that asked for them.
  FitRequest req{.weights_dtype = DType::int8, .context_tokens = 8192};
  req.engine = EngineSettings{.engine = Engine::vllm};
  CHECK_THROWS_WITH(gpuplan::fit(cat().model("llama-3.1-8b"), cat().gpu("b200"), req),
                    Catch::Contains("fit.weights_dtype:") && Catch::Contains("int8 (W8A8)"));
}
