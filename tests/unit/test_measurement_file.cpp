#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <gpuplan/calibration.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/measurement_file.hpp>

#include "test_support.hpp"

using gpuplan::DType;

namespace {
using gpuplan::test::cat;
using gpuplan::test::fixture;

std::string row(const std::string& fields) {
  return R"({"measured": [{"kind": "throughput", "engine": "TensorRT-LLM", "isl": 128, "osl": 2048, )" + fields + "}]}";
}
}  // namespace

TEST_CASE("measurement file: the reference rows read as the shipped benchmarks", "[measurement]") {
  // data/benchmarks.json's TensorRT-LLM rows were converted from these by hand: reading the
  // reference file as it stands must give the same models, GPUs, layouts, formats and figures.
  const std::string path = fixture("reference-throughput.json");
  const auto file = gpuplan::read_measurement_file(cat(), gpuplan::limits::read_text_file(path, "test"), path);
  REQUIRE(file.benchmarks.size() == 90);
  for (const gpuplan::Benchmark& b : file.benchmarks) {
    INFO(b.id);
    const auto& shipped = cat().benchmarks();
    const auto same = std::find_if(shipped.begin(), shipped.end(), [&b](const gpuplan::Benchmark& s) {
      return s.model == b.model && s.gpu == b.gpu && s.weights_dtype == b.weights_dtype &&
             s.input_tokens == b.input_tokens && s.output_tokens == b.output_tokens &&
             s.output_tokens_per_s == Approx(b.output_tokens_per_s);
    });
    REQUIRE(same != shipped.end());
    CHECK(same->kv_dtype == b.kv_dtype);
    CHECK(same->layout.tp == b.layout.tp);
    CHECK(same->layout.pp == b.layout.pp);
    CHECK(same->layout.ep == b.layout.ep);
    CHECK(same->layout.dp == b.layout.dp);
    CHECK(same->max_batch == b.max_batch);
    CHECK(same->requests == b.requests);  // the shipped rows state the perf overview's dataset
    CHECK(b.calibrate);
  }
}

TEST_CASE("measurement file: names, layouts and formats as sources write them", "[measurement]") {
  const auto file = gpuplan::read_measurement_file(
      cat(),
      row(R"("model": "Qwen3-235B-A22B", "gpu": "RTX 6000 Pro Blackwell Server Edition", "parallelism": "TP2,PP4",
             "num_gpus": 8, "precision": "NVFP4", "concurrency": 64, "output_tokens_per_s": 12494)"),
      "m.json");
  REQUIRE(file.benchmarks.size() == 1);
  const gpuplan::Benchmark& b = file.benchmarks.front();
  CHECK(b.model == "qwen3-235b-a22b");
  CHECK(b.gpu == "rtx-pro-6000-server");
  CHECK(b.layout.tp == 2);
  CHECK(b.layout.pp == 4);
  CHECK(b.layout.dp == 1);
  CHECK(b.layout.ep == 2);  // TensorRT-LLM v1.0 and later without EP: experts over the TP group
  CHECK(b.weights_dtype == DType::fp4);
  CHECK(b.kv_dtype == DType::fp8);
  CHECK(b.max_batch == 64);  // a fixed concurrency is the batch
  CHECK(std::any_of(file.notes.begin(), file.notes.end(),
                    [](const std::string& n) { return n.find("rtx-pro-6000-server") != std::string::npos; }));

  const auto vllm = gpuplan::read_measurement_file(
      cat(),
      R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.11", "model": "llama-3.1-8b", "gpu": "L40S",
          "parallelism": "TP1", "precision": "BF16", "isl": 1000, "osl": 1000, "output_tokens_per_s": 2000},
         {"kind": "throughput", "engine": "vLLM 0.11", "model": "llama-3.1-8b", "gpu": "H100", "parallelism": "DP2",
          "precision": "BF16", "isl": 1000, "osl": 1000, "output_tokens_per_s": 4000}]})",
      "v.json");
  REQUIRE(vllm.benchmarks.size() == 2);
  CHECK(vllm.benchmarks[0].kv_dtype == DType::bf16);
  CHECK(vllm.benchmarks[0].max_batch == 256);   // vLLM's max_num_seqs below 70 GiB
  CHECK(vllm.benchmarks[1].max_batch == 1024);  // and above
  CHECK(vllm.benchmarks[1].layout.dp == 2);
}

TEST_CASE("measurement file: a MoE row that states no EP takes its engine's default", "[measurement]") {
  const auto ep_of = [](const std::string& engine, const std::string& parallelism) {
    const std::string text = R"({"measured": [{"kind": "throughput", "engine": ")" + engine +
                             R"(", "isl": 128, "osl": 2048, "model": "Mixtral 8x7B", "gpu": "H100", "parallelism": ")" +
                             parallelism + R"(", "precision": "FP8", "output_tokens_per_s": 5000}]})";
    return gpuplan::read_measurement_file(cat(), text, "ep.json").benchmarks.at(0).layout.ep;
  };
  // The v1.0 perf overview and later run MoE models with --ep over the TP group.
  CHECK(ep_of("TensorRT-LLM (trtllm-bench, PyTorch backend)", "TP8") == 8);
  CHECK(ep_of("TensorRT-LLM post-v1.0 (trtllm-bench, PyTorch backend)", "TP4") == 4);
  CHECK(ep_of("TensorRT-LLM release/1.2", "TP4") == 4);
  CHECK(ep_of("TensorRT-LLM 1.0 (kv_cache_free_gpu_mem_fraction 0.90)", "TP4") == 4);
  // Before v1.0, TensorRT engines and the LLM API split each expert over the TP group.
  CHECK(ep_of("TensorRT-LLM v0.15 (trtllm-bench, TensorRT engine)", "TP8") == 1);
  CHECK(ep_of("TensorRT-LLM v0.20 (trtllm-bench, PyTorch backend)", "TP8") == 1);
  CHECK(ep_of("tensorrt_llm==0.17.0", "TP8") == 1);
  for (const char* engine : {"TRT-LLM 0.21.0rc1", "trtllm-serve 0.20", "trtllm-bench v0.19", "trt_llm 0.20",
                             "TensorRT-LLM version 0.20", "TensorRT-LLM-0.20", "TensorRT-LLM (trtllm-bench 0.20)",
                             "TensorRT-LLM v0.9", "TensorRT-LLM, TensorRT-engine backend"}) {
    INFO(engine);
    CHECK(ep_of(engine, "TP8") == 1);
  }
  for (const char* engine : {"tensorrt_llm==1.0.0", "TensorRT-LLM v1.0 pre-release", "trtllm-serve 1.1.0",
                             "TensorRT-LLM (trtllm-bench, PyTorch backend, kv_cache_free_gpu_mem_fraction 0.90)"}) {
    INFO(engine);
    CHECK(ep_of(engine, "TP8") == 8);
  }
  CHECK(ep_of("TensorRT-LLM 1.2 (TensorRT engine)", "TP8") == 1);
  // vLLM without --enable-expert-parallel and SGLang (ep_size 1) do too.
  CHECK(ep_of("vLLM 0.10.1", "TP4") == 1);
  CHECK(ep_of("SGLang 0.5.6", "TP8") == 1);
  // The engine a text names first is the engine: a TensorRT-LLM kernel in SGLang or vLLM is not
  // TensorRT-LLM (sglang PR #8638's rows name --attention-backend trtllm_mla).
  CHECK(ep_of("SGLang 0.4.10 --attention-backend trtllm_mla", "TP8") == 1);
  CHECK(ep_of("vLLM 0.10.1, VLLM_USE_FLASHINFER_MOE_FP8 (flashinfer_trtllm)", "TP8") == 1);
  CHECK(ep_of("trtllm-serve 1.1.0 (vs vLLM 0.10)", "TP8") == 8);
  // A stated EP is kept whatever the engine.
  CHECK(ep_of("vLLM 0.10.1", "TP8 EP8") == 8);
  CHECK(ep_of("TensorRT-LLM v0.15 (trtllm-bench, TensorRT engine)", "TP8,EP4") == 4);
  // The assumption is said in a note.
  const auto noted = gpuplan::read_measurement_file(
      cat(),
      R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.10.1", "isl": 128, "osl": 2048, "model": "Mixtral 8x7B",
          "gpu": "H100", "parallelism": "TP2", "precision": "FP8", "output_tokens_per_s": 5000}]})",
      "n.json");
  CHECK(std::any_of(noted.notes.begin(), noted.notes.end(), [](const std::string& n) {
    return n.find("n.json: 1 MoE row without EP: each expert split over the TP group (EP 1)") != std::string::npos;
  }));
  // Attention DP keeps the experts' TP split as EP when none is stated.
  const std::string adp = R"({"measured": [{"kind": "throughput", "engine": "TensorRT-LLM v0.20", "isl": 128,
      "osl": 2048, "model": "Qwen3-235B-A22B", "gpu": "H200", "parallelism": "TP8", "precision": "FP8",
      "enable_attention_dp": true, "output_tokens_per_s": 20000}]})";
  const auto dep_file = gpuplan::read_measurement_file(cat(), adp, "adp.json");
  const auto dep = dep_file.benchmarks.at(0).layout;
  CHECK(dep.ep == 8);
  CHECK(dep.dp == 8);
  // and its note says so.
  CHECK(std::any_of(dep_file.notes.begin(), dep_file.notes.end(), [](const std::string& n) {
    return n.find("adp.json: 1 attention-DP MoE row without EP: experts spread over the ranks") != std::string::npos &&
           n.find("SGLang without --ep-size splits each expert") != std::string::npos;
  }));
  CHECK_FALSE(std::any_of(dep_file.notes.begin(), dep_file.notes.end(),
                          [](const std::string& n) { return n.find("(EP 1)") != std::string::npos; }));
}

TEST_CASE("measurement file: an 8-bit label on a 4-bit-only release reads as the release", "[measurement]") {
  const auto read = [](const std::string& model, const std::string& precision) {
    const std::string text = R"({"measured": [{"kind": "throughput", "engine": "TensorRT-LLM", "isl": 1000,
        "osl": 1000, "model": ")" + model + R"(", "gpu": "H200", "parallelism": "TP1", "precision": ")" + precision +
                             R"(", "output_tokens_per_s": 10000}]})";
    return gpuplan::read_measurement_file(cat(), text, "r.json");
  };
  // gpt-oss ships MXFP4 experts only: its "FP8" Hopper rows ran the release, with a 16-bit cache.
  const auto oss = read("GPT-OSS 20B", "FP8");
  CHECK(oss.benchmarks.at(0).weights_dtype == DType::mxfp4);
  CHECK(oss.benchmarks.at(0).kv_dtype == DType::bf16);
  CHECK(std::any_of(oss.notes.begin(), oss.notes.end(), [](const std::string& n) {
    return n.find("r.json: 1 'FP8' row of gpt-oss-20b read as its release, mxfp4") != std::string::npos;
  }));
  // A 16-bit release quantized to FP8, and DeepSeek's own FP8 release, stay FP8.
  CHECK(read("Llama-3.3-70B", "FP8").benchmarks.at(0).weights_dtype == DType::fp8);
  CHECK(read("DeepSeek-R1", "FP8").benchmarks.at(0).weights_dtype == DType::fp8);
  // A stated KV cache is kept.
  const std::string text = R"({"measured": [{"kind": "throughput", "engine": "TensorRT-LLM", "isl": 1000,
      "osl": 1000, "model": "gpt-oss-120b", "gpu": "H200", "parallelism": "TP1", "precision": "FP8",
      "kv_cache_dtype": "fp8", "output_tokens_per_s": 5000}]})";
  const auto stated = gpuplan::read_measurement_file(cat(), text, "s.json").benchmarks.at(0);
  CHECK(stated.weights_dtype == DType::mxfp4);
  CHECK(stated.kv_dtype == DType::fp8);
  // Only where the GPU has no FP4 units: on B200 the label may be W4A8 and stays FP8; on an A100
  // (no FP8 either) it is the release too, not an FP8 checkpoint run weight-only (meas-nvidia s56
  // F1: FP8 rows there are no longer refused).
  const auto on = [](const std::string& gpu) {
    return R"({"measured": [{"kind": "throughput", "engine": "TensorRT-LLM", "isl": 1000, "osl": 1000,
        "model": "gpt-oss-20b", "gpu": ")" + gpu + R"(", "parallelism": "TP1", "precision": "FP8",
        "output_tokens_per_s": 5000}]})";
  };
  CHECK(gpuplan::read_measurement_file(cat(), on("B200"), "b.json").benchmarks.at(0).weights_dtype == DType::fp8);
  CHECK(gpuplan::read_measurement_file(cat(), on("A100-SXM4-80GB"), "a.json").benchmarks.at(0).weights_dtype ==
        DType::mxfp4);
}

TEST_CASE("measurement file: precisions as tables write them, or as the checkpoint's name states", "[measurement]") {
  const auto weights = [](const std::string& fields) {
    return gpuplan::read_measurement_file(cat(), row(R"("parallelism": "TP2", "output_tokens_per_s": 1, )" + fields), "m.json")
        .benchmarks.front()
        .weights_dtype;
  };
  CHECK(weights(R"("gpu": "H100", "model": "Llama-3.3-70B", "precision": "W4A16")") == DType::int4);
  CHECK(weights(R"("gpu": "H100", "model": "Llama-3.3-70B", "precision": "AWQ INT4")") == DType::int4);
  CHECK(weights(R"x("gpu": "H100", "model": "Llama-3.3-70B", "precision": "INT8 (W8A8)")x") == DType::int8);
  CHECK(weights(R"("gpu": "H100", "model": "Llama-3.3-70B", "precision": "FP16")") == DType::fp16);
  // No precision: the quantized checkpoint's name says it.
  CHECK(weights(R"("gpu": "H100", "model": "nvidia/Llama-3.3-70B-Instruct-FP8")") == DType::fp8);
  CHECK_THROWS_WITH(weights(R"("gpu": "H100", "model": "Llama-3.3-70B")"),
                    Catch::Matchers::Contains("m.json: /measured/0/precision: missing, and the model's name states no format"));
  // A name two GPUs share names the row and field too.
  CHECK_THROWS_WITH(weights(R"("model": "Llama-3.3-70B", "gpu": "A100 SXM", "precision": "BF16")"),
                    Catch::Matchers::Contains("m.json: /measured/0/gpu: GPU 'A100 SXM' is ambiguous"));
  // An explicit element format outranks a weights/activations scheme; torch's spellings read.
  CHECK(weights(R"("gpu": "H100", "model": "Llama-3.3-70B", "precision": "FP8 W8A8")") == DType::fp8);
  CHECK(weights(R"("gpu": "H100", "model": "Llama-3.3-70B", "precision": "W8A8-FP8")") == DType::fp8);
  CHECK(weights(R"("gpu": "H100", "model": "Llama-3.3-70B", "precision": "bfloat16")") == DType::bf16);
  CHECK(weights(R"("gpu": "H100", "model": "Llama-3.3-70B", "precision": "e4m3")") == DType::fp8);
  // A model published only quantized runs as published when the row says nothing.
  CHECK(weights(R"("gpu": "H100", "model": "openai/gpt-oss-120b")") == DType::mxfp4);
  CHECK(gpuplan::read_measurement_file(cat(), row(R"("parallelism": "TP2", "output_tokens_per_s": 1, "gpu": "H100",
                                                  "model": "openai/gpt-oss-120b")"), "m.json")
            .benchmarks.front()
            .kv_dtype == DType::bf16);  // engines' default cache for the release, not ModelOpt's FP8
}

TEST_CASE("measurement file: bad rows name the row and field", "[measurement]") {
  const auto fails = [](const std::string& fields, const char* message) {
    CHECK_THROWS_WITH(gpuplan::read_measurement_file(cat(), row(fields), "m.json"), Catch::Matchers::Contains(message));
  };
  fails(R"("model": "Llama-9-70B", "gpu": "H100", "parallelism": "TP2", "precision": "FP8", "output_tokens_per_s": 1)",
        "m.json: /measured/0/model: unknown model 'Llama-9-70B'; closest:");
  fails(R"("model": "Llama-3.3-70B", "gpu": "Z100", "parallelism": "TP2", "precision": "FP8", "output_tokens_per_s": 1)",
        "m.json: /measured/0/gpu: unknown GPU 'Z100'");
  fails(R"("model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "two GPUs", "precision": "FP8", "output_tokens_per_s": 1)",
        "/measured/0/parallelism: cannot read 'two GPUs'");
  for (const char* bad : {"2xTP4", "8-way", "2xQP", "2xTP 2xTP", "0xTP", "4x"}) {
    INFO(bad);
    fails(std::string(R"("model": "Llama-3.3-70B", "gpu": "H100", "precision": "FP8", "output_tokens_per_s": 1, )") +
              R"("parallelism": ")" + bad + R"(")",
          "/measured/0/parallelism:");
  }
  fails(R"("model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2", "num_gpus": 3, "precision": "FP8", "output_tokens_per_s": 1)",
        "/measured/0/num_gpus: 3 GPUs are not a whole number");
  // TensorRT-LLM's v0.15 tables label some columns "Mixed": no format to read.
  fails(R"("model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2", "precision": "Mixed", "output_tokens_per_s": 1)",
        "/measured/0/precision: 'Mixed' names no single format");
  fails(R"("model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2", "precision": "FP8", "output_tokens_per_s": -5)",
        "/measured/0/output_tokens_per_s:");
  fails(R"("model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2", "precision": "FP8", "concurrency": 2.5, "output_tokens_per_s": 1)",
        "/measured/0/concurrency: expected a whole number");
  fails(R"("model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2", "precision": "FP8", "num_requests": 0, "output_tokens_per_s": 1)",
        "/measured/0/num_requests:");
  CHECK_THROWS_WITH(gpuplan::read_measurement_file(cat(), R"({"measured": [{"kind": "nccl_allreduce_busbw"}]})", "m.json"),
                    Catch::Matchers::Contains("m.json: /measured: no throughput measurements"));
  CHECK_THROWS_WITH(gpuplan::read_measurement_file(cat(), R"({"measured": [], "extra": 1})", "m.json"),
                    Catch::Matchers::Contains("extra"));
  CHECK(gpuplan::is_measurement_file(row("")) == false);  // not JSON: the caller reports it as the catalog format
  CHECK(gpuplan::is_measurement_file(R"({"benchmarks": []})") == false);
  CHECK(gpuplan::is_measurement_file(R"({"measured": []})"));
}

TEST_CASE("measurement file: a max-load run's requests, stated or trtllm-bench's dataset", "[measurement]") {
  const auto requests = [](const std::string& engine, const std::string& extra) {
    const std::string text = R"({"measured": [{"kind": "throughput", "engine": ")" + engine +
                             R"(", "isl": 128, "osl": 2048, "model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2", )"
                             R"("precision": "FP8", "output_tokens_per_s": 5000)" + extra + "}]}";
    return gpuplan::read_measurement_file(cat(), text, "m.json").benchmarks.at(0).requests;
  };
  // trtllm-bench at max load: the perf overview's 3,000 requests at 128/2048.
  CHECK(requests("TensorRT-LLM (trtllm-bench, PyTorch backend)", "") == 3000);
  CHECK(requests("TensorRT-LLM (trtllm-bench, PyTorch backend)", R"(, "concurrency": "max load")") == 3000);
  CHECK(requests("TensorRT-LLM (trtllm-bench, PyTorch backend)", R"(, "num_requests": 640)") == 640);
  // Another tool or a fixed concurrency: no dataset size is known, the steady state.
  CHECK(requests("TensorRT-LLM (trtllm-serve)", "") == 0);
  CHECK(requests("vLLM 0.10 (benchmark_serving)", "") == 0);
  CHECK(requests("TensorRT-LLM (trtllm-bench, PyTorch backend)", R"(, "concurrency": 64)") == 0);
  // ...unless the row states it: any tool, any concurrency.
  CHECK(requests("vLLM 0.10 (benchmark_serving)", R"(, "num_requests": 200)") == 200);
  CHECK(requests("TensorRT-LLM (trtllm-bench, PyTorch backend)", R"(, "concurrency": 64, "num_requests": 500)") == 500);
  const auto bad = [](const std::string& engine, const std::string& extra) {
    const std::string text = R"({"measured": [{"kind": "throughput", "engine": ")" + engine +
                             R"(", "isl": 128, "osl": 2048, "model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2", )"
                             R"("precision": "FP8", "output_tokens_per_s": 5000)" + extra + "}]}";
    CHECK_THROWS_WITH(gpuplan::read_measurement_file(cat(), text, "m.json"),
                      Catch::Matchers::Contains("m.json: /measured/0/num_requests:"));
  };
  bad("vLLM 0.10 (benchmark_serving)", R"(, "num_requests": 0)");
  bad("TensorRT-LLM (trtllm-bench, PyTorch backend)", R"(, "concurrency": 64, "num_requests": "lots")");
}

// A row read by an alias leaves a note in the catalog; when a later row fails, the read throws
// and must not leave that note behind for whoever reads next.
TEST_CASE("measurement file: a failed read leaves no notes behind", "[measurement]") {
  const gpuplan::Catalog& catalog = cat();
  (void)catalog.take_notes();
  const std::string text =
      R"({"measured": [{"kind": "throughput", "engine": "TensorRT-LLM", "isl": 128, "osl": 2048, "model": "Llama-3.3-70B",)"
      R"( "gpu": "H200", "parallelism": "TP1", "precision": "FP8", "output_tokens_per_s": 4336},)"
      R"( {"kind": "throughput", "engine": "TensorRT-LLM", "isl": 128, "osl": 2048, "model": "Llama-3.3-70B",)"
      R"( "gpu": "H200", "parallelism": "TP1", "precision": "FP8", "output_tokens_per_s": -1}]})";
  CHECK_THROWS_AS(gpuplan::read_measurement_file(catalog, text, "two-rows.json"), gpuplan::InputError);
  CHECK(catalog.take_notes().empty());
  // The same first row alone reads, and its note reaches the caller.
  const std::string one = text.substr(0, text.find("}, {")) + "}]}";
  const auto file = gpuplan::read_measurement_file(catalog, one, "one-row.json");
  CHECK(file.benchmarks.size() == 1);
  CHECK_FALSE(file.notes.empty());
  CHECK(catalog.take_notes().empty());
}

TEST_CASE("measurement file: rows as other people write them", "[measurement]") {
  const auto read = [](const std::string& fields) {
    return gpuplan::read_measurement_file(cat(), row(fields), "m.json").benchmarks.front();
  };
  const std::string base = R"("model": "Llama-3.3-70B", "gpu": "H100", "precision": "FP8", )";
  // Layouts: "TP=8", "TP 4, PP 2", "TP2xPP4", and the perf overview's DEP (DP with EP).
  CHECK(read(base + R"("parallelism": "TP=8", "output_tokens_per_s": 1)").layout.tp == 8);
  const auto tp4pp2 = read(base + R"("parallelism": "TP: 4, PP: 2", "output_tokens_per_s": 1)");
  CHECK(tp4pp2.layout.tp == 4);
  CHECK(tp4pp2.layout.pp == 2);
  CHECK(read(base + R"("parallelism": "TP2xPP4", "output_tokens_per_s": 1)").layout.pp == 4);
  // The degree before its name: "2xTP", "4-way TP, 2-way PP", "4 x TP".
  CHECK(read(base + R"("parallelism": "2xTP", "output_tokens_per_s": 1)").layout.tp == 2);
  const auto ways = read(base + R"("parallelism": "4-way TP, 2-way PP", "output_tokens_per_s": 1)");
  CHECK(ways.layout.tp == 4);
  CHECK(ways.layout.pp == 2);
  CHECK(read(base + R"("parallelism": "4 x TP", "output_tokens_per_s": 1)").layout.tp == 4);
  CHECK(read(base + R"("parallelism": "TP 4 x PP 2", "output_tokens_per_s": 1)").layout.pp == 2);
  const auto dep = read(R"("model": "Qwen3-235B-A22B", "gpu": "B200", "precision": "FP4", "parallelism": "DEP8",
                           "output_tokens_per_s": 1)");
  CHECK(dep.layout.tp == 1);
  CHECK(dep.layout.dp == 8);
  CHECK(dep.layout.ep == 8);
  // Concurrency as text: a leading number is the batch; a description is max load.
  CHECK(read(base + R"("parallelism": "TP2", "concurrency": "64 requests", "output_tokens_per_s": 1)").max_batch == 64);
  CHECK(read(base + R"("parallelism": "TP2", "concurrency": 64.0, "output_tokens_per_s": 1)").max_batch == 64);
  CHECK(read(base + R"("parallelism": "TP2", "concurrency": "max load", "output_tokens_per_s": 1)").scenario ==
        "max-load");
  for (const char* odd : {"1,000", "64.5", "-5", "~64", "1e3", "999999999"}) {
    INFO(odd);
    CHECK_THROWS_WITH(read(base + R"("parallelism": "TP2", "output_tokens_per_s": 1, "concurrency": ")" + odd + "\""),
                      Catch::Matchers::Contains("/measured/0/concurrency"));
  }
  // vLLM at max load on an A100 80GB: its 256-sequence default, not the large GPUs' 1,024.
  CHECK(gpuplan::read_measurement_file(
            cat(),
            R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.11", "model": "Llama-3.1-8B",
                "gpu": "A100-SXM4-80GB", "precision": "BF16", "parallelism": "TP1", "isl": 128, "osl": 128,
                "output_tokens_per_s": 1}]})",
            "v.json")
            .benchmarks.front()
            .max_batch == 256);
  // vLLM before 0.8 (V0) capped every GPU at 256 sequences; 0.8 and later give an H100 1,024.
  const auto vllm_cap = [](const std::string& engine) {
    return gpuplan::read_measurement_file(
               cat(),
               R"({"measured": [{"kind": "throughput", "engine": ")" + engine +
                   R"(", "model": "Llama-3.1-8B", "gpu": "H100", "precision": "BF16", "parallelism": "TP1",
                   "isl": 128, "osl": 128, "output_tokens_per_s": 1}]})",
               "v.json")
        .benchmarks.front()
        .max_batch;
  };
  CHECK(vllm_cap("vLLM 0.6.3") == 256);
  CHECK(vllm_cap("vllm==v0.7.2") == 256);
  CHECK(vllm_cap("vLLM 0.8.5") == 1024);
  CHECK(vllm_cap("vLLM 0.10.1") == 1024);
  CHECK(vllm_cap("vLLM") == 1024);
  CHECK(vllm_cap("SGLang 0.5 (compared with vLLM 0.6.3)") == 0);  // SGLang's, not vLLM's cap
  // Throughput per GPU is the run's over its GPUs.
  CHECK(read(base + R"("parallelism": "TP2", "output_tokens_per_s_per_gpu": 3189)").output_tokens_per_s ==
        Approx(6378));
  CHECK_THROWS_WITH(read(base + R"("parallelism": "TP2", "output_tokens_per_s": 6378, "output_tokens_per_s_per_gpu": 3189)"),
                    Catch::Matchers::Contains("/measured/0/output_tokens_per_s_per_gpu"));
  // "TRT-LLM" is TensorRT-LLM; spaces around names are ignored; "Throughput" is a throughput row.
  const auto trt = gpuplan::read_measurement_file(
      cat(), R"({"measured": [{"kind": "Throughput", "engine": "TRT-LLM 0.17", "model": " Llama-3.3-70B ",
                 "gpu": "H100 ", "parallelism": " TP2", "precision": "FP8 ", "isl": 128, "osl": 128,
                 "output_tokens_per_s": 6378}]})",
      "t.json");
  REQUIRE(trt.benchmarks.size() == 1);
  CHECK(trt.benchmarks.front().tensorrt_llm);
  CHECK(trt.benchmarks.front().gpu == "h100-sxm");
}

// SGLang's speculative-decoding docs (Llama-3.1-8B on one H100, batch 1): EAGLE-3 at 373 tok/s,
// 1.7x the one-token-per-pass roofline. Such rows are set aside, not checked.
TEST_CASE("measurement file: speculative-decoding rows are not read", "[measurement]") {
  const std::string row =
      R"({"kind": "throughput", "engine": "SGLang 0.4.4", "model": "Llama-3.1-8B", "gpu": "H100", "parallelism": "TP1",
          "precision": "BF16", "isl": 128, "osl": 512, "concurrency": 1, "output_tokens_per_s": 373)";
  const auto read = [](const std::string& rows) {
    return gpuplan::read_measurement_file(cat(), R"({"measured": [)" + rows + "]}", "s.json");
  };
  const auto file = read(row + R"(, "speculative": "EAGLE-3"}, )" + row + "}");
  CHECK(file.benchmarks.size() == 1);
  CHECK(std::any_of(file.notes.begin(), file.notes.end(), [](const std::string& n) {
    return n.find("1 speculative-decoding row not read") != std::string::npos;
  }));
  // Off values are plain rows; the engine text can say it too.
  CHECK(read(row + R"(, "speculative": false})").benchmarks.size() == 1);
  CHECK(read(row + R"(, "num_speculative_tokens": 0})").benchmarks.size() == 1);
  CHECK(read(row + R"(, "speculative_config": "none"})").benchmarks.size() == 1);
  CHECK(read(row + R"(, "speculative": "w/o speculative"})").benchmarks.size() == 1);
  const std::string eagle_engine = std::string(row).replace(row.find("SGLang 0.4.4"), 12, "SGLang + EAGLE-2");
  CHECK_THROWS_WITH(read(eagle_engine + "}"), Catch::Matchers::Contains("without speculative decoding"));
}

TEST_CASE("measurement file: engine settings a row states are read, never ignored", "[measurement]") {
  const std::string moe = R"("model": "Qwen3-235B-A22B", "gpu": "H200", "parallelism": "TP8 EP8", "precision": "FP8", )"
                          R"("output_tokens_per_s": 20000)";
  const auto read = [](const std::string& fields) {
    return gpuplan::read_measurement_file(cat(), row(fields), "e.json");
  };
  // Attention data parallelism: TP8 EP8 with enable_attention_dp is DEP8.
  const auto adp = read(moe + R"(, "enable_attention_dp": true)").benchmarks.at(0);
  CHECK(adp.layout.tp == 1);
  CHECK(adp.layout.dp == 8);
  CHECK(adp.layout.ep == 8);
  CHECK(adp.id.find("attention-dp") != std::string::npos);
  const auto tp = read(moe + R"(, "attention_dp": false)").benchmarks.at(0);
  CHECK(tp.layout.tp == 8);
  CHECK(tp.layout.dp == 1);
  // A stated cap tightens a concurrency; at max load TensorRT-LLM's caps the batch trtllm-bench's
  // rule gives (per micro-batch: x PP), another engine's replaces its default.
  const auto capped = read(moe + R"(, "max_batch_size": 512)").benchmarks.at(0);
  CHECK(capped.max_batch == 0);
  CHECK(capped.trtllm_max_batch == 512);
  const std::string dense_pp = R"("model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2 PP2", "precision": "FP8", )"
                               R"("output_tokens_per_s": 1, "max_batch_size": 256)";
  CHECK(read(dense_pp).benchmarks.at(0).trtllm_max_batch == 512);
  const auto vllm = gpuplan::read_measurement_file(
      cat(),
      R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.10.1", "isl": 128, "osl": 2048, "model": "Llama-3.3-70B",
          "gpu": "H100", "parallelism": "TP2", "precision": "FP8", "output_tokens_per_s": 1, "max_num_seqs": 128}]})",
      "v.json");
  CHECK(vllm.benchmarks.at(0).max_batch == 128);
  CHECK(read(moe + R"(, "concurrency": 256, "max_batch_size": 64)").benchmarks.at(0).max_batch == 64);
  CHECK(read(moe + R"(, "concurrency": 32, "max_batch_size": 64)").benchmarks.at(0).max_batch == 32);
  // Memory share and step tokens.
  const auto mem = read(moe + R"(, "kv_cache_free_gpu_mem_fraction": 0.8, "max_num_tokens": 4096)").benchmarks.at(0);
  REQUIRE(mem.memory_share);
  CHECK(*mem.memory_share == Approx(0.8));
  REQUIRE(mem.step_tokens);
  CHECK(*mem.step_tokens == 4096);
  // Refusals name the field.
  const auto fails = [&](const std::string& fields, const char* message) {
    CHECK_THROWS_WITH(read(fields), Catch::Matchers::Contains(message));
  };
  fails(moe + R"(, "gpu_memory_utilization": 0.9)", "/measured/0/gpu_memory_utilization: a vLLM or SGLang setting");
  fails(moe + R"(, "max_batch_size": 0)", "/measured/0/max_batch_size:");
  fails(moe + R"(, "max_batch_size": 64, "max_num_seqs": 64)", "give one of max_batch_size and max_num_seqs");
  fails(moe + R"(, "kv_cache_free_gpu_mem_fraction": 1.5)", "/measured/0/kv_cache_free_gpu_mem_fraction:");
  fails(moe + R"(, "enable_attention_dp": "yes")", "/measured/0/enable_attention_dp: expected true or false");
  // Layouts gpuplan does not model are refused rows (listed by validate), not a failed file.
  const auto refused = [&](const std::string& fields, const char* message) {
    const auto b = read(fields).benchmarks.at(0);
    REQUIRE(b.refused);
    CHECK_THAT(*b.refused, Catch::Matchers::Contains(message));
    CHECK_FALSE(b.calibrate);
  };
  refused(R"("model": "Qwen3-235B-A22B", "gpu": "H200", "parallelism": "TP8 EP4", "precision": "FP8", )"
          R"("output_tokens_per_s": 1, "enable_attention_dp": true)",
          "enable_attention_dp: attention data parallelism with EP 4 below TP 8");
  refused(R"("model": "Llama-3.3-70B", "gpu": "H100", "parallelism": "TP2", "precision": "FP8", "output_tokens_per_s": 1, )"
          R"("attention_dp": true)",
          "attention_dp: attention data parallelism is modelled for MoE models only");
  // Fields no reader takes are said in a note, with their row counts.
  const auto extra = read(moe + R"(, "attention_backend": "FLASHINFER")");
  CHECK(std::any_of(extra.notes.begin(), extra.notes.end(), [](const std::string& n) {
    return n.find("e.json: field not read, left out of the estimate: attention_backend (1 row)") != std::string::npos;
  }));
  // So are flags written into the engine's text (an eager run launches every kernel itself).
  const auto flagged = gpuplan::read_measurement_file(
      cat(), R"j({"measured": [{"kind": "throughput", "engine": "vLLM 0.9.1 (--enforce-eager --enforce-eager, cache models--org--x)", "isl": 16000,
          "osl": 200, "model": "Llama-3.1-8B", "gpu": "A100 80GB", "parallelism": "TP1", "precision": "BF16",
          "concurrency": 1, "output_tokens_per_s": 48}]})j",
      "f.json");
  // meas-nvidia s54: an eager flag is read (the row is marked eager: validate makes no band claim
  // for it), not listed as left out.
  CHECK(flagged.benchmarks.at(0).eager);
  CHECK_FALSE(std::any_of(flagged.notes.begin(), flagged.notes.end(),
                          [](const std::string& n) { return n.find("--enforce-eager") != std::string::npos; }));
  // A flag whose setting the row also gives as a field is read there, not "left out"; one the
  // row does not state otherwise still is.
  const auto shared = gpuplan::read_measurement_file(
      cat(), R"j({"measured": [{"kind": "throughput", "engine": "SGLang 0.5.2 (--mem-fraction-static 0.8 --disable-cuda-graph --attention-backend torch_native)",
          "isl": 200, "osl": 200, "model": "Qwen3-8B", "gpu": "RTX 5090", "parallelism": "TP1", "precision": "BF16",
          "concurrency": 8, "output_tokens_per_s": 100, "mem_fraction_static": 0.8},
        {"kind": "throughput", "engine": "vLLM 0.10.2 (--gpu-memory-utilization 0.85)", "isl": 200, "osl": 200,
          "model": "Qwen3-8B", "gpu": "RTX 5090", "parallelism": "TP1", "precision": "BF16", "concurrency": 8,
          "output_tokens_per_s": 900}]})j",
      "g.json");
  CHECK(shared.benchmarks.at(0).eager);
  CHECK_FALSE(shared.benchmarks.at(1).eager);
  const auto note_has = [&shared](const char* what) {
    return std::any_of(shared.notes.begin(), shared.notes.end(),
                       [what](const std::string& n) { return n.find(what) != std::string::npos; });
  };
  CHECK_FALSE(note_has("--mem-fraction-static"));
  CHECK_FALSE(note_has("--disable-cuda-graph"));
  CHECK(note_has("engine's --attention-backend (1 row)"));
  CHECK(note_has("engine's --gpu-memory-utilization (1 row)"));  // that row gives no field for it
  CHECK(gpuplan::read_measurement_file(cat(), R"j({"measured": [{"kind": "throughput", "engine": "vLLM 0.10.2",
          "isl": 200, "osl": 200, "model": "Qwen3-8B", "gpu": "RTX 5090", "parallelism": "TP1", "precision": "BF16",
          "concurrency": 8, "output_tokens_per_s": 900, "enforce_eager": true}]})j", "h.json").benchmarks.at(0).eager);
  // Dashes inside a word are no flag.
  CHECK_FALSE(std::any_of(flagged.notes.begin(), flagged.notes.end(),
                          [](const std::string& n) { return n.find("--org") != std::string::npos; }));
}

TEST_CASE("measurement file: output lengths and a concurrency above the engine's cap", "[measurement]") {
  const auto read = [](const std::string& extra) {
    const std::string text = R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.11, vllm bench serve", )"
                             R"("isl": 200, "osl": 200, "model": "llama-3.1-8b", "gpu": "L40S", "parallelism": "TP1", )"
                             R"("precision": "BF16", "output_tokens_per_s": 2000)" + extra + "}]}";
    return gpuplan::read_measurement_file(cat(), text, "m.json").benchmarks.at(0);
  };
  CHECK(read("").output_lengths == gpuplan::OutputLengths::fixed);
  CHECK(read(R"(, "output_lengths": "exponential")").output_lengths == gpuplan::OutputLengths::exponential);
  CHECK(read(R"(, "output_lengths": "uniform")").output_lengths == gpuplan::OutputLengths::uniform);
  CHECK_THROWS_WITH(read(R"(, "output_lengths": "zipf")"),
                    Catch::Matchers::Contains("m.json: /measured/0/output_lengths: expected fixed, uniform"));
  // 512 clients on a 256-sequence engine (vLLM's max_num_seqs below 70 GiB): it steps 256 at a
  // time and queues the rest; below the cap the concurrency is the batch; a stated cap wins.
  CHECK(read(R"(, "concurrency": 512)").max_batch == 256);
  CHECK(read(R"(, "concurrency": "512 requests")").max_batch == 256);
  CHECK(read(R"(, "concurrency": 64)").max_batch == 64);
  CHECK(read(R"(, "concurrency": 512, "max_num_seqs": 400)").max_batch == 400);
}

// gpt-oss is published with MXFP4 experts and BF16 attention, router and LM head; a row that says
// "MXFP4" (or no precision) ran that release, not a model quantized to MXFP4 throughout
// (dgx-spark-playbooks #79: 33-34 tok/s on GB10 at batch 1, where all-MXFP4 reads 49).
TEST_CASE("measurement file: a release's own format keeps its per-part formats", "[measurement]") {
  const auto row = [](const std::string& model, const std::string& precision) {
    const std::string text = R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.15", "model": ")" + model +
                             R"(", "gpu": "H100", "parallelism": "TP1", )" + precision +
                             R"("isl": 500, "osl": 1000, "concurrency": 1, "output_tokens_per_s": 200}]})";
    return gpuplan::read_measurement_file(cat(), text, "r.json").benchmarks.at(0);
  };
  const gpuplan::Benchmark written = row("gpt-oss-120b", R"("precision": "MXFP4", )");
  CHECK(written.shipped_formats);
  CHECK(written.kv_dtype == DType::bf16);  // the release carries no FP8 cache scales
  CHECK(row("gpt-oss-120b", "").shipped_formats);
  CHECK_FALSE(row("gpt-oss-120b", R"("precision": "BF16", )").shipped_formats);
  CHECK_FALSE(row("llama-3.1-8b", R"("precision": "FP8", )").shipped_formats);
  CHECK(row("llama-3.1-8b", R"("precision": "FP8", )").kv_dtype == DType::fp8);
}

// meas-nvidia s56 F1: an FP8 checkpoint measured on an A100 (vLLM's FP8 Marlin, W8A16) made the
// whole file fail with "a100-sxm-80gb has no fp8 tensor cores", although perf times the same
// request weight-only. It reads as perf reads it; a layout gpuplan does not model is a refused
// row, and the rest of the file is still checked.
TEST_CASE("measurement file: FP8 and FP4 weights without their tensor cores read weight-only, "
          "unmodelled rows are refused, not failed",
          "[measurement]") {
  const std::string text = R"({"measured": [
    {"kind": "throughput", "engine": "vLLM 0.5.4", "isl": 221, "osl": 126, "model": "Llama-3.1-8B",
     "gpu": "A100 80GB", "parallelism": "TP1", "precision": "FP8", "output_tokens_per_s": 2952.8,
     "num_requests": 1280, "max_num_seqs": 1024, "output_lengths": "exponential"},
    {"kind": "throughput", "engine": "vLLM", "isl": 128, "osl": 2048, "model": "Llama-3.3-70B",
     "gpu": "H100", "parallelism": "TP2", "precision": "FP4", "output_tokens_per_s": 1000},
    {"kind": "throughput", "engine": "vLLM", "isl": 128, "osl": 2048, "model": "Llama-3.3-70B",
     "gpu": "H100", "parallelism": "TP3", "precision": "FP8", "output_tokens_per_s": 1000},
    {"kind": "throughput", "engine": "vLLM 0.5.4", "isl": 221, "osl": 126, "model": "Llama-3.1-8B",
     "gpu": "A100 80GB", "parallelism": "TP1", "precision": "W8A16", "output_tokens_per_s": 2952.8,
     "num_requests": 1280, "max_num_seqs": 1024, "output_lengths": "exponential"}]})";
  const gpuplan::MeasurementFile f = gpuplan::read_measurement_file(cat(), text, "w.json");
  REQUIRE(f.benchmarks.size() == 4);
  const gpuplan::Benchmark& a100 = f.benchmarks[0];
  CHECK_FALSE(a100.refused);
  CHECK(a100.weights_dtype == DType::fp8);
  CHECK(a100.kv_dtype == DType::bf16);  // no FP8 units: the engines' 16-bit cache
  CHECK_FALSE(f.benchmarks[1].refused);
  CHECK(f.benchmarks[1].weights_dtype == DType::fp4);
  REQUIRE(f.benchmarks[2].refused);
  CHECK_THAT(*f.benchmarks[2].refused, Catch::Matchers::Contains("parallelism: layout.tp: 3 does not divide"));
  CHECK(std::any_of(f.notes.begin(), f.notes.end(), [](const std::string& n) {
    return n.find("w.json: 1 'FP8' row on a100-sxm-80gb read as weight-only (fp8 weights, 16-bit GEMMs") !=
           std::string::npos;
  }));
  // validate: the A100 row gets a bound and an estimate (16-bit compute), the TP3 row is listed.
  const gpuplan::Calibration c = gpuplan::validate_benchmarks(cat(), gpuplan::Efficiency{}, f.benchmarks);
  REQUIRE(c.checks.size() == 4);
  CHECK(c.checks[0].has_estimate);
  CHECK_FALSE(c.checks[0].refused);
  CHECK(c.checks[0].bound_holds);
  // The same bytes and the same 16-bit GEMMs as the row written W8A16 (+16 % of the measurement).
  REQUIRE(c.checks[3].has_estimate);
  CHECK(c.checks[0].estimate_tokens_per_s == Approx(c.checks[3].estimate_tokens_per_s).epsilon(1e-3));
  CHECK(c.checks[0].roofline_tokens_per_s == Approx(c.checks[3].roofline_tokens_per_s).epsilon(1e-3));
  CHECK(c.checks[1].has_estimate);
  REQUIRE(c.checks[2].refused);
  CHECK_FALSE(c.checks[2].has_estimate);
  // A GPU no engine runs FP8 weights on (Volta: no weight-only kernels either) is a refused row.
  const auto v100 = gpuplan::read_measurement_file(
      cat(),
      R"({"measured": [{"kind": "throughput", "engine": "vLLM", "isl": 128, "osl": 128, "model": "Llama-3.1-8B",
          "gpu": "v100-sxm2-32gb", "parallelism": "TP1", "precision": "FP8", "output_tokens_per_s": 100}]})",
      "v.json");
  const gpuplan::Calibration cv = gpuplan::validate_benchmarks(cat(), gpuplan::Efficiency{}, v100.benchmarks);
  REQUIRE(cv.checks.size() == 1);
  CHECK(cv.checks[0].refused);
}

// meas-nvidia s56 F5, meas-amd s56 6: flags whose meaning a row field carries were listed as
// "left out of the estimate" (--tp-size beside "parallelism": "TP4", --enable-expert-parallel
// beside EP 2, --ignore-eos with fixed lengths); rows of one id were told apart by "#2" alone.
TEST_CASE("measurement file: flags a field carries are not listed as left out, alike ids say what differs",
          "[measurement]") {
  const auto file = [](const std::string& rows) {
    return gpuplan::read_measurement_file(cat(), R"({"measured": [)" + rows + "]}", "f.json");
  };
  const auto row_with = [](const std::string& engine, const std::string& more) {
    return R"({"kind": "throughput", "engine": ")" + engine +
           R"(", "isl": 1024, "osl": 1024, "model": "Qwen3-30B-A3B", "gpu": "H100", "precision": "BF16", )"
           R"("output_tokens_per_s": 3000)" + more + "}";
  };
  const auto left_out = [](const gpuplan::MeasurementFile& f) {
    std::string all;
    for (const std::string& n : f.notes) {
      if (n.find("left out of the estimate") != std::string::npos) {
        all += n;
      }
    }
    return all;
  };
  const auto carried = file(row_with("vLLM 0.11.0 (--model-path x --tp-size 4 --pp-size 1 --world_size 4 "
                                     "--enable-expert-parallel --ignore-eos --num-prompts 100 --max-concurrency 64 "
                                     "--random-input-len 1024)",
                                     R"(, "parallelism": "TP4 EP4", "concurrency": 64, "num_requests": 100)"));
  CHECK(left_out(carried).empty());
  // Without an EP degree the flag is not read (vLLM's rows without EP split each expert by TP).
  const auto not_carried = file(row_with("vLLM 0.11.0 (--enable-expert-parallel --ignore-eos --foo)",
                                         R"(, "parallelism": "TP4", "output_lengths": "exponential")"));
  const std::string listed = left_out(not_carried);
  CHECK_THAT(listed, Catch::Matchers::Contains("engine's --enable-expert-parallel (1 row)"));
  CHECK_THAT(listed, Catch::Matchers::Contains("engine's --ignore-eos (1 row)"));
  CHECK_THAT(listed, Catch::Matchers::Contains("engine's --foo (1 row)"));
  // Alike rows: the engine tells them apart, else the concurrency, else a number.
  const auto engines = file(row_with("vLLM 0.11.0", R"(, "parallelism": "TP4")") + ", " +
                            row_with("SGLang 0.5.4 (ShareGPT)", R"(, "parallelism": "TP4")"));
  CHECK(engines.benchmarks.at(0).id == "qwen3-30b-a3b-bf16-h100-sxm-tp4-isl1024-osl1024-vllm-0.11.0");
  CHECK(engines.benchmarks.at(1).id == "qwen3-30b-a3b-bf16-h100-sxm-tp4-isl1024-osl1024-sglang-0.5.4");
  const auto loads = file(row_with("vLLM", R"(, "parallelism": "TP4", "concurrency": 1)") + ", " +
                          row_with("vLLM", R"(, "parallelism": "TP4", "concurrency": 20)"));
  CHECK(loads.benchmarks.at(0).id == "qwen3-30b-a3b-bf16-h100-sxm-tp4-isl1024-osl1024-c1");
  CHECK(loads.benchmarks.at(1).id == "qwen3-30b-a3b-bf16-h100-sxm-tp4-isl1024-osl1024-c20");
  const auto same = file(row_with("vLLM", R"(, "parallelism": "TP4")") + ", " +
                         row_with("vLLM", R"(, "parallelism": "TP4")"));
  CHECK(same.benchmarks.at(0).id == "qwen3-30b-a3b-bf16-h100-sxm-tp4-isl1024-osl1024");
  CHECK(same.benchmarks.at(1).id == "qwen3-30b-a3b-bf16-h100-sxm-tp4-isl1024-osl1024#2");
  // meas-nvidia s59 F5: every part that differs joins the id, not only the first, and the KV
  // cache's format is one: TensorRT-LLM's row beside vLLM's at c4 and c16, one with an FP8 cache.
  const auto mixed = file(row_with("vLLM", R"(, "parallelism": "TP4", "concurrency": 4)") + ", " +
                          row_with("vLLM", R"(, "parallelism": "TP4", "concurrency": 16)") + ", " +
                          row_with("vLLM", R"(, "parallelism": "TP4", "concurrency": 16, "kv_cache_dtype": "fp8")") +
                          ", " + row_with("TensorRT-LLM 1.2.1", R"(, "parallelism": "TP4", "concurrency": 16)"));
  const std::string stem = "qwen3-30b-a3b-bf16-h100-sxm-tp4-isl1024-osl1024-";
  CHECK(mixed.benchmarks.at(0).id == stem + "vllm-c4-kv-bf16");
  CHECK(mixed.benchmarks.at(1).id == stem + "vllm-c16-kv-bf16");
  CHECK(mixed.benchmarks.at(2).id == stem + "vllm-c16-kv-fp8");
  CHECK(mixed.benchmarks.at(3).id == stem + "tensorrt-llm-1.2.1-c16-kv-bf16");
  // vLLM's rows are timed with its kernels (perf: MXFP4 experts in 16 bits), TensorRT-LLM's not.
  CHECK(mixed.benchmarks.at(0).vllm);
  CHECK_FALSE(mixed.benchmarks.at(3).vllm);
}
