// gpuplan train: memory per GPU, step time, MFU, run time and cost of training or fine-tuning.
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/checkpoint_name.hpp>
#include <gpuplan/train_plan.hpp>
#include <gpuplan/units.hpp>

#include "command_io.hpp"
#include "common.hpp"
#include "deployment.hpp"
#include "pricing.hpp"

namespace gpuplan::cli {
namespace {

struct TrainOptions {
  CommonOptions common;
  std::string model;
  std::string model_config;
  std::string gpu;
  std::uint64_t gpus = 0;
  std::uint64_t tp = 1;
  std::uint64_t pp = 1;
  std::uint64_t ep = 1;
  std::uint64_t etp = 0;
  std::uint64_t cp = 1;
  std::uint64_t vpp = 1;
  std::uint64_t first_stage_layers = 0;
  std::uint64_t last_stage_layers = 0;
  std::string sharding = "none";
  std::string recompute;  // empty: default_recompute
  std::string attention = "flash";
  std::string sequence_parallel = "on";
  std::string framework;
  std::string overlap_grad_reduce;   // empty: the framework's default
  std::string overlap_param_gather;  // empty: the framework's default
  std::uint64_t micro_batch = 1;
  std::uint64_t seq = 4096;
  std::uint64_t global_batch_tokens = 0;
  std::string optimizer = "adamw";
  std::string precision = "bf16";
  std::string offload = "none";
  double zero_sub_group = 1e9;
  bool zero_sub_group_given = false;
  std::string master_weights = "fp32";
  bool optimizer_in_backward = false;
  std::string grad_sync;  // empty: each, or last for FSDP under a pipeline
  std::string method = "full";
  std::uint64_t lora_rank = 16;
  bool lora_rank_given = false;
  bool lora_dropout = false;
  std::string loss;
  std::string qlora_prep;
  std::string tokens;
  std::vector<std::uint64_t> scale;
  std::string provider;
  std::string mode;
  std::string term;
  double usd_per_gpu_hour = 0;
  double network_gbit_per_s = 400;
  bool network_given = false;  ///< unset: the GPU's catalog scale-out, else 400 (train_step's network_rate)
  double host_memory_gb_per_s = 0;
  bool check = false;
};

Exit run_train(const TrainOptions& o, bool model_given, bool config_given) {
  const Catalog catalog = load_catalog(o.common);
  const RenderOptions render = render_options(o.common);
  if (model_given == config_given) {
    throw InputError("give one of --model or --model-config");
  }
  ModelSpec model = model_given ? lookup_model(catalog, o.model, "--model") : model_from_hf_config_file(o.model_config);
  if (model_given) {
    // A quantized release's name ("TheBloke/Llama-2-7B-GPTQ") states the format its checkpoint loads
    // in, as its config.json's quantization_config would: LoRA's frozen base keeps it.
    const CheckpointName named = read_checkpoint_name(o.model);
    if (named.format && named.format->quantized()) {
      WeightFormats f = model.shipped_formats.value_or(WeightFormats{});
      for (WeightPart p : {WeightPart::attention, WeightPart::dense_mlp, WeightPart::routed_experts,
                           WeightPart::shared_experts}) {
        f[p] = *named.format;
      }
      model.shipped_formats = f;
      model.checkpoint_quant = ModelSpec::CheckpointQuant{.method = lower_case(named.format_text), .where = "--model"};
    }
  }
  const GpuSpec& gpu = lookup_gpu(catalog, o.gpu, "--gpu");
  TrainPlanRequest req;
  TrainRequest& t = req.train;
  t.layout = {.tp = o.tp, .pp = o.pp, .cp = o.cp, .ep = o.ep, .dp = 1, .vpp = o.vpp, .etp = o.etp,
              .first_stage_layers = o.first_stage_layers, .last_stage_layers = o.last_stage_layers};
  const std::uint64_t replica = o.tp * o.cp * o.pp;
  const std::uint64_t gpus = o.gpus == 0 ? replica : o.gpus;
  if (gpus % replica != 0) {
    throw InputError(fmt::format("--gpus: {} is not a multiple of TP x CP x PP = {} x {} x {} = {}", gpus, o.tp, o.cp,
                                 o.pp, replica));
  }
  t.layout.dp = gpus / replica;
  t.sharding = parse_sharding(o.sharding, "--sharding");
  t.optimizer = parse_optimizer(o.optimizer, "--optimizer");
  t.precision = parse_train_precision(o.precision, "--precision");
  t.offload = parse_offload(o.offload, "--offload");
  t.zero_sub_group_params = o.zero_sub_group;
  // sub_group_size is stage 3's (DeepSpeed's stage3.py partitions the optimizer step in sub-groups;
  // stages 1 and 2, FSDP and Megatron have none): refused elsewhere, as --grad-sync is.
  if (o.zero_sub_group_given && t.sharding != Sharding::zero3) {
    throw InputError(fmt::format("--zero-sub-group: DeepSpeed ZeRO-3's sub_group_size applies to --sharding zero3 "
                                 "only, not {}",
                                 to_string(t.sharding)));
  }
  t.master_weights = parse_master_weights(o.master_weights, "--master-weights");
  t.optimizer_in_backward = o.optimizer_in_backward;
  if (!o.grad_sync.empty()) {
    t.sync_last_micro_batch = o.grad_sync == "last";
  }
  t.method = parse_train_method(o.method, "--method");
  if (o.lora_rank_given && t.method == TrainMethod::full) {
    throw InputError("--lora-rank: needs --method lora or qlora");
  }
  t.lora_rank = o.lora_rank;
  t.lora_dropout = o.lora_dropout;
  if (!o.qlora_prep.empty()) {
    if (t.method != TrainMethod::qlora) {
      throw InputError("--qlora-prep: needs --method qlora");
    }
    t.kbit_prepared = o.qlora_prep == "peft";
  }
  if (!o.loss.empty()) {
    t.loss = parse_loss_kernel(o.loss, "--loss");
  }
  // After the method, loss and k-bit preparation, which the assumed policy follows.
  t.recompute_assumed = o.recompute.empty();
  t.recompute = t.recompute_assumed ? default_recompute(t) : parse_recompute(o.recompute, "--recompute");
  t.flash_attention = o.attention == "flash";
  t.sequence_parallel = o.sequence_parallel == "on";
  if (!o.framework.empty()) {
    t.framework = parse_train_framework(o.framework, "--framework");
  }
  if (!o.overlap_grad_reduce.empty()) {
    t.overlap_grad_reduce = o.overlap_grad_reduce == "on";
  }
  if (!o.overlap_param_gather.empty()) {
    t.overlap_param_gather = o.overlap_param_gather == "on";
  }
  t.micro_batch = o.micro_batch;
  t.seq_tokens = o.seq;
  t.global_batch_tokens = o.global_batch_tokens;
  if (!o.tokens.empty()) {
    req.tokens = units::parse_count(o.tokens, "--tokens");
  }
  req.scale_gpus = o.scale;
  if (o.network_given) {
    req.efficiency.network_bytes_per_s_per_gpu = units::gbit_per_s_to_bytes_per_s(o.network_gbit_per_s);
  }
  if (o.host_memory_gb_per_s > 0) {
    if (!steps_on_cpu(t.offload)) {
      throw InputError("--host-memory-gb-per-s: times the CPU optimizer step, which needs --offload optimizer or params");
    }
    req.efficiency.host_memory_bytes_per_s_per_gpu = o.host_memory_gb_per_s * units::kGB;
  }
  if (o.usd_per_gpu_hour > 0) {
    // A negotiated rate prices the run alone; a provider, mode or term choose catalog prices.
    for (const auto& [flag, given] : {std::pair<const char*, bool>{"--provider", !o.provider.empty()},
                                      {"--mode", !o.mode.empty()}, {"--term", !o.term.empty()}}) {
      if (given) {
        throw InputError(fmt::format("--usd-per-gpu-hour: one price typed by hand, with no {}; give either", flag));
      }
    }
    req.usd_per_gpu_hour = o.usd_per_gpu_hour;
  }
  req.provider = o.provider;
  if (!o.mode.empty()) {
    req.mode = parse_pricing_mode(o.mode, "--mode");
  }
  if (!o.term.empty()) {
    // A term asks for reserved prices; another mode named beside it is an error.
    check_term(o.term, req.mode.value_or(PricingMode::reserved));
    req.mode = PricingMode::reserved;
    req.term = o.term;
  }
  const TrainPlan plan = train_plan(catalog, model, gpu, req);
  fmt::print("{}", render_train(plan, render));
  // One warning naming every stale price used.
  std::vector<std::string> stale;
  for (const TrainCost& c : plan.costs) {
    if (c.price.stale()) {
      stale.push_back(fmt::format("{} {} ({}, {} days)", c.price.provider, offer_label(c.price.mode, c.price.term), c.price.date,
                                  c.price.age_days));
    }
  }
  if (!stale.empty()) {
    print_note(fmt::format("gpuplan: warning: {} of the {} prices are older than {} days: {}", stale.size(),
               plan.costs.size(), kStalePriceDays, fmt::join(stale, ", ")));
  }
  return o.check && !plan.memory.fits ? Exit::check_failed : Exit::ok;
}

}  // namespace

void add_train_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* sub = app.add_subcommand(
      "train", "Training / fine-tuning: memory per GPU, step time, MFU, run time and cost, scaling");
  auto* model = sub->add_option("--model", o->model, "Model id from the catalog (gpuplan catalog models)")->check(non_empty());
  sub->add_option("--model-config", o->model_config,
                  "A Hugging Face config.json (or the model's directory) instead of --model")
      ->check(CLI::ExistingPath)
      ->excludes(model);
  sub->add_option("--gpu", o->gpu, "GPU id from the catalog")->required()->check(non_empty());
  const auto degree = CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 16);
  sub->add_option("--gpus", o->gpus, "GPUs in the job (default: TP x CP x PP, one data-parallel replica)")->transform(whole_number())->check(degree);
  sub->add_option("--tp", o->tp, "Tensor-parallel degree (with sequence parallelism)")->transform(whole_number())->check(degree);
  sub->add_option("--pp", o->pp, "Pipeline stages (1F1B)")->transform(whole_number())->check(degree);
  sub->add_option("--ep", o->ep, "Expert-parallel degree (MoE), within DP x CP (within TP x CP x DP with --etp 1)")
      ->transform(whole_number())
      ->check(degree);
  sub->add_option("--etp", o->etp,
                  "Expert tensor-parallel degree (MoE, Megatron's --expert-tensor-parallel-size): TP (the default) "
                  "or 1, MoE parallel folding: each expert whole on its GPU, EP spanning the TP ranks too")
      ->transform(whole_number())
      ->check(degree);
  sub->add_option("--cp", o->cp, "Context-parallel degree (the sequence split over GPUs)")->transform(whole_number())->check(degree);
  sub->add_option("--vpp", o->vpp, "Virtual pipeline stages per GPU (interleaved 1F1B; default 1)")->transform(whole_number())->check(degree);
  sub->add_option("--first-stage-layers", o->first_stage_layers,
                  "Decoder layers on the first pipeline stage (Megatron-LM's --decoder-first-pipeline-num-layers; "
                  "default: an even share)")
      ->transform(whole_number())
      ->check(degree);
  sub->add_option("--last-stage-layers", o->last_stage_layers,
                  "Decoder layers on the last pipeline stage (Megatron-LM's --decoder-last-pipeline-num-layers; "
                  "default: an even share)")
      ->transform(whole_number())
      ->check(degree);
  sub->add_option("--sharding", o->sharding, "none, zero1, zero2, zero3 or fsdp")->capture_default_str();
  sub->add_option("--recompute", o->recompute,
                  "Activation recompute: none, selective (Megatron's: the attention core), selective-op (torchtitan's "
                  "op-level SAC: every other matmul's output saved) or full (default: full for QLoRA with PEFT's k-bit "
                  "preparation, whose gradient checkpointing is on by default; none otherwise)")
      ->check(non_empty());
  sub->add_option("--attention", o->attention,
                  "flash (FlashAttention, SDPA: the scores are never stored) or eager (the softmax probabilities "
                  "stored per layer and the scores' HBM traffic timed: pre-2024 Hugging Face recipes)")
      ->capture_default_str()
      ->check(one_of({"flash", "eager"}));
  sub->add_option("--sequence-parallel", o->sequence_parallel,
                  "Megatron sequence parallelism with TP > 1: on (norm and dropout activations split TP ways, as "
                  "NeMo's and Megatron-Bridge's recipes set it) or off (Megatron-LM's bare --sequence-parallel "
                  "default, DeepSpeed-Megatron, nanotron's ALL_REDUCE mode: those activations whole on every TP rank); "
                  "bare --sequence-parallel means on, as Megatron's flag does")
      ->capture_default_str()
      ->expected(0, 1)  // the bare flag takes the default string, "on"
      ->check(one_of({"on", "off"}));
  sub->add_option("--framework", o->framework,
                  "megatron (fp32 main_grad buffer; --offload optimizer keeps it on the GPU, as "
                  "--optimizer-cpu-offload does) or deepspeed (ZeRO's counting; ZeRO-Offload moves the gradients "
                  "to the host). Default: megatron with --sharding none or zero1 and TP or PP > 1, else deepspeed")
      ->check(one_of({"megatron", "deepspeed"}));
  sub->add_option("--overlap-grad-reduce", o->overlap_grad_reduce,
                  "Data-parallel gradient reduction under the last micro-batch's backward, in buckets (the last "
                  "one exposed): on or off. Default: off with --framework megatron (Megatron-LM's default; "
                  "--overlap-grad-reduce) or deepspeed (ZeRO-1/2's overlap_comm), on otherwise (PyTorch DDP, NeMo)")
      ->check(one_of({"on", "off"}));
  sub->add_option("--overlap-param-gather", o->overlap_param_gather,
                  "ZeRO-1's all-gather of the updated parameters under the next forward (Megatron's "
                  "--overlap-param-gather): on or off. Default: off with --framework megatron, on with the framework "
                  "unset (NeMo's recipes)")
      ->check(one_of({"on", "off"}));
  sub->add_option("--micro-batch", o->micro_batch, "Sequences per micro-batch per replica")
      ->capture_default_str()
      ->transform(whole_number())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  sub->add_option("--seq", o->seq, "Sequence length in tokens (8192, 8k; k = 1024)")
      ->capture_default_str()
      ->transform(token_count());
  sub->add_option("--global-batch-tokens", o->global_batch_tokens,
                  "Tokens per optimizer step (4M; k = 1024, M = 2^20; default: one micro-batch per replica, "
                  "4 x PP with a pipeline)")
      ->transform(token_count())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  sub->add_option("--optimizer", o->optimizer, "adamw, adamw-8bit or sgd (momentum)")->capture_default_str();
  sub->add_option("--precision", o->precision,
                  "Matmul precision: bf16, fp8, or fp16 (mixed precision with loss scaling: Volta and Turing, "
                  "which have no bf16)")
      ->capture_default_str();
  sub->add_option("--offload", o->offload,
                  "Offload to CPU: none, optimizer or params (ZeRO-3/FSDP), or paged: bitsandbytes' paged optimizer "
                  "(PagedAdamW, PagedAdamW8bit), its states in unified memory, paged to the host when the GPU is full")
      ->capture_default_str();
  sub->add_option("--zero-sub-group", o->zero_sub_group,
                  "DeepSpeed ZeRO-3 sub_group_size: parameters whose fp32 gradients the optimizer step builds at "
                  "once (default 1e9, DeepSpeed's; --sharding zero3)")
      ->capture_default_str()
      ->transform(decimal_number())
      ->check(CLI::Range(1.0, 1e15));
  sub->add_option("--master-weights", o->master_weights,
                  "fp32 (mixed precision: an fp32 copy beside the bf16 weights), none (pure bf16: no copy, "
                  "bf16 optimizer moments, as torchtune and litgpt's bf16-true train) or autocast (the weights "
                  "themselves fp32 under torch.autocast, no copy: a model loaded in fp32 under Hugging Face "
                  "Trainer's bf16=True or ATorch's amp_native, DDP or FSDP without a MixedPrecision policy; fp32 "
                  "gradients, gathers and residual stream)")
      ->capture_default_str()
      ->check(one_of({"fp32", "none", "autocast"}));
  // Accelerate's no_sync is getattr(model, "no_sync", nullcontext) (src/accelerate/accelerator.py):
  // FSDP1's wrapper has one, FSDP2's fully_shard module does not (set_requires_gradient_sync
  // replaces it), so the Trainer reduce-scatters every micro-batch there (helper s61 train: axolotl's
  // gpt-oss-20b FSDP2 runs at 36-46 GiB per GPU, which "last" would put at 107-126 GiB).
  sub->add_option("--grad-sync", o->grad_sync,
                  "FSDP with gradient accumulation: each (reduce-scatter every micro-batch, torchtitan; also the "
                  "Hugging Face Trainer with FSDP2, whose module has no no_sync for Accelerate to call) or last "
                  "(no_sync until the last: the Trainer's and Accelerate's default with FSDP1; the unsharded "
                  "gradients stay on every rank). Under a pipeline (--pp > 1) last is the default (torchtitan: the "
                  "stage kept gathered) and each reshards after every forward as without one (NeMo Automodel)")
      ->default_str("each; last with --pp > 1")
      ->check(one_of({"each", "last"}));
  sub->add_flag("--optimizer-in-backward", o->optimizer_in_backward,
                "Step the optimizer inside the backward pass, freeing each gradient (torchtune's optimizer_in_bwd; "
                "full training, one micro-batch per step)");
  sub->add_option("--method", o->method, "full, lora or qlora")->capture_default_str();
  sub->add_option("--lora-rank", o->lora_rank, "LoRA rank (with --method lora or qlora)")
      ->capture_default_str()
      ->transform(whole_number())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 16));
  sub->add_flag("--lora-dropout", o->lora_dropout,
                "PEFT's lora_dropout > 0 (LoraConfig's default is 0): each adapted module keeps a dropout mask of "
                "its input (with --method lora or qlora)");
  sub->add_option("--loss", o->loss,
                  "Cross-entropy the logits' memory follows: unfused (Hugging Face Trainer, TRL, PEFT: 14 bytes per "
                  "token and vocabulary entry), fused (Megatron, torchtune: 6) or fused-linear (Liger, Cut "
                  "Cross-Entropy, Unsloth: never whole). Default: unfused for LoRA and QLoRA, fused for full training")
      ->check(non_empty());
  sub->add_option("--qlora-prep", o->qlora_prep,
                  "QLoRA: peft (PEFT's prepare_model_for_kbit_training casts embeddings, head and norms to fp32: "
                  "an fp32 residual stream) or none (they stay bf16: Answer.AI's FSDP-QLoRA, PEFT on a GPTQ base). "
                  "Default: peft with the unfused loss, none otherwise")
      ->check(one_of({"peft", "none"}));
  sub->add_option("--tokens", o->tokens, "Tokens to train: 20B, 2e10, 1.5T (decimal)")->check(non_empty());
  sub->add_option("--scale", o->scale, "GPU counts for a scaling table, e.g. 8,16,32,64")
      ->delimiter(',')
      ->transform(whole_number())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 16));
  sub->add_option("--provider", o->provider, "Only this provider's prices (default: every provider)")->check(non_empty());
  sub->add_option("--mode", o->mode, "Only this pricing mode (default: every mode)")->check(non_empty());
  sub->add_option("--term", o->term,
                  "Only reserved prices with this commitment term: 1y, 3y, ... (default: each term as its own offer)")
      ->check(non_empty());
  sub->add_option("--usd-per-gpu-hour", o->usd_per_gpu_hour,
                  "A price per GPU-hour by hand (a negotiated rate), instead of the catalog's (default: every catalog "
                  "price, or --provider's)")
      ->transform(decimal_number())
      ->check(positive_validator());
  add_network_option(*sub, o->network_gbit_per_s)
      ->default_str("400; the GPU's own NICs where the catalog gives them: 800 on gb300 (a ConnectX-8 per GPU)");
  sub->add_option("--host-memory-gb-per-s", o->host_memory_gb_per_s,
                  "Host memory bandwidth per GPU for the CPU optimizer step with --offload (default: 40 behind PCIe, "
                  "a DDR4 server's shared by 8 GPUs; 205 on Grace, shared by two GPUs)")
      ->transform(decimal_number())
      ->check(CLI::Range(1.0, 10000.0));
  sub->add_flag("--check", o->check, "Exit with code 1 when it does not fit");
  add_common_options(*sub, o->common);
  sub->callback([o, sub, &exit_code] {
    o->lora_rank_given = sub->count("--lora-rank") > 0;
    o->zero_sub_group_given = sub->count("--zero-sub-group") > 0;
    o->network_given = sub->count("--network-gbit-per-s") > 0;
    const bool model_given = sub->count("--model") > 0;
    const bool config_given = sub->count("--model-config") > 0;
    exit_code = with_flag_names([&] { return run_train(*o, model_given, config_given); });
  });
}

}  // namespace gpuplan::cli
