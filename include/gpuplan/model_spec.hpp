#pragma once
// An LLM's architecture, with fields named as in Hugging Face config.json, and the parameter
// count computed from it (never typed in): embeddings + per-layer attention/MLP/norms + untied
// LM head; MoE active = everything but the routed experts not chosen for a token.

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gpuplan/weight_format.hpp>

namespace gpuplan {

/// Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds a compressed latent.
struct MlaSpec {
  std::uint64_t q_lora_rank = 0;        ///< 0: queries projected directly (no LoRA)
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t qk_nope_head_dim = 0;
  std::uint64_t qk_rope_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  /// DeepSeek-V3.2's sparse-attention indexer (0: none): a key of this width per token and layer,
  /// cached in fp8 with an fp32 scale per 128, and index_heads query heads.
  std::uint64_t index_head_dim = 0;
  std::uint64_t index_heads = 0;
  /// Layers that own an indexer (0: every layer). GLM-5.2/5.3's IndexShare: a "shared" layer
  /// reuses the previous indexer's top-k and has no indexer weights or keys of its own.
  std::uint64_t index_layers = 0;
  /// Engines cache the compressed latent (DeepSeek's MLA backends). False where they expand K and
  /// V per head and cache those, as plain attention of qk_nope + qk_rope wide heads with V padded
  /// to that width (vLLM's minicpm3.py): the model's head_dim and KV heads then say so.
  bool latent_cache = true;
  /// Bytes a token and layer of an engine's own fp8 latent record, where it has one (vLLM's and
  /// SGLang's fp8_ds_mla for sparse-attention MLA: 512 fp8 values, an fp32 scale per 128 and the
  /// 64 rope values in bf16, 656 bytes); 0: kv_lora_rank + rope at the KV dtype.
  std::uint64_t fp8_record_bytes = 0;
};

/// Mixture of experts (Mixtral, Qwen-MoE, DeepSeek, gpt-oss, GLM-4.5 styles).
struct MoeSpec {
  std::uint64_t routed_experts = 0;         ///< num_local_experts / num_experts / n_routed_experts
  std::uint64_t experts_per_token = 0;      ///< num_experts_per_tok
  std::uint64_t shared_experts = 0;         ///< n_shared_experts
  std::uint64_t expert_intermediate = 0;    ///< moe_intermediate_size (Mixtral: intermediate_size)
  std::uint64_t first_dense_layers = 0;     ///< first_k_dense_replace: leading layers with a dense MLP
  /// MoE on every layer_step-th layer (decoder_sparse_step, interleave_moe_layer_step): layer i
  /// is MoE when (i + 1) % layer_step == 0; the others have a dense MLP.
  std::uint64_t layer_step = 1;
  std::vector<std::uint64_t> dense_layers;  ///< mlp_only_layers: dense although the step says MoE
  std::uint64_t shared_expert_intermediate = 0;  ///< 0: expert_intermediate (Qwen2-MoE: its own width)
  bool shared_expert_gate = false;          ///< Qwen2-MoE: a hidden -> 1 gate on the shared expert
  /// The experts run beside a dense MLP of intermediate_size on every MoE layer, not instead of it
  /// (Gemma 4's enable_moe_block: Gemma4TextDecoderLayer adds both outputs), with three more
  /// norms a layer and a router with a norm scale and a scale per expert.
  bool beside_dense_mlp = false;
  /// LongCat-Flash's shortcut MoE: the experts run beside the dense MLP of their layer, with no
  /// norms or router scales of their own (beside_dense_mlp is Gemma 4's, which has them).
  bool shortcut = false;
  /// Zero-computation (identity) experts the router also picks among (LongCat-Flash's
  /// zero_expert_num): rows of the router and its score-correction bias, no weights. A token
  /// routed to them runs fewer than experts_per_token real experts.
  std::uint64_t zero_experts = 0;
  /// Latent MoE (Nemotron-3 Super/Ultra's moe_latent_size): the routed experts take and return
  /// vectors of this width, projected from and to the hidden width by fc1_latent_proj and
  /// fc2_latent_proj once a layer; the shared experts stay at the hidden width. 0: none.
  std::uint64_t latent_width = 0;
};

/// Layers with a fixed recurrent state per sequence instead of a per-token KV cache: Gated
/// DeltaNet (Qwen3-Next, Qwen3.5), Mamba2 (Nemotron-H, Granite-4.0-H, Falcon-H1) or LFM2's short
/// convolutions. The first two keep an
/// SSM state of value_heads x key_head_dim x value_head_dim and a convolution window over
/// 2 x key_heads x key_head_dim + value_heads x value_head_dim channels; a Mamba2 mixer is that
/// with key_heads = n_groups, key_head_dim = d_state, value_heads = its heads and value_head_dim
/// = its head_dim (vLLM MambaStateShapeCalculator.mamba2_state_shape: conv (intermediate +
/// 2 x n_groups x d_state) x (d_conv - 1), temporal n_heads x head_dim x d_state).
struct LinearAttentionSpec {
  /// short_conv: LFM2's gated short convolution (value_heads 1 of value_head_dim = its width, no
  /// keys): only a convolution window, no SSM state.
  /// mamba1: Jamba's Mamba layers (value_heads 1 of value_head_dim = the intermediate width,
  /// key_head_dim = d_state, no keys): an SSM state of intermediate x d_state and a conv window.
  /// lightning: MiniMax-Text-01's lightning (linear) attention (value_heads = its heads,
  /// key_head_dim = value_head_dim = head_dim, no keys, no convolution): a state of heads x
  /// head_dim x head_dim per sequence and layer.
  /// kda: Kimi Delta Attention (Kimi-Linear): key_heads = value_heads = num_heads, key_head_dim =
  /// value_head_dim = head_dim; separate q, k, v projections with their short convolutions,
  /// low-rank forget-gate and output-gate projections.
  enum class Kind { gated_deltanet, mamba2, short_conv, mamba1, lightning, kda };
  Kind kind = Kind::gated_deltanet;
  std::uint64_t key_heads = 0;        ///< linear_num_key_heads; Mamba2: n_groups
  std::uint64_t value_heads = 0;      ///< linear_num_value_heads; Mamba2: its heads
  std::uint64_t key_head_dim = 0;     ///< linear_key_head_dim; Mamba2: d_state
  std::uint64_t value_head_dim = 0;   ///< linear_value_head_dim; Mamba2: head_dim
  std::uint64_t conv_kernel = 0;      ///< linear_conv_kernel_dim; Mamba2: d_conv
  std::uint64_t dt_rank = 0;          ///< Mamba1: the time-step projection's rank
  bool conv_bias = false;             ///< Mamba2: the depthwise convolution has a bias
  bool proj_bias = false;             ///< Mamba2: in_proj has a bias
  bool out_proj_bias = false;         ///< Mamba2: out_proj has a bias
  bool gated_norm = true;             ///< Mamba2: a gated RMSNorm before out_proj (Falcon-H1: mamba_rms_norm)
  /// Bytes of one element of the recurrent (SSM) state: the config's mamba_ssm_dtype (Qwen3.5:
  /// float32, which vLLM follows), else the 16-bit model dtype. The convolution window is 16-bit.
  double ssm_state_element_bytes = 2.0;
  /// State elements per sequence and layer: the SSM state (value_heads x key_dim x value_dim)
  /// plus the convolution window (kernel - 1 positions of q, k and v).
  [[nodiscard]] double state_elements() const { return ssm_state_elements() + conv_state_elements(); }
  [[nodiscard]] double ssm_state_elements() const;
  [[nodiscard]] double conv_state_elements() const;
  /// The convolution window's bytes per sequence and layer (16-bit).
  [[nodiscard]] double conv_state_bytes() const;
  /// Bytes of that state per sequence and layer, each part at its own width.
  [[nodiscard]] double state_bytes() const;
};

/// An audio encoder (audio_config) of Whisper's layout: two convolutions over the mel bins, a
/// position table, pre-norm layers of biased attention and a GELU MLP, then a projector into
/// the text model. Counted in the encoders' part (WeightPart::vision).
struct AudioSpec {
  std::string model_type;
  std::uint64_t hidden_size = 0;        ///< d_model
  std::uint64_t intermediate_size = 0;  ///< encoder_ffn_dim
  std::uint64_t layers = 0;
  std::uint64_t mel_bins = 0;
  std::uint64_t positions = 0;          ///< max_source_positions
  std::uint64_t output_size = 0;        ///< the text model's hidden size
  /// Projector: one biased linear from the encoder (Qwen2-Audio), or two unbiased ones from
  /// `projector_input` (Voxtral: four frames stacked, then a square one; MiniCPM-o: two biased).
  std::uint64_t projector_input = 0;
  bool two_layer_projector = false;
  bool projector_biases = true;
  /// Gemma 4's conformer (Gemma4AudioModel) instead of Whisper's layout: per layer two
  /// feed-forward blocks of 4 x hidden, chunked attention with a relative-position key projection,
  /// a light convolution of conv_kernel taps; a two-convolution subsampler of subsampling channels
  /// before, an output projection to output_size and a projection into the text model after.
  bool conformer = false;
  std::uint64_t conv_kernel = 0;
  std::uint64_t heads = 0;
  std::array<std::uint64_t, 2> subsampling_channels{};
  std::uint64_t text_hidden = 0;  ///< conformer: the text model's width embed_audio projects to
  /// vLLM's own TP-parallel Whisper encoder (Voxtral) splits it; Qwen2-Audio's and MiniCPM-o's
  /// are transformers' modules, whole on every rank in vLLM and SGLang.
  bool split_over_tp = false;
};

/// A Perceiver resampler between a vision tower and the text model (Idefics2's perceiver_config):
/// `latents` learned queries attend to the projected patches through `layers` blocks of
/// grouped-query cross-attention (no biases) and a gated MLP, RMSNorms around them.
struct ResamplerSpec {
  std::uint64_t hidden_size = 0;       ///< the text model's hidden size (Idefics2Config forces it)
  std::uint64_t layers = 0;            ///< resampler_depth
  std::uint64_t heads = 0;             ///< resampler_n_heads
  std::uint64_t kv_heads = 0;          ///< num_key_value_heads
  std::uint64_t head_dim = 0;          ///< resampler_head_dim
  std::uint64_t latents = 0;           ///< resampler_n_latents
  std::uint64_t intermediate_size = 0; ///< the MLP's width (Idefics2: 4 x hidden_size)
};

/// A vision tower (multimodal configs' vision_config), counted as its own part.
struct VisionSpec {
  std::string model_type;
  std::uint64_t hidden_size = 0;
  std::uint64_t intermediate_size = 0;
  std::uint64_t layers = 0;
  std::uint64_t patch_size = 0;
  std::uint64_t image_size = 0;        ///< 0: no learned position table
  std::uint64_t output_size = 0;       ///< the projector's output (the text model's hidden size)
  std::uint64_t merge = 1;             ///< patches merged per side before the projector
  /// Idefics3's pixel shuffle (scale_factor): this many patches per side concatenated into the
  /// projector's input, with no merger before it.
  std::uint64_t shuffle = 1;
  std::uint64_t merger_intermediate = 0;  ///< GLM-4V: a projection and gated MLP after the downsample
  std::uint64_t temporal_patch = 1;    ///< frames per patch (Qwen-VL's Conv3d patch embedding)
  std::uint64_t position_rows = 0;     ///< learned position table rows stated as such (num_position_embeddings)
  std::uint64_t extra_mergers = 0;     ///< Qwen3-VL's deepstack mergers, one per deepstack_visual_indexes entry
  /// The connector is a gated MLP of this width (gate and up from the tower, down to output_size;
  /// Idefics2's modality_projection), not one matrix; 0: one matrix.
  std::uint64_t projector_intermediate = 0;
  /// The gated connector also has a LayerNorm on its input and biases (Aya Vision's
  /// AyaVisionMultiModalProjector: LayerNorm, linear_1 with bias, linear_2 with bias).
  bool projector_norm_and_biases = false;
  /// LLaVA's connector (transformers LlavaMultiModalProjector and its kin): linear_1 from the tower's
  /// width times `feature_layers` (the layers whose outputs it concatenates) to output_size, an
  /// activation, then linear_2 square on output_size; both biased when `projector_biases`.
  bool two_layer_projector = false;
  bool projector_biases = true;
  std::uint64_t feature_layers = 1;
  /// Mistral3PatchMerger: one matrix from merge x merge patches to the tower's width, no bias,
  /// before the projector (this many patches per side; 1: none).
  std::uint64_t patch_merger = 1;
  /// Vectors of the connector outside its matrices: a norm on its input (VipLlava's LayerNorm,
  /// Mistral 3's RMSNorm), LLaVA-NeXT's image_newline.
  std::uint64_t projector_vectors = 0;
  std::optional<ResamplerSpec> resampler;  ///< after the connector (Idefics2); unset: none
  bool gated_mlp = false;
  bool biases = true;
  bool estimated = true;               ///< the count follows a generic ViT layout
};

/// The parts a model's weights are counted (and quantized) by.
enum class WeightPart { embedding, lm_head, attention, dense_mlp, routed_experts, shared_experts, router, norms, vision };
inline constexpr std::size_t kWeightParts = 9;
std::string_view to_string(WeightPart part);

/// One format per part; biases, norms and other vectors stay in `vectors` (16-bit).
struct WeightFormats {
  std::array<WeightFormat, kWeightParts> parts{};
  DType vectors = DType::bf16;
  [[nodiscard]] WeightFormat& operator[](WeightPart p) { return parts[static_cast<std::size_t>(p)]; }
  [[nodiscard]] const WeightFormat& operator[](WeightPart p) const { return parts[static_cast<std::size_t>(p)]; }
  friend bool operator==(const WeightFormats& a, const WeightFormats& b) {
    // A fit compares its request's formats with those its figures were computed for once for
    // every layout it tries (some 30 a fit request): member by member that took 200 instructions,
    // the bytes at once a fifth. Every member is a 4-byte number, so no padding differs.
    if constexpr (std::has_unique_object_representations_v<WeightFormats>) {
      return std::memcmp(&a, &b, sizeof(WeightFormats)) == 0;
    } else {
      return a.parts == b.parts && a.vectors == b.vectors;
    }
  }
};

/// Another Hugging Face repository of a catalog model's architecture (a later release whose
/// config.json is the same: DeepSeek-V3.1-Terminus of DeepSeek-V3.1), resolved to the entry with
/// its note saying why.
struct ModelAlias {
  std::string hf_repo;               ///< "deepseek-ai/DeepSeek-V3.1-Terminus"
  std::string note;                  ///< why it is the same architecture
  std::vector<std::string> sources;  ///< where its config.json or model card says so
};

struct ModelSpec {
  std::string id;                  ///< catalog key, e.g. "llama-3.1-70b"
  std::string name;
  std::string hf_repo;
  std::vector<ModelAlias> aliases; ///< other repositories of this architecture
  std::vector<std::string> sources;
  std::string notes;
  std::string origin;              ///< catalog file or config.json the entry came from

  std::string model_type;          ///< HF model_type: decides biases and norms
  std::uint64_t hidden_size = 0;
  std::uint64_t num_hidden_layers = 0;
  std::uint64_t num_attention_heads = 0;
  /// Query heads per layer where they differ from layer to layer (Laguna's
  /// num_attention_heads_per_layer: 48 on full-attention layers, 72 on sliding ones); the KV heads
  /// stay num_key_value_heads. Empty = num_attention_heads on every layer.
  std::vector<std::uint64_t> layer_attention_heads;
  std::uint64_t num_key_value_heads = 0;
  std::uint64_t head_dim = 0;
  /// Head width and KV heads per layer where they differ from layer to layer (Gemma 4's
  /// full-attention layers: global_head_dim wide heads, num_global_key_value_heads of them with
  /// attention_k_eq_v). Empty = head_dim and num_key_value_heads on every layer.
  std::vector<std::uint64_t> layer_head_dim;
  std::vector<std::uint64_t> layer_kv_heads;
  /// Per layer: true where the layer attends over another layer's cached K and V (Gemma 3n/4's
  /// last num_kv_shared_layers): no K and V projections nor norms, and no cache of its own.
  /// Empty = none.
  std::vector<bool> layer_reuses_kv;
  /// Per layer: true where the keys are also the values (Gemma 4's attention_k_eq_v on
  /// full-attention layers): no V projection, but V is cached beside K. Empty = none.
  std::vector<bool> layer_value_is_key;
  /// Per layer: true where the layer computes no K and V of its own but attends over those of the
  /// layer before it (Hunyuan's cross-layer attention, use_cla: a follower layer has q_proj and
  /// o_proj only), while the engines still cache them in the layer's own slot (vLLM's and SGLang's
  /// HunYuanCrossAttention, an ENCODER_DECODER / RadixAttention layer of its own). Empty = none.
  std::vector<bool> layer_borrows_kv;
  std::uint64_t intermediate_size = 0;
  /// The dense MLP's width per layer where it differs (Gemma 4's use_double_wide_mlp: twice
  /// intermediate_size on the KV-sharing layers). Empty = intermediate_size on every layer.
  std::vector<std::uint64_t> layer_intermediate_size;
  /// Per-layer input embeddings (Gemma 3n/4's hidden_size_per_layer_input, PLE): a table of
  /// per_layer_input_vocab rows x (layers x this width), a projection from the hidden width to
  /// it with a norm, and in each layer a gate to and a projection from this width with a norm.
  /// 0: none.
  std::uint64_t per_layer_input_width = 0;
  std::uint64_t per_layer_input_vocab = 0;
  std::uint64_t vocab_size = 0;
  std::uint64_t max_position_embeddings = 0;  ///< the longest context, RoPE scaling applied
  /// The file's max_position_embeddings when its rope_scaling raised the limit above it (YaRN:
  /// original x factor), else 0.
  std::uint64_t unscaled_max_position_embeddings = 0;
  bool tie_word_embeddings = false;
  bool attention_bias = false;     ///< q, k, v and o projections carry biases
  bool qkv_bias = false;           ///< q, k, v (not o) carry biases (Qwen2)
  bool qk_norm = false;            ///< per-head RMSNorm on q and k (Qwen3, Gemma 3, GLM-4.5)
  /// Gemma 2's (and Gemma 4's) final_logit_softcapping: logits / cap, tanh, x cap after the LM head.
  /// It changes no weight nor KV; in training the tanh keeps its output for the backward, a
  /// second logits-sized tensor (train_memory). 0: none.
  double final_logit_softcap = 0;
  std::optional<MlaSpec> mla;
  std::optional<MoeSpec> moe;
  /// Attention window per layer in tokens; 0 = full attention. Empty = all layers full.
  /// Llama 4's chunked-attention layers hold at most one chunk and are recorded as windows.
  std::vector<std::uint64_t> layer_window_tokens;
  /// Per layer: true where the window is an attention chunk (Llama 4), not a sliding window.
  /// Empty = none. TensorRT-LLM keeps the whole context in both (kv_shape); the flag names the
  /// kind in fit notes.
  std::vector<bool> layer_is_chunked;
  bool mlp_gated = true;           ///< gate, up, down (SwiGLU); false: up, down (GPT-style 4h MLP)
  bool mlp_bias = false;           ///< MLP projections carry biases
  bool layer_norm = false;         ///< LayerNorm with bias (2 vectors) instead of RMSNorm (1)
  std::uint64_t norms_per_layer = 2;  ///< 1 with one shared norm (parallel attention), 4 for Gemma 2/3
  bool qk_norm_full_width = false; ///< q/k norms over all heads (OLMo 2, Cohere) not one head
  bool attention_output_gate = false;  ///< q_proj also emits a per-head output gate (Qwen3-Next)
  std::uint64_t learned_positions = 0;  ///< rows of a learned position table (GPT-2 style)
  /// Width of the token table (and a tied head) where it is not hidden_size, projected in and out
  /// of the hidden width (OPT-350m's word_embed_proj_dim 512); 0: hidden_size.
  std::uint64_t embedding_width = 0;
  /// The checkpoint brings its own code (config.json's auto_map; the catalog's trust_remote_code):
  /// vLLM, SGLang and trtllm-serve load it only with --trust-remote-code.
  bool remote_code = false;
  std::optional<LinearAttentionSpec> linear_attention;
  /// Per layer: true for a linear-attention layer (no per-token KV). Empty = none.
  std::vector<bool> layer_is_linear;
  /// Every layer runs a Mamba2 mixer beside its attention, both off one norm (Falcon-H1): each
  /// keeps a KV cache and a fixed state.
  bool state_beside_attention = false;
  /// Per layer: true for a block that is an MLP (or MoE) alone, with no attention nor state
  /// (Nemotron-H's '-' and 'E' blocks). Empty = none.
  std::vector<bool> layer_without_mixer;
  /// Per layer: true for a block that is attention or a state-space mixer alone, with no MLP
  /// (Nemotron-H's '*' and 'M' blocks). Empty = none.
  std::vector<bool> layer_without_mlp;
  /// Per layer: true where attention, or the MLP, is replaced by one hidden x hidden linear with
  /// its norm (Nemotron-NAS's replace_with_linear: TensorRT-LLM modeling_nemotron_nas.py
  /// LinearAttention, LinearMLP). Such a layer is also listed in layer_without_mixer or
  /// layer_without_mlp: no KV, no attention. Empty = none.
  std::vector<bool> layer_linear_mixer;
  std::vector<bool> layer_linear_mlp;
  /// Each attention and MLP block brings its own norm, and a block left out takes its norm with it
  /// (Nemotron-NAS's no_op blocks: vLLM nemotron_nas.py DeciLMDecoderLayer builds input_layernorm
  /// and post_attention_layernorm only for the blocks it builds): norms counted per block, not
  /// norms_per_layer a layer.
  bool norm_per_block = false;
  /// Per layer: true for a cross-attention layer (Llama 3.2 Vision), whose KV is the image's,
  /// computed once per request, not one entry per token. Empty = none.
  std::vector<bool> layer_is_cross_attention;
  std::optional<VisionSpec> vision;
  std::optional<AudioSpec> audio;  ///< audio_config of Whisper's layout
  /// A vision_config that gives no size gpuplan reads: the tower is not counted, and fit says so.
  bool vision_unsized = false;
  /// vision_config's num_hidden_layers and hidden_size as written (0: not written), whatever the
  /// tower's layout: SGLang sizes its multimodal memory reserve from these two keys alone
  /// (defaults 24 and 1024), not from `depth` or `embed_dim`. Unset without a vision_config.
  struct VisionConfigKeys {
    std::uint64_t num_hidden_layers = 0;
    std::uint64_t hidden_size = 0;
  };
  std::optional<VisionConfigKeys> vision_config_keys;
  /// An image or audio encoder the config names outside vision_config (Phi-3-vision's
  /// embd_layer/img_processor, Phi-4-multimodal's audio_processor): the field, not counted.
  std::string unsized_encoder_field;
  std::string unsized_lora_fields;  ///< modality LoRA adapters config.json names (vision_lora, speech_lora)
  /// Parts the checkpoint's files hold that the engines do not load (an omni model's talker and
  /// token2wav: vLLM serves its thinker alone); non-empty, the safetensors index's total is not
  /// compared with the weights computed here.
  std::string checkpoint_unloaded_parts;
  /// The model_type of a wrapper config whose inner model is read (qwen3_omni_moe: its thinker,
  /// whose layers are Qwen3-MoE's), else empty: which engine releases load it is the wrapper's.
  std::string wrapper_model_type;
  /// The type engines register the checkpoint under: the wrapper's, else model_type.
  [[nodiscard]] const std::string& served_model_type() const {
    return wrapper_model_type.empty() ? model_type : wrapper_model_type;
  }
  /// A multimodal config's own model_type, whose text_config (llm_config, language_config) was
  /// read as the model (mllama over mllama_text_model), else empty: what messages name, as the
  /// user's config.json states it.
  std::string multimodal_model_type;
  /// The model_type the user's config.json states at its top level.
  [[nodiscard]] const std::string& config_model_type() const {
    return multimodal_model_type.empty() ? served_model_type() : multimodal_model_type;
  }
  /// config.json's model_type is none whose layout gpuplan has checked against a checkpoint:
  /// its layers were read as a Llama-style decoder's, and fit says so.
  bool layout_unchecked = false;
  /// config.json's model_type is unknown, but its `architectures` entry names a class of a
  /// checked type (GPTNeoXRewardModel: gpt_neox): that type's layout is read (model_type holds
  /// it), and this is fit's note saying so. Empty otherwise.
  std::string layout_from_architecture;
  /// Fields config.json leaves out that gpuplan filled in from the architecture's published class
  /// defaults (a DSA model's indexer sizes), as fit's note saying so. Empty otherwise.
  std::string assumed_defaults;
  /// config.json's architectures class has no LM head (a classifier or reward model:
  /// LlamaForSequenceClassification, GPTNeoXRewardModel): its task head of a few outputs is not
  /// counted, and no vocabulary-sized head is read or computed.
  bool classification_head = false;
  /// Multi-token-prediction layers config.json declares (num_nextn_predict_layers,
  /// mtp_num_hidden_layers): loaded by engines only for MTP speculative decoding, not counted.
  std::uint64_t mtp_layers = 0;
  /// The checkpoint's own formats (catalog "shipped_weights", or config.json torch_dtype and
  /// quantization_config) and where they are documented.
  std::optional<WeightFormats> shipped_formats;
  std::string shipped_source;
  /// What engines dispatch a config.json quantization_config on, beyond the bytes its formats
  /// give: AWQ and GPTQ int4 are the same bytes but not the same kernels (vLLM's AWQ needs
  /// compute capability 7.5, its GPTQ runs on Volta), and ModelOpt's W4A8_AWQ runs FP8
  /// activations beside its int4 weights. Set too for a quantized checkpoint named on the command
  /// line (train: "TheBloke/...-GPTQ" loads through that quantizer, as its shipped_formats).
  /// Unset for catalog models and 16-bit checkpoints.
  struct CheckpointQuant {
    std::string method;  ///< quant_method, lower case ("awq", "gptq", "modelopt", ...)
    std::string algo;    ///< ModelOpt's quant_algo ("W4A8_AWQ"); empty otherwise
    std::uint64_t bits = 0;  ///< AWQ's bits (w_bit); 0 otherwise
    std::string where;   ///< the quantization_config's place, for messages ("x/config.json: quantization_config")
    /// The file beside config.json that alone states the quantization (quant_config.json,
    /// quantize_config.json); empty when config.json states it. vLLM and SGLang read the method
    /// from config.json only: such a checkpoint needs --quantization <method>.
    std::string sidecar;
  };
  std::optional<CheckpointQuant> checkpoint_quant;
  /// The KV-cache format the checkpoint's quantization config was calibrated for (FP8 scales
  /// shipped: ModelOpt kv_cache_quant_algo, compressed-tensors kv_cache_scheme); unset: none.
  /// TensorRT-LLM takes it by default; vLLM and SGLang need --kv-cache-dtype fp8.
  std::optional<DType> checkpoint_kv_dtype;
  /// metadata.total_size of model.safetensors.index.json beside a config.json, when present.
  std::optional<double> checkpoint_bytes;
  /// torch_dtype float32: the files hold 4 bytes for each parameter engines serve in 16 bits.
  bool stored_float32 = false;

  /// Set for a bare-size model (`--params 744B`): total parameters, architecture unknown.
  std::optional<double> bare_params;

  [[nodiscard]] bool has_architecture() const { return !bare_params.has_value(); }
  [[nodiscard]] bool is_moe() const { return moe.has_value(); }
  /// MLA with the latent cached: one latent per token and layer, whatever the heads and TP.
  [[nodiscard]] bool caches_latent() const { return mla.has_value() && mla->latent_cache; }
  /// Ranks a TP group of `tp` splits the K and V projections over: the KV heads at most.
  [[nodiscard]] double kv_projection_shards(std::uint64_t tp) const {
    return static_cast<double>(std::max<std::uint64_t>(1, std::min(tp, num_key_value_heads)));
  }
  /// Attention window of layer `layer` (0 = full).
  [[nodiscard]] std::uint64_t window_of_layer(std::uint64_t layer) const;
  [[nodiscard]] bool is_linear_layer(std::uint64_t layer) const {
    return layer < layer_is_linear.size() && layer_is_linear[layer];
  }
  [[nodiscard]] bool is_cross_attention_layer(std::uint64_t layer) const {
    return layer < layer_is_cross_attention.size() && layer_is_cross_attention[layer];
  }
  /// The layer keeps a fixed state per sequence (linear attention or Mamba2).
  [[nodiscard]] bool has_state(std::uint64_t layer) const {
    return linear_attention.has_value() && (state_beside_attention || is_linear_layer(layer));
  }
  [[nodiscard]] bool has_mixer(std::uint64_t layer) const {
    return layer >= layer_without_mixer.size() || !layer_without_mixer[layer];
  }
  [[nodiscard]] bool has_mlp(std::uint64_t layer) const {
    return layer >= layer_without_mlp.size() || !layer_without_mlp[layer];
  }
  [[nodiscard]] bool has_linear_mixer(std::uint64_t layer) const {
    return layer < layer_linear_mixer.size() && layer_linear_mixer[layer];
  }
  [[nodiscard]] bool has_linear_mlp(std::uint64_t layer) const {
    return layer < layer_linear_mlp.size() && layer_linear_mlp[layer];
  }
  /// The layer runs softmax attention (not a linear-attention or Mamba2 layer, nor an MLP block).
  [[nodiscard]] bool has_attention(std::uint64_t layer) const { return has_mixer(layer) && !is_linear_layer(layer); }
  /// The layer keeps KV for every token of the sequence (neither linear nor cross-attention, nor
  /// an MLP-only block).
  [[nodiscard]] bool holds_token_kv(std::uint64_t layer) const {
    return !is_linear_layer(layer) && !is_cross_attention_layer(layer) && has_mixer(layer) && !reuses_kv(layer);
  }
  /// The layer reads another layer's cached K and V (no projections nor cache of its own).
  [[nodiscard]] bool reuses_kv(std::uint64_t layer) const {
    return layer < layer_reuses_kv.size() && layer_reuses_kv[layer];
  }
  /// The layer has no K and V projections (it reuses another layer's KV, or borrows its K and V).
  [[nodiscard]] bool lacks_kv_projections(std::uint64_t layer) const {
    return reuses_kv(layer) || (layer < layer_borrows_kv.size() && layer_borrows_kv[layer]);
  }
  [[nodiscard]] bool value_is_key(std::uint64_t layer) const {
    return layer < layer_value_is_key.size() && layer_value_is_key[layer];
  }
  /// Head width and KV heads of layer `layer`.
  [[nodiscard]] std::uint64_t head_dim_of_layer(std::uint64_t layer) const {
    return layer < layer_head_dim.size() ? layer_head_dim[layer] : head_dim;
  }
  [[nodiscard]] std::uint64_t kv_heads_of_layer(std::uint64_t layer) const {
    return layer < layer_kv_heads.size() ? layer_kv_heads[layer] : num_key_value_heads;
  }
  [[nodiscard]] std::uint64_t intermediate_of_layer(std::uint64_t layer) const {
    return layer < layer_intermediate_size.size() ? layer_intermediate_size[layer] : intermediate_size;
  }
  /// Layers differ in head width or KV heads (layer_head_dim or layer_kv_heads set).
  [[nodiscard]] bool kv_width_varies() const { return !layer_head_dim.empty() || !layer_kv_heads.empty(); }
  [[nodiscard]] bool is_chunked_layer(std::uint64_t layer) const {
    return layer < layer_is_chunked.size() && layer_is_chunked[layer];
  }
  [[nodiscard]] bool is_moe_layer(std::uint64_t layer) const;
  /// Query heads of layer `layer`.
  [[nodiscard]] std::uint64_t attention_heads_of_layer(std::uint64_t layer) const {
    return layer < layer_attention_heads.size() ? layer_attention_heads[layer] : num_attention_heads;
  }
  /// Query heads averaged over the softmax-attention layers (num_attention_heads when uniform):
  /// attention FLOPs per context token scale with it.
  [[nodiscard]] double mean_attention_heads() const;
  /// The largest head count every layer's heads are a multiple of: what a TP degree must divide.
  [[nodiscard]] std::uint64_t tp_divisible_heads() const;
  /// Where max_position_embeddings comes from, for messages: the field, or its RoPE scaling.
  [[nodiscard]] std::string context_limit_source() const;
  [[nodiscard]] std::uint64_t moe_layer_count() const;
};

/// Parameter counts by part. A total can be explained term by term.
struct ParamCount {
  double embedding = 0;        ///< input embedding table
  double lm_head = 0;          ///< output projection; 0 when tied to the embedding
  double attention = 0;        ///< all layers' attention projections, biases, q/k norms
  double dense_mlp = 0;        ///< dense MLPs (all layers of a dense model, leading layers of MoE)
  double routed_experts = 0;   ///< all routed experts of all MoE layers
  double shared_experts = 0;
  double router = 0;
  double norms = 0;            ///< layer norms and the final norm
  double vision = 0;           ///< vision tower, audio encoder and their projectors (multimodal configs)
  double active_routed_experts = 0;  ///< routed experts one token uses (experts_per_token of them)
  /// Of the above outside the encoders, what every tensor-parallel rank holds and multiplies whole
  /// (WeightTensor::replicated: MLA's latent down-projections, the router, the norms); none are
  /// routed experts.
  double replicated = 0;
  /// Of the above, the K and V projections and their biases (WeightTensor::split_by_kv_head).
  double kv_projection = 0;

  /// Everything stored.
  [[nodiscard]] double total() const {
    return embedding + lm_head + attention + dense_mlp + routed_experts + shared_experts + router + norms + vision;
  }
  /// What one token touches: total minus the routed experts it does not use.
  [[nodiscard]] double active() const { return total() - routed_experts + active_routed_experts; }
  /// Active without the input embedding table (a lookup, not a matmul): how OpenAI (gpt-oss-20b
  /// 3.61B, gpt-oss-120b 5.13B), DeepSeek (V3 36.6B) and GLM quote active parameters. The LM
  /// head is a matmul every token runs, so it stays in. A tied head is the embedding matrix
  /// (lm_head is 0): it is subtracted once.
  [[nodiscard]] double active_without_embedding() const { return active() - embedding; }
  /// Active without both the input embedding and the LM head (a tied head subtracted once): how
  /// "non-embedding" counts are quoted (Qwen3-Next-80B-A3B: 3B active).
  [[nodiscard]] double active_without_embedding_and_head() const { return active() - embedding - lm_head; }
  /// Parameters outside the embedding table and LM head (quantized formats cover these).
  [[nodiscard]] double body() const { return total() - embedding - lm_head; }
};

/// One stored tensor shape, `count` times: matrices are [rows (outputs) x cols (inputs)];
/// vectors (biases, norms, sinks) have cols == 1 and matrix == false and stay 16-bit.
struct WeightTensor {
  WeightPart part = WeightPart::attention;
  std::uint64_t rows = 0;
  std::uint64_t cols = 1;
  double count = 0;
  double active_count = 0;   ///< copies one token uses (routed experts: experts_per_token)
  bool matrix = true;
  /// Every tensor-parallel rank keeps all of it: serving engines do not split it (MLA's q_a and
  /// kv_a down-projections and their norms, the DSA indexer, the MoE router, the layer norms).
  bool replicated = false;
  /// K and V projections: split by KV head, so over at most num_key_value_heads TP ranks; past
  /// that each rank keeps one head's (vLLM's and SGLang's QKVParallelLinear replicate KV heads,
  /// as TensorRT-LLM does), ModelSpec::kv_projection_shards.
  bool split_by_kv_head = false;
};

/// Every tensor of the model as the checkpoint stores it (fused where HF fuses).
std::vector<WeightTensor> weight_tensors(const ModelSpec& model);

/// Bytes of the whole model's weights by part in `formats`.
std::array<double, kWeightParts> weight_bytes_by_part(const ModelSpec& model, const WeightFormats& formats);

/// The multi-token-prediction layers config.json declares (ModelSpec::mtp_layers), which the
/// checkpoint files hold and the weights leave out, in `formats`: `layers` is each one's decoder
/// layer (the model's last layer kind: full attention, MoE where it has experts), its eh_proj
/// (hidden x 2 hidden) and three norms; `copies` the embedding table and LM head that DeepSeek-V3's
/// and GLM-4.5's checkpoints store again with each (Qwen3-Next's and MiMo's share the model's).
struct MtpBytes {
  double layers = 0;
  double copies = 0;
};
MtpBytes mtp_weight_bytes(const ModelSpec& model, const WeightFormats& formats);

/// Counts parameters from the architecture (or returns the bare size as body parameters).
ParamCount count_params(const ModelSpec& model);

/// Validates a spec built from JSON or by hand; throws InputError naming `origin` and the field.
void validate_model(const ModelSpec& model, std::string_view origin);

/// A model known only by its size, for what-ifs: KV cache and activations are unknown.
ModelSpec bare_model(double params, std::string_view label, std::string_view field);

}  // namespace gpuplan
