// Configs whose layers gpuplan does not model (state-space, recurrent, hybrid) must fail with the
// field that says so, not import as a transformer with a wrong parameter count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {
using gpuplan::test::fixture;
}  // namespace

TEST_CASE("hf import: a state-space model_type is refused by name", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-state-space.json")),
                    Contains("/model_type") && Contains("\"mamba\""));
}

// Nemotron-H's Mamba2 layers are modeled (test_hf_mamba2_hybrids.cpp): a file with its layer
// pattern but without the Mamba2 sizes is refused for the first of them, not read as attention.
TEST_CASE("hf import: a Mamba2 layer pattern without the Mamba2 sizes is refused", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-hybrid-layers.json")),
                    Contains("/mamba_num_heads: missing"));
}

TEST_CASE("hf import: a hybrid whose state-space layers are not modeled is refused", "[hf]") {
  // Zamba2 (Mamba2 layers with a shared attention block) is not read.
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(
                        R"({"model_type": "zamba2", "hidden_size": 2560, "intermediate_size": 10240,
                            "num_hidden_layers": 54, "num_attention_heads": 32, "num_key_value_heads": 32,
                            "vocab_size": 32000, "max_position_embeddings": 4096, "mamba_d_state": 64,
                            "layers_block_type": ["mamba", "hybrid"]})",
                        "config.json"),
                    Contains("zamba2") && Contains("not modeled"));
}

TEST_CASE("hf import: layers sharing another layer's KV keep no cache of their own", "[hf]") {
  // Refused until session 59; now read (Gemma4TextAttention's kv_shared_layer_index): of 35 layers
  // the last 20 reuse the KV of the last earlier layer of their type and hold none. Without
  // layer_types, Gemma 4's default makes every sixth layer and the last full attention.
  const gpuplan::ModelSpec m = gpuplan::model_from_hf_config_file(fixture("bad-hf-kv-shared-layers.json"));
  CHECK(std::count(m.layer_reuses_kv.begin(), m.layer_reuses_kv.end(), true) == 20);
  // The first 15: 13 sliding layers of 1 KV head x 256, 2 full of 1 x 256 (no global_head_dim).
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(15.0 * 2 * 256 * 2));
}

namespace {
gpuplan::ModelSpec read_config(const std::string& text) { return gpuplan::model_from_hf_config(text, "config.json"); }
const std::string kShape = R"("hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24,
    "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 32000, "max_position_embeddings": 4096)";
// Each model_type, with every decoder field written, is refused at /model_type saying `what`.
void check_types_refused(std::initializer_list<const char*> types, const std::string& what) {
  for (const char* type : types) {
    INFO(type);
    CHECK_THROWS_WITH(read_config(fmt::format(R"({{"model_type": "{}", {}}})", type, kShape)),
                      Contains("/model_type") && Contains(what));
  }
}
}  // namespace

// Diffusion LMs denoise the whole sequence bidirectionally and keep no KV cache: planned as
// decoders Dream-v0-7B got 57,344 B/token of KV and a decode ITL (audit s45 F1). LLaDA was
// refused only for max_sequence_length and mlp_hidden_size, its own names for fields gpuplan
// reads. bad-hf-diffusion-llada.json is a 124,327,616-parameter LLaDA's config.json as printed in a
// SwanLab course document (code-search file id 1282028707, repository not named by the index).
TEST_CASE("hf import: a diffusion language model is refused as one, by type or class", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-diffusion-llada.json")),
                    Contains("/model_type") && Contains("\"llada\" is a diffusion language model") &&
                        Contains("no KV cache"));
  // Dream-v0-7B and DiffuCoder write model_type "Dream"; LLaDA-MoE and LLaDA 2.0 their own types.
  check_types_refused({"Dream", "lladamoe", "llada2_moe", "LLaDA"}, "diffusion language model");
  // Under a decoder's type, the class says it.
  CHECK_THROWS_WITH(read_config(R"({"model_type": "qwen2", "architectures": ["DreamModel"], )" + kShape + "}"),
                    Contains("/architectures/0: DreamModel") && Contains("diffusion"));
  // use_cache false and a mask token alone are a training checkpoint's, not a diffusion sign.
  CHECK_NOTHROW(read_config(R"({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "use_cache": false,
      "mask_token_id": 151666, )" + kShape + "}"));
}

// Encoder-only types outside the list were planned as decoders: ESM-2-650M 0.865 B (+33 %) with
// a 168,960 B/token KV cache, CLIP's text tower with an LM head (audit s45 F3).
// bad-hf-encoder-esm.json is facebook/esm2_t33_650M_UR50D's config.json reconstructed (not a copy).
TEST_CASE("hf import: encoder-only models are refused by type or by their class", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-encoder-esm.json")),
                    Contains("/model_type") && Contains("\"esm\" is an encoder-only model"));
  check_types_refused({"clip_text_model", "siglip", "wav2vec2", "hubert", "eurobert"}, "encoder-only");
  // CLIP keeps its text tower under text_config: the wrapper's type is refused, not read as an LM.
  CHECK_THROWS_WITH(read_config(R"({"model_type": "clip", "text_config": {"model_type": "clip_text_model", )" + kShape +
                         "}}"),
                    Contains("config.json: /model_type") && Contains("\"clip\""));
  // An unknown type whose class is an encoder's: a masked-LM or CTC head, an encoder class, or a
  // listed encoder's class under any task.
  for (const char* cls : {"EsmForMaskedLM", "Wav2Vec2ForCTC", "T5EncoderModel", "XLMRobertaModel",
                          "XLMRobertaForSequenceClassification", "NewModel"}) {
    INFO(cls);
    CHECK_THROWS_WITH(read_config(fmt::format(R"({{"model_type": "my_embedder", "architectures": ["{}"], {}}})", cls, kShape)),
                      Contains("/architectures/0") && Contains("model_type \"my_embedder\" is an encoder-only model"));
  }
  // A decoder's classifier and causal LM stay decoders.
  CHECK_NOTHROW(read_config(R"({"model_type": "llama", "architectures": ["LlamaForSequenceClassification"], )" + kShape + "}"));
  CHECK_NOTHROW(read_config(R"({"model_type": "ernie4_5", "architectures": ["Ernie4_5ForCausalLM"], )" + kShape + "}"));
}

// GLA was refused for num_attention_heads (it writes num_heads); with that field added by hand it
// planned 196,608 B/token of KV for a fixed-size state (audit s45 F4). bad-hf-linear-attention-gla.json
// is fla's GLAConfig() dump, the fla-hub/gla-1.3B-100B shape, from the flash-linear-attention
// README (code-search file id 5769715762).
TEST_CASE("hf import: linear-attention families are refused as such, not for a field", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-linear-attention-gla.json")),
                    Contains("/model_type") && Contains("\"gla\" is a linear-attention model"));
  check_types_refused({"retnet", "hgrn", "hgrn2", "gated_deltanet", "gsa"}, "linear-attention");
  // Under another type name, fla's key-projection ratio still says it.
  CHECK_THROWS_WITH(read_config(R"({"model_type": "my_gla", "attn_mode": "chunk", "expand_k": 0.5, )" + kShape + "}"),
                    Contains("/expand_k") && Contains("linear attention"));
}

// OpenELM writes model_dim and per-layer head counts and MLP multipliers: it was refused for a
// missing /hidden_size, and a user who added one got the real refusal only then (audit s46 F4).
// bad-hf-openelm-3b.json is apple/OpenELM-3B-Instruct's config.json as the auditor typed it from
// memory (not a copy); its per-layer lists are what matters here.
TEST_CASE("hf import: an unmodeled architecture is named before a missing size", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-openelm-3b.json")),
                    Contains("/model_type") && Contains("\"openelm\" sizes its heads and MLP layer by layer") &&
                        !Contains("hidden_size"));
  // Any type: a per-layer shape field is the refusal, not the sizes the file leaves out.
  CHECK_THROWS_WITH(read_config(R"({"model_type": "my_decoder", "num_hidden_layers": 2, "vocab_size": 32000,
                                    "num_key_value_heads_per_layer": [4, 8]})"),
                    Contains("/num_key_value_heads_per_layer") && !Contains("/hidden_size"));
  // Without such a field the missing size is still what is refused.
  CHECK_THROWS_WITH(read_config(R"({"model_type": "llama", "num_hidden_layers": 2})"),
                    Contains("/hidden_size: missing"));
}

// LFM2 lists its short-convolution layers in layer_types, and they are sized (test_hf_lfm2.cpp).
// Another type listing them (one not modeled; LFM2-MoE is since helper s54 tasks F6) is refused
// saying what they are (helper s47 F6), not only which layer kinds are allowed.
TEST_CASE("hf import: short-convolution layers of a type not modeled are refused as such", "[hf]") {
  std::string types = R"("conv")";
  for (int i = 1; i < 24; ++i) {
    types += i % 3 == 2 ? R"(, "full_attention")" : R"(, "conv")";
  }
  CHECK_THROWS_WITH(read_config(R"({"model_type": "lfm3", )" + kShape + R"(, "layer_types": [)" + types + "]}"),
                    Contains("/layer_types/0: \"conv\" layers (short convolutions of model_type \"lfm3\") are "
                             "not modeled"));
  CHECK_NOTHROW(read_config(R"({"model_type": "lfm2", )" + kShape + R"(, "layer_types": [)" + types + "]}"));
}

// A null is said to be null, not missing, and a NaN to be NaN (helper s49 F2); the default that
// is lacking is gpuplan's, not necessarily transformers' (helper s47 F6).
TEST_CASE("hf import: a null or NaN size is reported as such and the missing default as gpuplan's", "[hf]") {
  const std::string rest = R"("intermediate_size": 4096, "num_hidden_layers": 24, "num_attention_heads": 16,
      "vocab_size": 32000, "max_position_embeddings": 4096)";
  CHECK_THROWS_WITH(read_config(fmt::format(R"({{"model_type": "llama", "hidden_size": null, {}}})", rest)),
                    Contains("/hidden_size: null, and gpuplan knows no default for it for model_type \"llama\""));
  CHECK_THROWS_WITH(read_config(fmt::format(R"({{"model_type": "llama", "hidden_size": NaN, {}}})", rest)),
                    Contains("/hidden_size: Python's NaN literal is not a value gpuplan can read"));
  CHECK_THROWS_WITH(read_config(R"({"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text",
      "hidden_size": 1024, )" + rest.substr(0, rest.find("\"num_attention_heads\"")) +
                                R"("vocab_size": 32000, "max_position_embeddings": 4096}})"),
                    Contains("/text_config/num_attention_heads: missing, and gpuplan knows no default for it for "
                             "model_type \"qwen3_vl_text\""));
}
