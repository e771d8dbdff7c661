#pragma once
// The planner behind `gpuplan plan`: the cheapest deployments of one model that meet a load and
// latency targets. It enumerates GPU x weights format x KV format x replica layout (TP within a
// node, PP across nodes, EP for MoE, DP attention with EP for MoE, TP across nodes when the
// weights do not fit one node; up to 64 GPUs a replica), skips a layout the model does not allow
// on its own (counted, with the reason), drops layouts whose weights or one sequence cannot fit
// before timing them, finds per layout the largest batch that meets the
// latency targets (latency grows with the batch, so a bisection finds it) and the replicas the
// load needs, and prices them. It also keeps each GPU's Pareto frontier of throughput per GPU
// against tokens/s per user, and, when nothing meets the targets, the target that binds.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gpuplan/band.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/weight_choice.hpp>

namespace gpuplan {

/// What a deployment must achieve; an unset target does not constrain.
struct PlanTargets {
  std::optional<double> output_tokens_per_s;        ///< whole deployment, reached with replicas
  std::optional<double> max_itl_s;                  ///< inter-token latency
  std::optional<double> max_ttft_s;                 ///< time to first token
  std::optional<double> min_tokens_per_s_per_user;  ///< 1 / ITL
  std::optional<double> max_usd_per_million_tokens; ///< output tokens
};

/// Which target keeps a configuration out (also `memory`: nothing fits at all).
enum class PlanTarget { output_tokens_per_s, max_itl, max_ttft, min_tokens_per_s_per_user, max_usd_per_million_tokens, memory };
std::string_view to_string(PlanTarget target);

/// How the batch per replica is searched: bisection over the monotone latency (the default),
/// or every batch (for tests that check the bisection).
enum class BatchSearch { bisect, exhaustive };

struct PlanRequest {
  /// Workload (input/output tokens), efficiency, network, engine memory settings; the layout and
  /// dtypes in it are ignored (the planner sets them). `perf.max_batch` caps the batch per replica.
  PerfRequest perf;
  std::vector<std::string> gpus;        ///< GPU ids; empty: every GPU with a matching price
  std::vector<DType> weights_dtypes;    ///< empty: every format the GPU multiplies (and int4 weight-only)
  /// A published release's parts (named_release_choice: Meta's FP8 keeps attention bf16): the
  /// configurations in its format are sized as it ships, not with every part in that format.
  std::optional<WeightChoice> release_parts;
  /// The checkpoint the user named (a Hugging Face name such as Qwen/Qwen2.5-72B-Instruct-AWQ),
  /// for the launch command; empty: the model's hf_repo.
  std::string launch_model;
  std::vector<DType> kv_dtypes;         ///< empty: bf16 and, where the GPU has FP8, fp8
  std::uint64_t max_gpus_per_replica = 64;
  std::uint64_t gpus_per_node = 8;      ///< TP stays within a node; PP crosses nodes
  std::string provider;                 ///< empty: every provider (the price cheapest for each configuration wins)
  std::optional<PricingMode> mode;      ///< unset: on-demand
  std::string region;                   ///< empty: every region; else a prefix (in_region)
  std::string term;                     ///< empty: every commitment term; else only reserved prices with it
  std::map<std::string, double> given_usd_per_gpu_hour;  ///< by GPU id, as provider "given"
  DayNumber today = 0;
  CostRequest cost;                     ///< utilization, extras; gpus, price and tokens filled in
  PlanTargets targets;
  std::size_t top = 10;
  BatchSearch batch_search = BatchSearch::bisect;
  /// Empty: the layouts plan_layouts() enumerates for each GPU and format. Else exactly these on
  /// every GPU, each checked on its own: one the model does not allow is skipped (counted in
  /// PlanCounts::skipped with its reason) and the others are searched.
  std::vector<Layout> layouts;
  /// The engine whose launch command is wanted (--emit): layouts it cannot start as one command
  /// are not searched (TensorRT-LLM runs attention DP only at attention TP 1). Unset: all.
  std::optional<Engine> launch_engine;
  /// With launch_engine sglang: the mem_fraction_static to size for and set in the command
  /// (plan --mem-fraction-static); unset: SGLang's own rule for each GPU and layout.
  std::optional<double> launch_mem_fraction_static;
  /// With launch_engine vllm: the gpu_memory_utilization to size for and set in the command
  /// (plan --gpu-memory-utilization); unset: vLLM's default for its release (0.92 from 0.21).
  std::optional<double> launch_gpu_memory_utilization;
  /// Rank prices older than 180 days by cost with the current ones (--include-stale). Unset: a
  /// GPU's current price wins over a stale one, every row on a current price ranks before the rows
  /// on stale ones (whichever GPU), and a cheaper stale one is named beside #1.
  bool include_stale = false;
};

/// One deployment: replicas of one layout on one GPU type.
struct PlanConfig {
  std::string gpu;
  DType weights_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  /// One replica: one engine instance of layout.gpus() GPUs. dp > 1 only with DP attention
  /// (Layout::dp_attention): DP ranks that share the experts, each with its own batch.
  Layout layout;
  std::uint64_t batch = 0;             ///< sequences per replica (per DP rank under DP attention) at the target load
  std::uint64_t max_batch = 0;         ///< largest such batch that meets the latency targets
  std::uint64_t max_batch_by_memory = 0;
  std::uint64_t replicas = 1;
  std::uint64_t gpus = 0;              ///< replicas x layout.gpus()
  bool fp16_only = false;              ///< the GPU has no bf16 (Volta, Turing): engines compute in fp16
  bool gaudi = false;                  ///< an Intel Gaudi: vLLM's FP8 runs through INC (LaunchSettings::gaudi)
  /// FP8 weights the launch engine quantizes on load from a 16-bit checkpoint, loading it whole
  /// (engine_loads_sixteen_bit_whole): the 16-bit weights one GPU holds first, and the GPU's
  /// memory; 0 otherwise.
  double sixteen_bit_load_bytes = 0;
  double gpu_memory_bytes = 0;
  /// --emit sglang or vllm: the memory share the engine picks itself for this layout (SGLang's
  /// mem_fraction_static rule, vLLM's gpu_memory_utilization default; the plan is sized with it,
  /// and the command sets it, unless --mem-fraction-static or --gpu-memory-utilization is given);
  /// 0 otherwise.
  double engine_default_share = 0;
  Price price;
  CostResult cost;                     ///< at the target load (or full capacity without one)
  double output_tokens_per_s = 0;      ///< deployment capacity at `batch` (estimate)
  double capacity_tokens_per_s = 0;    ///< deployment capacity at `max_batch` (estimate)
  double capacity_low = 0;             ///< capacity at `max_batch` at the band's low edge
  double capacity_high = 0;            ///< ... and at its high edge
  double band_low = 1.0;               ///< estimate x band_low .. x band_high
  double band_high = 1.0;
  BandCase band_case = BandCase::calibrated;
  bool engine_calibrated = true;               ///< false: band widened for vLLM/SGLang
  bool layout_calibrated = true;               ///< false: the layout also widened it
  double itl_s = 0;
  double ttft_s = 0;
  double tokens_per_s_per_user = 0;
  bool meets_targets = false;
  /// Cheaper than the next choices only inside the estimate's band: at the band's low edge it
  /// costs more than a lower-ranked configuration on another GPU at that one's high edge.
  bool within_band = false;
  [[nodiscard]] double usd_per_hour() const { return cost.usd_per_hour(); }
};

/// A point of a GPU's frontier.
struct ParetoPoint {
  std::string gpu;
  DType weights_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  Layout layout;
  std::uint64_t batch = 0;
  double tokens_per_s_per_gpu = 0;
  double tokens_per_s_per_user = 0;
  double itl_s = 0;
  double ttft_s = 0;
};

/// Why nothing met the targets, and how close the best configuration came.
struct PlanMiss {
  PlanTarget binding = PlanTarget::memory;
  /// How far the closest configuration is from the binding target: achieved / limit for a
  /// maximum, limit / achieved for a minimum (> 1; 1.25 = 25 % short).
  double shortfall = 0;
  std::optional<PlanConfig> closest;   ///< unset when nothing fits in memory
  /// Every target the closest configuration misses with its ratio (> 1), the binding one first.
  std::vector<std::pair<PlanTarget, double>> missed;
  std::map<PlanTarget, std::uint64_t> layouts_missing;  ///< layouts that miss each target (at their best batch)
};

/// What the search did.
struct PlanCounts {
  std::uint64_t layouts = 0;           ///< GPU x weights x KV x replica layouts enumerated
  std::uint64_t skipped = 0;           ///< of those, not allowed for the model (PlanResult::skipped says why)
  std::uint64_t pruned = 0;            ///< of those, dropped before timing: weights or one sequence do not fit
  std::uint64_t timed = 0;             ///< layouts with a performance model
  std::uint64_t evaluated = 0;         ///< (layout, batch) points evaluated
  std::uint64_t feasible = 0;          ///< layouts meeting every target
};

struct PlanResult {
  std::string model_id;
  std::string hf_repo;                     ///< the checkpoint to launch (request.launch_model, or the model's)
  /// The quantized format that checkpoint ships (nullopt: 16-bit), from its name or its config.json.
  std::optional<DType> checkpoint_dtype;
  /// The config's max_position_embeddings when its RoPE scaling raised the limit (else 0).
  std::uint64_t unscaled_context_tokens = 0;
  bool remote_code = false;  ///< the launch needs --trust-remote-code
  /// The quantization method of a checkpoint that states it only in a sidecar file beside
  /// config.json (ModelSpec::CheckpointQuant::sidecar): the launch names it. Empty otherwise.
  std::string sidecar_quant_method;
  PlanRequest request;
  std::vector<PlanConfig> configurations;  ///< cheapest first, at most request.top
  std::vector<ParetoPoint> pareto;         ///< by GPU (catalog order), most tokens/s per user first
  std::optional<PlanMiss> miss;            ///< set when no configuration meets every target
  PlanCounts counts;
  std::vector<std::string> unpriced_gpus;  ///< GPUs asked for without a matching price
  std::vector<std::string> unlaunchable_gpus;  ///< GPUs the launch engine does not run on (--emit)
  std::map<std::string, std::uint64_t> skipped;  ///< why layouts were skipped -> how many
  /// Without include_stale: the cheapest configuration meeting every target on a stale price a
  /// current one was taken over, when it costs less than #1 (the notes name it).
  std::optional<PlanConfig> cheaper_stale;
  /// Per GPU searched (catalog order), the fewest of it whose memory, at the engine's cap, holds
  /// the model's weights alone in the most compact weights format searched there: a lower bound
  /// on a replica (one sequence's KV cache and the layouts the heads allow can need more). When
  /// nothing fits, the output says how many GPUs it would take.
  struct WeightsNeed {
    std::string gpu;
    DType weights = DType::bf16;
    std::uint64_t gpus = 0;
  };
  std::vector<WeightsNeed> weights_need;
  std::vector<std::string> notes;
};

/// The weights formats the planner tries on `gpu` when none are given: bf16 (fp16 without
/// bf16), the FP8/INT8/FP4 formats its tensor cores multiply, and int4 (weight-only).
std::vector<DType> default_weights_dtypes(const GpuSpec& gpu);
/// The 16-bit format `weights` are served in, as engines' "auto" (16-bit weights: theirs;
/// quantized: the model's, fp16 for a float16 checkpoint, else bf16), and fp8 where the GPU has FP8.
std::vector<DType> default_kv_dtypes(const GpuSpec& gpu, const ModelSpec& model, DType weights);

/// The replica layouts the planner searches on `gpu`, each one the model allows, of at most
/// request.max_gpus_per_replica GPUs: TP within a node (dividing the heads as vLLM requires) x PP
/// up to the layers (stages across nodes once a replica outgrows one); for MoE each TP > 1 also
/// with its experts spread over it (EP = TP), and DP attention: D ranks sharing experts split
/// over all of them (EP = D x attention TP), each rank at attention TP 1 (the DeepSeek recipe of
/// vLLM, SGLang and TensorRT-LLM) or at a TP within a node that divides the heads (vLLM
/// --data-parallel-size with --tensor-parallel-size, SGLang --dp-size below --tp-size; not
/// TensorRT-LLM, whose attention DP runs at TP 1). `weights_exceed_node`: the weights do not fit
/// one node's GPUs, so TP also spans nodes (2, 4, ... nodes, PP 1), over the network.
std::vector<Layout> plan_layouts(const ModelSpec& model, const GpuSpec& gpu, const PlanRequest& request,
                                 bool weights_exceed_node);

/// Validates the request (targets positive and finite, names known; errors name `plan.*`,
/// `perf.*`, `cost.*`) and searches. Pure: no I/O.
PlanResult plan(const Catalog& catalog, const ModelSpec& model, const PlanRequest& request);

/// Runs one configuration through perf on its own: its point at `config.batch` (for tests and
/// `--check`-style re-verification).
PerfPoint evaluate_config(const Catalog& catalog, const ModelSpec& model, const PlanRequest& request,
                          const PlanConfig& config);

}  // namespace gpuplan
