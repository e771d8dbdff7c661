#include <gpuplan/measurement_file.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <gpuplan/bench_settings.hpp>
#include <gpuplan/checkpoint_name.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/flag_words.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/units.hpp>

#include "detail/ascii.hpp"
#include "detail/json_reader.hpp"
#include "detail/entry_ids.hpp"

namespace gpuplan {
namespace {

using detail::Json;
using detail::JsonPointer;

using detail::lower;

// "TP2,PP4", "TP8", "TP4 x PP2", "TP2xPP4", "TP=8", "TP: 4, PP: 2", "TP8 EP8", "DP8 EP8", "2xTP",
// "8-way TP, 2-way PP", and
// the perf overview's "DEP4" (attention data parallel with expert parallel: DP4 EP4): degrees
// by name; anything else is not a parallelism this reads.
std::map<std::string, std::uint64_t> degrees(const std::string& text, const detail::ObjectReader& r) {
  const auto cannot = [&] {
    r.fail("parallelism", fmt::format("cannot read '{}': expected degrees such as TP2,PP4, TP8 EP8 or DEP8", text));
  };
  const auto known = [](std::string_view name) {
    return name == "tp" || name == "pp" || name == "ep" || name == "dp" || name == "dep";
  };
  std::map<std::string, std::uint64_t> out;
  const std::string t = lower(text);
  const auto is = [&t](std::size_t at, auto test) { return at < t.size() && test(static_cast<unsigned char>(t[at])) != 0; };
  // One degree, its name and digits as written (either order): checked, then stored.
  const auto take = [&](const std::string& name, std::string_view number) {
    if (!known(name) || number.empty() || number.size() > 6 || out.contains(name)) {
      cannot();
    }
    const std::uint64_t v = std::stoull(std::string(number));
    if (v < 1) {
      r.fail("parallelism", fmt::format("'{}': a degree of 0", text));
    }
    if (name == "dep") {
      if (out.contains("dp") || out.contains("ep")) {
        cannot();
      }
      out["dp"] = v;
      out["ep"] = v;
    } else {
      out[name] = v;
    }
  };
  std::size_t i = 0;
  while (i < t.size()) {
    if (is(i, ::isdigit)) {
      // A degree written before its name: "2xTP", "8-way TP", "4 x PP".
      std::size_t j = i;
      while (is(j, ::isdigit)) {
        ++j;
      }
      const std::string number = t.substr(i, j - i);
      const auto skip_separators = [&t](std::size_t at) { return std::min(t.size(), t.find_first_not_of(" -", at)); };
      j = skip_separators(j);
      j += t.compare(j, 3, "way") == 0 ? 3u : (t.compare(j, 1, "x") == 0 ? 1u : 0u);
      j = skip_separators(j);
      std::size_t k = j;
      while (is(k, ::isalpha)) {
        ++k;
      }
      const std::string name = t.substr(j, k - j);
      if (name == "dep") {  // "DEP8" only
        cannot();
      }
      take(name, number);
      i = k;
      continue;
    }
    if (!is(i, ::isalpha)) {
      if (std::string_view(",/+-=:;* ").find(t[i]) == std::string_view::npos) {
        cannot();
      }
      ++i;
      continue;
    }
    std::size_t j = i;
    while (is(j, ::isalpha)) {
      ++j;
    }
    std::string name = t.substr(i, j - i);
    if (name.size() > 1 && name.front() == 'x' && known(std::string_view(name).substr(1))) {
      name.erase(0, 1);  // "TP2xPP4"
    }
    std::size_t k = j;
    while (k < t.size() && (t[k] == ' ' || t[k] == '=' || t[k] == ':')) {
      ++k;
    }
    const std::size_t digits = k;
    while (is(k, ::isdigit)) {
      ++k;
    }
    if (name == "x" && k == digits) {  // "TP4 x PP2"
      i = j;
      continue;
    }
    take(name, std::string_view(t).substr(digits, k - digits));
    i = k;
  }
  if (out.empty()) {
    cannot();
  }
  return out;
}

// The format of the bulk of a catalog checkpoint's weights (its experts for MoE), if known.
std::optional<DType> shipped_main_format(const ModelSpec& m) {
  if (!m.shipped_formats) {
    return std::nullopt;
  }
  return (*m.shipped_formats)[m.is_moe() ? WeightPart::routed_experts : WeightPart::dense_mlp].element;
}

// A field's text without the spaces around it ("H100 " is H100).
std::string trimmed(std::string text) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), space));
  text.erase(std::find_if_not(text.rbegin(), text.rend(), space).base(), text.end());
  return text;
}


// How engine texts name TensorRT-LLM ("TensorRT-LLM", "tensorrt_llm", "trtllm-bench", "TRT-LLM").
constexpr std::array<std::string_view, 5> kTensorRtLlmNames{"tensorrt", "trtllm", "trt-llm", "trt llm", "trt_llm"};

// Where an engine text first names one of these engines (npos: none of them).
std::size_t first_of(const std::string& text, std::span<const std::string_view> names) {
  std::size_t first = std::string::npos;
  for (const std::string_view name : names) {
    first = std::min(first, text.find(name));
  }
  return first;
}

// Serving engines other than TensorRT-LLM, as engine texts name them.
constexpr std::array<std::string_view, 6> kOtherEngineNames{"vllm", "sglang", "lmdeploy", "text-generation-inference",
                                                            "tgi", "mlc"};

// The engine a text names first: "SGLang 0.4.10, --attention-backend trtllm_mla" is SGLang with
// a TensorRT-LLM kernel, not TensorRT-LLM.
bool is_tensorrt_llm(const std::string& engine) {
  const std::string e = lower(engine);
  const std::size_t trt = first_of(e, kTensorRtLlmNames);
  return trt != std::string::npos && trt < first_of(e, kOtherEngineNames);
}

// The text names vLLM before any other engine ("vLLM 0.6.3", not "SGLang, vs vLLM").
bool names_vllm_first(const std::string& engine) {
  const std::string e = lower(engine);
  const std::size_t at = e.find("vllm");
  return at != std::string::npos && at <= first_of(e, kOtherEngineNames) && at < first_of(e, kTensorRtLlmNames);
}

bool is_trtllm_bench(const std::string& engine) { return lower(engine).find("trtllm-bench") != std::string::npos; }

// The minor release after "vllm" in an engine text ("vLLM 0.6.3", "vllm==v0.7.2"), if any.
std::optional<int> vllm_minor_of(std::string_view engine, std::size_t after) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t i = after; i + 2 < engine.size(); ++i) {
    if (engine[i] == '0' && (i == 0 || !digit(engine[i - 1])) && engine[i + 1] == '.' && digit(engine[i + 2])) {
      int minor = 0;
      for (std::size_t j = i + 2; j < engine.size() && digit(engine[j]) && minor < 1000; ++j) {
        minor = minor * 10 + (engine[j] - '0');
      }
      return minor;
    }
  }
  return std::nullopt;
}

// Expert parallelism of a MoE row that states none: what the engine does when not asked for EP.
// vLLM (no --enable-expert-parallel), SGLang (ep_size 1) and TensorRT-LLM's LLM API (Mapping: no
// moe_ep_size and no moe_tp_size give moe_tp_size = TP) split every expert over the TP group, and
// before v1.0 trtllm-bench had no EP option (its TensorRT-engine build takes --tp_size and
// --pp_size only); the v1.0 perf overview and later run MoE models with `--ep $ep_size`, taken
// as the TP group (the shipped calibration rows state it).
// An engine text without a release, or one it cannot read, is taken as v1.0 or later.
std::uint64_t default_expert_parallelism(const std::string& engine, std::uint64_t tp) {
  if (!is_tensorrt_llm(engine)) {
    return 1;
  }
  const std::string e = lower(engine);
  for (const std::string_view build : {"tensorrt engine", "tensorrt-engine", "tensorrt_engine"}) {
    if (e.find(build) != std::string::npos) {
      return 1;
    }
  }
  // The release written near a TensorRT-LLM name decides, the first one found: "TensorRT-LLM
  // v0.20", "TRT-LLM 0.21.0rc1", "tensorrt_llm==0.17.0", "trtllm-bench v0.19", "TensorRT-LLM
  // version 0.20" are before v1.0 ("post-v1.0" is not; nor a memory share further on: ", 0.90").
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  constexpr std::size_t kNear = 16;  // characters between the name and its release ("-llm version ")
  std::size_t best_at = std::string::npos;
  std::optional<bool> before_1_0;
  for (const std::string_view name : kTensorRtLlmNames) {
    for (std::size_t at = e.find(name); at != std::string::npos && at < best_at; at = e.find(name, at + 1)) {
      std::size_t i = at + name.size();
      const std::size_t limit = std::min(e.size(), i + kNear + 1);
      while (i < limit && !digit(e[i])) {
        ++i;
      }
      std::size_t j = i;
      while (j < e.size() && digit(e[j])) {
        ++j;
      }
      if (i < limit && j + 1 < e.size() && e[j] == '.' && digit(e[j + 1])) {
        best_at = at;
        before_1_0 = e.compare(i, j - i, "0") == 0;
      }
    }
  }
  return before_1_0.value_or(false) ? 1 : tp;
}

// The engine's batch cap when the row ran at "max load": trtllm-bench sizes its own (0: the
// validation applies its rule), vLLM serve caps at max_num_seqs (1024 on GPUs of 70 GiB or more
// except the A100 and unified memory, else 256; V0 releases before 0.8, 256: vllm_step_defaults); any other engine
// 0, the batch trtllm-bench's rule would give, with the engine-neutral memory estimate (only
// TensorRT-LLM's rows get its own).
std::uint64_t engine_cap(const std::string& engine, const GpuSpec& gpu) {
  const std::string e = lower(engine);
  if (const std::size_t at = e.find("vllm"); at != std::string::npos && names_vllm_first(engine)) {
    // The context does not matter for max_num_seqs.
    return vllm_step_defaults(gpu.engine_memory_bytes(), gpu.name, 0, vllm_minor_of(e, at + 4), gpu.unified_memory())
        .max_num_seqs;
  }
  return 0;
}

// The batch a replica runs with `per_replica` requests in flight: at most the engine's own cap
// (engine_cap; 0: none), which holds the rest in its queue (vLLM's max_num_seqs: a concurrency-512
// run on a 256-sequence engine steps 256 at a time).
std::uint64_t in_flight(std::uint64_t per_replica, std::uint64_t engine_cap) {
  return engine_cap > 0 ? std::min(per_replica, engine_cap) : per_replica;
}

// A measurement with speculative decoding (EAGLE, Medusa, MTP, a draft model) emits several
// tokens per pass over the weights: neither the estimate nor the roofline, which bounds one
// token per sequence and pass, describes it. Named by a field of its own (any value but an
// "off" one) or by the engine text.
constexpr std::array kSpeculativeKeys{std::string_view("speculative"), std::string_view("speculative_decoding"),
                                      std::string_view("speculative_config"), std::string_view("speculative_model"),
                                      std::string_view("spec_decoding"), std::string_view("draft_model"),
                                      std::string_view("num_speculative_tokens"), std::string_view("mtp")};

bool speculative_row(const Json& row) {
  const auto off = [](const Json& v) {
    if (v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_number() && !(std::abs(v.get<double>()) > 0.0))) {
      return true;
    }
    if (v.is_string()) {
      const std::string t = lower(trimmed(v.get<std::string>()));
      for (std::string_view word : {"none", "off", "no", "false", "disabled", "0", "baseline", "n/a"}) {
        if (t == word) {
          return true;
        }
      }
      return t.empty() || t.starts_with("w/o") || t.starts_with("without") || t.starts_with("no ");
    }
    return false;
  };
  for (const auto& [key, value] : row.items()) {
    if (std::find(kSpeculativeKeys.begin(), kSpeculativeKeys.end(), lower(key)) != kSpeculativeKeys.end() &&
        !off(value)) {
      return true;
    }
  }
  const auto engine = row.find("engine");
  if (engine != row.end() && engine->is_string()) {
    const std::string e = lower(engine->get<std::string>());
    for (std::string_view word : {"eagle", "medusa", "speculative", "mtp", "draft model", "lookahead"}) {
      if (e.find(word) != std::string::npos) {
        return true;
      }
    }
  }
  return false;
}

// Fields a row may set for an engine run without CUDA graphs (vLLM's enforce_eager, SGLang's
// disable_cuda_graph), and the same flags in the engine's text.
constexpr auto kEagerKeys = std::to_array<std::string_view>({"enforce_eager", "disable_cuda_graph"});
constexpr auto kEagerFlags = std::to_array<std::string_view>({"--enforce-eager", "--disable-cuda-graph"});

bool eager_row(std::string_view engine, detail::ObjectReader& r) {
  for (const FlagWord& w : flag_words(engine)) {
    const std::string_view flag = engine.substr(w.begin, w.end - w.begin);
    if (std::find(kEagerFlags.begin(), kEagerFlags.end(), flag) != kEagerFlags.end()) {
      return true;
    }
  }
  bool eager = false;
  for (std::string_view key : kEagerKeys) {
    if (const Json* v = r.value(key); v != nullptr && !v->is_null()) {
      if (!v->is_boolean()) {
        r.fail(key, fmt::format("expected true or false, got {}", v->dump()));
      }
      eager = eager || v->get<bool>();
    }
  }
  return eager;
}

// Engine settings a row may state, each under the names TensorRT-LLM, vLLM and SGLang give it:
// each changes the answer, so each is read (never ignored) and a row may give only one name.
constexpr auto kAttentionDpKeys = std::to_array<std::string_view>({"attention_dp", "enable_attention_dp"});
constexpr auto kBatchKeys = std::to_array<std::string_view>({"max_batch_size", "max_num_seqs", "max_running_requests"});
constexpr auto kShareKeys =
    std::to_array<std::string_view>({"kv_cache_free_gpu_mem_fraction", "gpu_memory_utilization", "mem_fraction_static"});
constexpr auto kStepTokenKeys =
    std::to_array<std::string_view>({"max_num_tokens", "max_num_batched_tokens", "chunked_prefill_size"});
// Each answer's cap, as the benchmark client sends it: the OpenAI-style request's max_tokens (vLLM's
// bench serve, genai-perf, most harnesses), SGLang's native max_new_tokens.
constexpr auto kOutputCapKeys = std::to_array<std::string_view>({"max_tokens", "max_new_tokens"});
// The rest a throughput row may carry: read above, or words about the row.
constexpr auto kReadKeys = std::to_array<std::string_view>(
    {"kind", "engine", "model", "gpu", "parallelism", "num_gpus", "precision", "kv_cache_dtype", "isl", "osl",
     "output_tokens_per_s", "output_tokens_per_s_per_gpu", "concurrency", "num_requests", "source", "sources",
     "metric_note", "note", "notes", "added", "system", "date", "measured_tpot_ms", "measured_ttft_ms", "output_lengths",
     "cached_input_tokens"});

// The one key of `keys` the row states (not null), or nullptr; two of them is an error.
template <std::size_t N>
const char* stated(const detail::ObjectReader& r, const std::array<std::string_view, N>& keys) {
  const char* found = nullptr;
  for (std::string_view key : keys) {
    if (r.has(key)) {
      if (found != nullptr) {
        r.fail(key, fmt::format("give one of {} and {}, not both", found, key));
      }
      found = key.data();
    }
  }
  return found;
}

// The engine's batch cap, memory share and step tokens a row states (kBatchKeys, kShareKeys,
// kStepTokenKeys): a stated cap replaces the engine's default and caps a concurrency.
void read_engine_settings(detail::ObjectReader& r, Benchmark& b, std::uint64_t concurrency) {
  if (const char* key = stated(r, kBatchKeys)) {
    // TensorRT-LLM's cap is per micro-batch: a replica holds PP of them.
    const std::uint64_t cap = r.integer(key, 1, Benchmark::kMaxRequests) * (b.tensorrt_llm ? b.layout.pp : 1);
    if (b.scenario == "server") {
      b.max_batch = std::min(concurrency, cap);
    } else if (b.tensorrt_llm && b.max_batch == 0) {
      b.trtllm_max_batch = cap;  // with TensorRT-LLM's KV arithmetic and trtllm-bench's rule
    } else {
      b.max_batch = cap;
    }
  }
  if (const char* key = stated(r, kShareKeys)) {
    const bool trtllm_key = std::string_view(key) == kShareKeys[0];
    if (trtllm_key != b.tensorrt_llm) {
      r.fail(key, trtllm_key ? "TensorRT-LLM's setting, and the row's engine is not TensorRT-LLM"
                             : "a vLLM or SGLang setting, and the row's engine is TensorRT-LLM "
                               "(kv_cache_free_gpu_mem_fraction is its share)");
    }
    b.memory_share = r.number_in(key, 0.01, 1.0);
  }
  if (const char* key = stated(r, kStepTokenKeys)) {
    b.step_tokens = r.integer(key, 1, 1u << 24);
  }
}

// A stated cap on each answer: the spread of lengths about the mean osl is cut there. A mean at or
// above it is no spread such a cap leaves; the uniform class spans 0 to twice osl, uncut.
void read_output_cap(detail::ObjectReader& r, const char* key, Benchmark& b) {
  const std::uint64_t cap = r.integer(key, 1, 1u << 24);
  const std::uint64_t osl = b.output_tokens;
  switch (b.output_lengths) {
    case OutputLengths::fixed:
      if (osl > cap) {
        r.fail(key, fmt::format("expected at least osl ({}): every answer ends by {} tokens", osl, cap));
      }
      break;
    case OutputLengths::exponential:
      if (osl >= cap) {
        r.fail(key, fmt::format("expected above osl ({}): natural answers cut at {} average below it; a mean at "
                                "the cap is every answer at it (output_lengths fixed)",
                                osl, cap));
      }
      break;
    case OutputLengths::uniform:
      if (cap < 2 * osl) {
        r.fail(key, fmt::format("expected at least twice osl ({}): uniform lengths run from 0 to {}, and a cut "
                                "below that is not modelled",
                                2 * osl, 2 * osl));
      }
      break;
  }
  b.max_output_tokens = cap;
}

// Keys no reader above takes, with the rows that carry them: said in a note, not guessed at.
void count_unread(const Json& row, std::map<std::string, int>& unread) {
  const auto in = [](const auto& keys, const std::string& key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  for (const auto& [key, value] : row.items()) {
    if (!in(kReadKeys, key) && !in(kAttentionDpKeys, key) && !in(kBatchKeys, key) && !in(kShareKeys, key) &&
        !in(kStepTokenKeys, key) && !in(kOutputCapKeys, key) && !in(kSpeculativeKeys, lower(key)) && !in(kEagerKeys, key)) {
      ++unread[key];
    }
  }
  // Flags written into the engine's text ("vLLM 0.9.1 (--enforce-eager)") change the run as much
  // as a field does, and are read no more.
  const auto engine = row.find("engine");
  if (engine == row.end() || !engine->is_string()) {
    return;
  }
  const std::string& text = engine->get_ref<const std::string&>();
  std::set<std::string> flags;  // a flag written twice is one setting of one row
  for (const FlagWord& w : flag_words(text)) {
    flags.insert(text.substr(w.begin, w.end - w.begin));
  }
  // A flag whose setting the row also states as a field is read there (--gpu-memory-utilization
  // beside gpu_memory_utilization, --max-num-seqs beside max_running_requests); the eager flags
  // are read (eager_row).
  const auto as_field = [&row, &in](const std::string& flag) {
    const std::size_t name = flag.find_first_not_of('-');
    if (name == std::string::npos) {
      return false;
    }
    std::string key = flag.substr(name);
    std::replace(key.begin(), key.end(), '-', '_');
    key = lower(key);
    const auto row_has_one = [&row](const auto& keys) {
      return std::any_of(keys.begin(), keys.end(), [&row](std::string_view k) {
        const auto v = row.find(std::string(k));
        return v != row.end() && !v->is_null();
      });
    };
    for (const auto* keys : {&kShareKeys, &kBatchKeys, &kStepTokenKeys}) {
      if (in(*keys, key) && row_has_one(*keys)) {
        return true;
      }
    }
    // Flags whose meaning a row field carries (meas-nvidia and meas-amd s56: "--tp-size (4 rows)"
    // was listed as left out although `parallelism` gave TP 4): the layout's degrees, expert
    // parallelism where `parallelism` names an EP degree, the model, the benchmark client's
    // lengths, counts and concurrency, the KV cache's format, and --ignore-eos where the lengths are fixed (the
    // reading without `output_lengths`).
    static constexpr auto kLayoutFlags = std::to_array<std::string_view>(
        {"tp", "tp_size", "tensor_parallel_size", "pp", "pp_size", "pipeline_parallel_size", "dp", "dp_size",
         "data_parallel_size", "ep", "ep_size", "expert_parallel_size", "moe_ep_size", "world_size", "nproc_per_node"});
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kClientFlags{{
        {"model", "model"},
        {"model_path", "model"},
        {"num_prompts", "num_requests"},
        {"max_concurrency", "concurrency"},
        {"input_len", "isl"},
        {"random_input_len", "isl"},
        {"output_len", "osl"},
        {"random_output_len", "osl"},
        {"max_tokens", "max_tokens"},
        {"kv_cache_dtype", "kv_cache_dtype"},
    }};
    const auto field = [&row](std::string_view k) {
      const auto v = row.find(std::string(k));
      return v != row.end() && !v->is_null() ? &*v : nullptr;
    };
    if (in(kLayoutFlags, key)) {
      return field("parallelism") != nullptr;
    }
    for (const auto& [flag_key, field_key] : kClientFlags) {
      if (key == flag_key && field(field_key) != nullptr) {
        return true;
      }
    }
    if (key == "enable_expert_parallel" || key == "enable_ep_moe") {
      const Json* layout = field("parallelism");
      if (layout != nullptr && layout->is_string()) {
        const std::string degrees = lower(layout->get<std::string>());
        for (std::size_t at = degrees.find("ep"); at != std::string::npos; at = degrees.find("ep", at + 1)) {
          if (at + 2 < degrees.size() && std::isdigit(static_cast<unsigned char>(degrees[at + 2])) != 0) {
            return true;
          }
        }
      }
      return false;
    }
    if (key == "ignore_eos") {
      const Json* lengths = field("output_lengths");
      return lengths == nullptr || (lengths->is_string() && lengths->get<std::string>() == "fixed");
    }
    return (in(kAttentionDpKeys, key) || key == "enable_dp_attention") && row_has_one(kAttentionDpKeys);
  };
  for (const std::string& flag : flags) {
    if (!in(kEagerFlags, flag) && !as_field(flag)) {
      ++unread["engine's " + flag];
    }
  }
}

}  // namespace

bool is_measurement_file(std::string_view text) {
  // Cheap check on the text first: most benchmark files are the catalog format.
  if (text.find("\"measured\"") == std::string_view::npos) {
    return false;
  }
  try {
    const Json root = detail::parse_json_text(text, "");
    return root.is_object() && root.contains("measured") && root["measured"].is_array();
  } catch (const InputError&) {
    return false;
  }
}

MeasurementFile read_measurement_file(const Catalog& catalog, std::string_view text, std::string_view origin_view) {
  // Names resolved before a row fails leave notes in the catalog: a failed read drops them rather
  // than handing them to the next reader's caller.
  struct DropNotesOnThrow {
    const Catalog& catalog;
    int pending = std::uncaught_exceptions();
    ~DropNotesOnThrow() {
      if (std::uncaught_exceptions() > pending) {
        (void)catalog.take_notes();
      }
    }
  } guard{catalog};
  const std::string origin(origin_view);
  const Json root = detail::parse_json_text(text, origin);
  detail::ObjectReader top(root, origin, JsonPointer());
  static constexpr std::array kKeys{std::string_view("note"), std::string_view("measured"),
                                    std::string_view("mlperf"), std::string_view("schema_version")};
  top.reject_unknown(kKeys);
  MeasurementFile out;
  const Json* measured = top.value("measured");
  if (measured == nullptr || !measured->is_array()) {
    top.fail("measured", "expected an array of measurements");
  }
  std::map<std::string, int> skipped_kinds;
  std::size_t speculative = 0;
  std::vector<std::array<std::string, 4>> distinctions;  // per row read: engine, concurrency, requests, KV format
  std::map<std::string, int> unread;  // keys no reader takes: rows carrying each
  int experts_over_tp = 0;            // MoE rows without EP whose engine splits each expert by TP
  int experts_over_ep = 0;            // and those whose engine spreads the experts (EP = TP)
  int attention_dp_experts = 0;       // attention-DP rows without EP: experts read as EP = TP
  std::map<std::array<std::string, 3>, int> release_formats;  // label, model, release format: rows
  std::map<std::array<std::string, 3>, int> weight_only_rows;  // label, GPU, missing units: rows
  int fp8_cache_rows = 0;                                       // quantized rows without a KV format
  for (std::size_t i = 0; i < measured->size(); ++i) {
    const JsonPointer at = JsonPointer("/measured") / i;
    detail::ObjectReader r((*measured)[i], origin, at);
    const std::string kind = trimmed(r.string("kind"));
    if (lower(kind) != "throughput") {
      ++skipped_kinds[kind];
      continue;
    }
    if (speculative_row((*measured)[i])) {
      ++speculative;
      continue;
    }
    count_unread((*measured)[i], unread);
    Benchmark b;
    b.origin = origin;
    // A row that is well formed but outside what gpuplan models is listed as refused (validate
    // checks the rest of the file); the first reason names its field.
    const auto refuse = [&b](std::string_view field, std::string why) {
      if (!b.refused) {
        b.refused = fmt::format("{}: {}", field, why);
      }
    };
    const auto unknown = [&r](const char* field, const char* what, const std::string& name, const auto& items) {
      // The row's model or GPU may be outside the built-in catalog: a catalog file defines it (meas-nvidia
      // s58 F4: three models missing from the catalog failed the file with no word of --catalog).
      const auto close = detail::closest_ids(std::string_view(what) == "model" ? without_owner(name) : name, items);
      throw UnknownNameError(fmt::format("{}: unknown {} '{}'{}; a catalog file given with --catalog FILE (its \"{}s\" "
                                         "list) defines one",
                                         r.where_of(field), what, name,
                                         close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")), field));
    };
    // An ambiguous name names the row and field, as an unknown one does.
    const auto resolved = [&r](const char* field, const auto& resolve) {
      try {
        return resolve();
      } catch (const InputError& e) {
        r.fail(field, e.what());
      }
    };
    const std::string model_name = trimmed(r.string("model"));
    const ModelSpec* model = resolved("model", [&] { return catalog.resolve_model(model_name); });
    if (model == nullptr) {
      unknown("model", "model", model_name, catalog.models());
    }
    const std::string gpu_name = trimmed(r.string("gpu"));
    const GpuSpec* gpu = resolved("gpu", [&] { return catalog.resolve_gpu(gpu_name); });
    if (gpu == nullptr) {
      unknown("gpu", "GPU", gpu_name, catalog.gpus());
    }
    b.model = model->id;
    b.gpu = gpu->id;

    const std::string parallelism = trimmed(r.string("parallelism"));
    const auto deg = degrees(parallelism, r);
    const auto degree = [&deg](const char* name) { return deg.contains(name) ? deg.at(name) : 1; };
    b.layout.tp = degree("tp");
    b.layout.pp = degree("pp");
    const std::uint64_t replica = b.layout.tp * b.layout.pp;
    const std::uint64_t gpus = r.optional_integer("num_gpus", 1, limits::kMaxGpus).value_or(replica * degree("dp"));
    if (gpus % replica != 0) {
      r.fail("num_gpus", fmt::format("{} GPUs are not a whole number of {} replicas", gpus, parallelism));
    }
    b.layout.dp = gpus / replica;
    const std::string engine = trimmed(r.optional_string("engine").value_or(""));
    b.layout.ep = deg.contains("ep") ? deg.at("ep")
                                     : (model->is_moe() ? default_expert_parallelism(engine, b.layout.tp) : 1);
    // TensorRT-LLM's enable_attention_dp: each TP rank runs attention on its own requests (TP8 is
    // then DP8 for attention; the experts keep their EP), as "DEP8" writes it.
    bool attention_dp = false;
    if (const char* key = stated(r, kAttentionDpKeys)) {
      if (r.boolean(key, false)) {
        if (!model->is_moe()) {
          refuse(key, fmt::format("attention data parallelism is modelled for MoE models only; {} is dense",
                                  model->id));
        }
        // The experts keep the TP group's split only as expert parallelism (TensorRT-LLM's DEP
        // layouts, the default when none is stated): EP below TP would be tensor-parallel experts
        // under attention DP, which is not modelled.
        if (!deg.contains("ep")) {
          b.layout.ep = std::max(b.layout.ep, b.layout.tp);
        }
        if (b.layout.ep < b.layout.tp) {
          refuse(key, fmt::format("attention data parallelism with EP {} below TP {}: tensor-parallel experts "
                                  "under attention DP are not modelled (give EP {})",
                                  b.layout.ep, b.layout.tp, b.layout.tp));
        }
        b.layout.dp *= b.layout.tp;
        b.layout.tp = 1;
        attention_dp = true;
      }
    }
    // Counted once attention DP has set the experts' split (a row's TP before it was moved to DP).
    if (model->is_moe() && !deg.contains("ep") && b.layout.ep * b.layout.tp > 1) {
      ++(attention_dp ? attention_dp_experts : b.layout.ep == 1 ? experts_over_tp : experts_over_ep);
    }
    if (gpus % b.layout.ep != 0 || (b.layout.ep > b.layout.tp && b.layout.ep % b.layout.tp != 0)) {
      refuse("parallelism", fmt::format("EP {} does not divide the {} GPUs into whole expert groups of TP {}",
                                        b.layout.ep, gpus, b.layout.tp));
    }
    if (const auto problem = layout_problem(b.layout, *model)) {
      refuse("parallelism", *problem);
    }

    // The precision as tables write it ("FP8", "NVFP4", "BF16", "W4A16", "AWQ INT4"); without one, the
    // format a quantized checkpoint's name states ("nvidia/Llama-3.3-70B-Instruct-FP8").
    // Without either, a model published only quantized runs in the format of the bulk of its
    // published weights (gpt-oss: its MXFP4 experts; DeepSeek-V3: FP8), with the 16-bit KV cache
    // engines default to for it; a 16-bit release states nothing about the run.
    std::optional<std::string> written = r.optional_string("precision");
    if (written) {
      written = trimmed(*written);
    }
    const std::string precision = lower(written.value_or(""));
    if (precision == "mixed" || precision == "mixed precision") {
      r.fail("precision", fmt::format("'{}' names no single format; give the format the weights ran in (FP16, "
                                      "BF16, FP8, FP4, ...)",
                                      *written));
    }
    if (const auto named = written ? format_of_precision(precision) : read_checkpoint_name(model_name).format) {
      b.weights_dtype = named->element;
      b.weight_only_int8 = named->element == DType::int8 && named->activation_bits == 16;
    } else if (written) {
      b.weights_dtype = parse_dtype(precision, r.where_of("precision"));
    } else if (const auto shipped = shipped_main_format(*model); shipped && is_quantized(*shipped)) {
      b.weights_dtype = *shipped;
    } else {
      r.fail("precision", "missing, and the model's name states no format (give \"FP8\", \"FP4\", \"BF16\", ...)");
    }
    // An 8-bit label on a model published only in 4 bits (gpt-oss's MXFP4 experts) on a GPU with
    // FP8 but no FP4 units names the GPU's column, not a checkpoint: engines run the release there
    // (TensorRT-LLM's perf overview on Hopper: the Triton MoE over MXFP4, KV cache "auto"). The
    // catalog's shipped format decides; a user's 4-bit-only entry is read the same way. On GPUs
    // without FP8 units either (an A100) no 8-bit weights exist to run there more than on Hopper:
    // the release too (Marlin's W4A16). With FP4 units it may be W4A8.
    if (const auto shipped = shipped_main_format(*model);
        written && shipped && is_quantized(*shipped) && element_bits(*shipped) <= 4.0 &&
        !gpu->dense_flop_per_s.contains("fp4") &&
        (b.weights_dtype == DType::fp8 || b.weights_dtype == DType::int8) && !read_checkpoint_name(model_name).format) {
      b.weights_dtype = *shipped;
      ++release_formats[{*written, model->id, std::string(to_string(*shipped))}];
    }
    if (const auto shipped = shipped_main_format(*model);
        shipped && is_quantized(*shipped) && b.weights_dtype == *shipped && !b.weight_only_int8) {
      b.shipped_formats = true;
    }
    // The KV cache's format is rarely in a results table: ModelOpt's FP8 and NVFP4 checkpoints
    // carry an FP8 cache where the GPU has FP8 units; 16-bit weights keep a 16-bit cache.
    const auto kv = r.optional_string("kv_cache_dtype");
    const bool fp8_units = gpu->dense_flop_per_s.contains("fp8");
    b.kv_dtype = kv ? parse_kv_dtype(lower(trimmed(*kv)), r.where_of("kv_cache_dtype"))
                    : (is_quantized(b.weights_dtype) && fp8_units && !b.shipped_formats ? DType::fp8
                       : b.weights_dtype == DType::fp16 ? DType::fp16
                                                        : DType::bf16);
    // perf and fit take a 16-bit cache unless told: said, so the same request there gives the
    // same figures (meas-nvidia s56 F6: an NVFP4 row's roofline was 14,725 tok/s in validate and
    // 10,230 in perf without --kv-dtype fp8, 14,725 with it).
    if (!kv && b.kv_dtype == DType::fp8) {
      ++fp8_cache_rows;
    }
    // FP8 or FP4 weights on a GPU without those tensor cores ran weight-only, their GEMMs in 16
    // bits, as perf times them (perf.cpp compute_type_for): vLLM's Fp8LinearMethod and its MoE
    // take the Marlin kernel "for GPUs that lack FP8 hardware support" (use_marlin = not
    // has_device_capability(89); vllm-project/vllm vllm/model_executor/layers/quantization/fp8.py
    // @1436674b), and FP4 checkpoints the same way (W4A16 Marlin). A GPU no engine runs them on
    // (before Ampere) is refused by the fit and listed, not failed.
    const char* native = b.weights_dtype == DType::fp8 ? "fp8" : b.weights_dtype == DType::fp4 ? "fp4" : nullptr;
    if (native != nullptr && !gpu->dense_flop_per_s.contains(native)) {
      ++weight_only_rows[{written.value_or(std::string(to_string(b.weights_dtype))), gpu->id, native}];
    }

    b.input_tokens = r.integer("isl", 1, 1ull << 32);
    b.output_tokens = r.integer("osl", 1, 1ull << 32);
    // Prompt tokens served from the engine's prefix cache (a sweep resending one seed's prompts
    // to the same server); prefill computes the rest. Below isl: the last token is always computed.
    b.cached_input_tokens = r.optional_integer("cached_input_tokens", 0, b.input_tokens - 1).value_or(0);
    // The whole run's output tokens per second, or per GPU as newer perf overviews print them.
    const bool per_gpu = r.has("output_tokens_per_s_per_gpu");
    if (per_gpu == r.has("output_tokens_per_s")) {
      r.fail(per_gpu ? "output_tokens_per_s_per_gpu" : "output_tokens_per_s",
             per_gpu ? "give output_tokens_per_s (the whole run) or output_tokens_per_s_per_gpu, not both"
                     : "missing required field (or output_tokens_per_s_per_gpu, per GPU)");
    }
    b.output_tokens_per_s = per_gpu ? r.number_in("output_tokens_per_s_per_gpu", 1e-3, 1e9) * static_cast<double>(gpus)
                                    : r.number_in("output_tokens_per_s", 1e-3, 1e9);  // the catalog benchmarks' floor
    if (const auto tpot_ms = r.optional_number_in("measured_tpot_ms", 1e-3, 1e6)) {
      b.measured_tpot_s = *tpot_ms * 1e-3;
    }
    if (const auto ttft_ms = r.optional_number_in("measured_ttft_ms", 1e-3, 1e7)) {
      b.measured_ttft_s = *ttft_ms * 1e-3;
    }
    b.scenario = "max-load";
    b.max_batch = engine_cap(engine, *gpu);
    b.tensorrt_llm = is_tensorrt_llm(engine);
    b.engine = engine;
    b.vllm = names_vllm_first(engine);
    b.eager = eager_row(engine, r);
    if (b.vllm) {
      const std::string e = lower(engine);
      b.vllm_minor_version = vllm_minor_of(e, e.find("vllm") + 4);
    }
    std::uint64_t concurrency = 0;  // per replica, when the row gives a number
    if (const Json* c = r.value("concurrency"); c != nullptr && c->is_number()) {
      // A fixed number of requests in flight over the replicas: that is the batch (64.0 is 64).
      const double requests = c->get<double>();
      if (!(requests >= 1 && requests <= 100'000'000) || std::floor(requests) < requests) {
        r.fail("concurrency", fmt::format("expected a whole number of requests from 1 to 100000000, got {}", c->dump()));
      }
      concurrency = (static_cast<std::uint64_t>(requests) + b.layout.dp - 1) / b.layout.dp;
      b.max_batch = in_flight(concurrency, b.max_batch);
      b.scenario = "server";
    } else if (c != nullptr && c->is_string()) {
      // "64" or "64 requests" is a number; a description ("max load") is max load; anything else
      // that starts like a number ("1,000", "64.5", "-5", "~64") is refused, not guessed at.
      const std::string described = trimmed(c->get<std::string>());
      const bool starts_numeric = !described.empty() && std::string_view("0123456789-+~.").find(described[0]) != std::string_view::npos;
      if (starts_numeric) {
        const std::size_t digits = described.find_first_not_of("0123456789");
        const bool plain = digits != 0 && (digits == std::string::npos || described[digits] == ' ');
        const std::string number = described.substr(0, digits);
        if (!plain || number.size() > 9 || std::stoull(number) < 1 || std::stoull(number) > 100'000'000) {
          r.fail("concurrency",
                 fmt::format("expected a whole number of requests from 1 to 100000000, got '{}'", described));
        }
        concurrency = (std::stoull(number) + b.layout.dp - 1) / b.layout.dp;
        b.max_batch = in_flight(concurrency, b.max_batch);
        b.scenario = "server";
      }
    } else if (c != nullptr) {
      r.fail("concurrency", "expected a number of requests or a description such as \"max load\"");
    }
    // The run's dataset (bench_settings.hpp): the row's own count, or for trtllm-bench queued at
    // max load, the size its perf overview states for these lengths.
    const bool trtllm_bench_max_load = b.scenario == "max-load" && b.max_batch == 0 && is_trtllm_bench(engine);
    b.requests = r.optional_integer("num_requests", 1, Benchmark::kMaxRequests)
                     .value_or(trtllm_bench_max_load ? trtllm_bench_requests(b.input_tokens, b.output_tokens) : 0);
    if (const auto lengths = r.optional_string("output_lengths")) {
      static constexpr std::array kLengths{std::pair{"fixed", OutputLengths::fixed},
                                           std::pair{"uniform", OutputLengths::uniform},
                                           std::pair{"exponential", OutputLengths::exponential}};
      const auto it = std::find_if(kLengths.begin(), kLengths.end(), [&](const auto& k) { return *lengths == k.first; });
      if (it == kLengths.end()) {
        r.fail("output_lengths", fmt::format("expected fixed, uniform (0 to twice osl) or exponential (natural answers "
                                             "such as ShareGPT's, mean osl), got '{}'",
                                             *lengths));
      }
      b.output_lengths = it->second;
    }
    if (const char* key = stated(r, kOutputCapKeys)) {
      read_output_cap(r, key, b);
    }
    read_engine_settings(r, b, concurrency);
    b.concurrency = concurrency;
    b.calibrate = !b.refused;
    if (const auto source = r.optional_string("source")) {
      b.sources.push_back(*source);
    }
    b.sources.push_back(fmt::format("{}: {}", origin, at.to_string()));
    b.notes = engine;
    std::string id = lower(fmt::format("{}-{}-{}-{}{}-isl{}-osl{}", b.model,
                                       precision.empty() ? to_string(b.weights_dtype) : precision, b.gpu, parallelism,
                                       attention_dp ? "-attention-dp" : "", b.input_tokens, b.output_tokens));
    std::replace_if(id.begin(), id.end(), [](char ch) { return ch == ' ' || ch == ',' || ch == '/'; }, '-');
    // What tells rows of one id apart (named after the loop): the engine, the concurrency, the
    // requests, as the row writes them.
    const auto slug = [](const std::string& label) {
      std::string part = lower(trimmed(label.substr(0, label.find_first_of("(,;"))));
      std::replace_if(part.begin(), part.end(), [](char ch) { return ch == ' ' || ch == '/'; }, '-');
      return part;
    };
    const Json* clients = r.value("concurrency");
    const auto sent = r.optional_integer("num_requests", 1, Benchmark::kMaxRequests);
    distinctions.push_back({slug(engine),
                            clients != nullptr && clients->is_number()   ? fmt::format("c{}", clients->dump())
                            : clients != nullptr && clients->is_string() ? "c" + slug(clients->get<std::string>())
                                                                         : "",
                            sent ? fmt::format("n{}", *sent) : "",
                            "kv-" + std::string(to_string(b.kv_dtype))});
    b.id = id;
    out.benchmarks.push_back(std::move(b));
  }
  // Rows of one id (meas-amd s56: "glm-4.5-air-bf16-h100-sxm-tp4-isl214-osl200#2", vLLM's or
  // SGLang's?): each of engine, concurrency, requests and KV-cache format that differs among them
  // joins each id (only the first once did: meas-nvidia s59 read TensorRT-LLM's row apart from
  // vLLM's, then numbered vLLM's c4..c32 and FP8-cache rows #2..#8); rows still alike are
  // numbered (#2, #3).
  std::map<std::string, std::vector<std::size_t>> by_id;
  for (std::size_t i = 0; i < out.benchmarks.size(); ++i) {
    by_id[out.benchmarks[i].id].push_back(i);
  }
  for (const auto& [id, rows] : by_id) {
    if (rows.size() < 2) {
      continue;
    }
    for (std::size_t part = 0; part < 4; ++part) {
      const std::string& first = distinctions[rows.front()][part];
      const bool differs = std::any_of(rows.begin(), rows.end(), [&](std::size_t i) {
        return distinctions[i][part] != first;
      });
      if (differs) {
        for (std::size_t i : rows) {
          if (!distinctions[i][part].empty()) {
            out.benchmarks[i].id += "-" + distinctions[i][part];
          }
        }
      }
    }
    std::map<std::string, int> repeats;
    for (std::size_t i : rows) {
      const int repeat = ++repeats[out.benchmarks[i].id];
      if (repeat > 1) {
        out.benchmarks[i].id += fmt::format("#{}", repeat);
      }
    }
  }
  // Each name read once (a file repeats its GPU and model on every row).
  for (std::string& note : catalog.take_notes()) {
    if (std::find(out.notes.begin(), out.notes.end(), note) == out.notes.end()) {
      out.notes.push_back(std::move(note));
    }
  }
  for (const auto& [kind, count] : skipped_kinds) {
    out.notes.push_back(fmt::format("{}: {} '{}' row{} not read (only throughput measurements are checked)", origin,
                                    count, kind, count == 1 ? "" : "s"));
  }
  if (!unread.empty()) {
    std::vector<std::string> fields;
    for (const auto& [key, rows] : unread) {
      fields.push_back(fmt::format("{} ({} row{})", key, rows, rows == 1 ? "" : "s"));
    }
    out.notes.push_back(fmt::format("{}: field{} not read, left out of the estimate: {}", origin,
                                    unread.size() == 1 ? "" : "s", fmt::join(fields, ", ")));
  }
  for (const auto& [what, rows] : release_formats) {
    out.notes.push_back(fmt::format("{}: {} '{}' row{} of {} read as its release, {} (published only so: no 8-bit "
                                    "weights exist to run; a 16-bit KV cache unless the row gives one)",
                                    origin, rows, what[0], rows == 1 ? "" : "s", what[1], what[2]));
  }
  for (const auto& [what, rows] : weight_only_rows) {
    out.notes.push_back(fmt::format("{}: {} '{}' row{} on {} read as weight-only ({} weights, 16-bit GEMMs: no {} "
                                    "tensor cores there; vLLM runs such checkpoints on its Marlin kernels), as "
                                    "perf times them",
                                    origin, rows, what[0], rows == 1 ? "" : "s", what[1], what[2], what[2]));
  }
  if (fp8_cache_rows > 0) {
    // vLLM's --kv-cache-dtype auto resolves to a ModelOpt checkpoint's kv_cache_quant_algo
    // (resolve_kv_cache_dtype_string, vllm-project/vllm vllm/utils/torch_utils.py @959009b4);
    // TensorRT-LLM takes it from the checkpoint as well.
    out.notes.push_back(fmt::format("{}: {} row{} with quantized weights and no kv_cache_dtype read with an fp8 KV "
                                    "cache, as ModelOpt's FP8 and NVFP4 checkpoints carry it; perf and fit take a "
                                    "16-bit cache unless given --kv-dtype fp8 (or give the row's kv_cache_dtype)",
                                    origin, fp8_cache_rows, fp8_cache_rows == 1 ? "" : "s"));
  }
  if (experts_over_tp > 0) {
    out.notes.push_back(fmt::format("{}: {} MoE row{} without EP: each expert split over the TP group (EP 1), as "
                                    "vLLM, SGLang and TensorRT-LLM before v1.0 do unless asked for expert parallelism",
                                    origin, experts_over_tp, experts_over_tp == 1 ? "" : "s"));
  }
  if (experts_over_ep > 0) {
    out.notes.push_back(fmt::format("{}: {} MoE row{} without EP: experts spread over the TP group (EP = TP), as "
                                    "TensorRT-LLM's perf overview runs them from v1.0 (--ep)",
                                    origin, experts_over_ep, experts_over_ep == 1 ? "" : "s"));
  }
  if (attention_dp_experts > 0) {
    out.notes.push_back(fmt::format("{}: {} attention-DP MoE row{} without EP: experts spread over the ranks (EP = "
                                    "their count), as TensorRT-LLM's DEP layouts run them; SGLang without "
                                    "--ep-size splits each expert over the ranks instead, which is not modelled "
                                    "(the same weights and FLOPs per GPU; its reduce-scatter and all-gather are "
                                    "timed as the all-to-all)",
                                    origin, attention_dp_experts, attention_dp_experts == 1 ? "" : "s"));
  }
  if (speculative > 0) {
    out.notes.push_back(fmt::format("{}: {} speculative-decoding row{} not read (several tokens per pass over the "
                                    "weights: neither the estimate nor the roofline models it)",
                                    origin, speculative, speculative == 1 ? "" : "s"));
  }
  if (const Json* mlperf = top.value("mlperf"); mlperf != nullptr && mlperf->is_array() && !mlperf->empty()) {
    out.notes.push_back(fmt::format("{}: {} MLPerf row{} not read (their inputs are dataset caps; the shipped "
                                    "benchmarks carry the ones gpuplan checks)",
                                    origin, mlperf->size(), mlperf->size() == 1 ? "" : "s"));
  }
  if (out.benchmarks.empty()) {
    top.fail("measured", speculative > 0 ? "no throughput measurements without speculative decoding"
                                         : "no throughput measurements (rows of \"kind\": \"throughput\")");
  }
  return out;
}

}  // namespace gpuplan
