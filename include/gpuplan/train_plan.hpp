#pragma once
// A training run planned end to end: memory per GPU (train_memory), step time and MFU
// (train_step) with the calibration band, the time, GPU-hours, energy and cost of training
// `tokens` tokens by provider and pricing mode, and the same at other GPU counts (--scale).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/price.hpp>
#include <gpuplan/rental.hpp>
#include <gpuplan/train_memory.hpp>
#include <gpuplan/train_step.hpp>

namespace gpuplan {

struct TrainPlanRequest {
  TrainRequest train;
  TrainEfficiency efficiency;
  double tokens = 0;                       ///< tokens to train (--tokens); 0: no run totals
  std::vector<std::uint64_t> scale_gpus;   ///< GPU counts for the scaling table (empty: none)
  std::string provider;                    ///< only this provider's prices (empty: every one)
  std::optional<PricingMode> mode;         ///< only this mode (unset: every mode)
  std::string term;                        ///< only reserved prices of this term (empty: each term)
  /// A price per GPU-hour typed by hand (a negotiated rate): the run is priced at it alone, as
  /// provider "given", instead of the catalog's; unset: the catalog's.
  std::optional<double> usd_per_gpu_hour;
  /// GPUs draw their TDP x this share while training (assumed: large training jobs run their
  /// GPUs near the power limit), and the data centre multiplies it by `pue`.
  double power_share = 0.8;
  double pue = 1.3;
};

/// Time, GPU-hours and energy of training `tokens` tokens; low/high from the band.
struct TrainRun {
  double tokens = 0;
  double time_s = 0;
  double time_low_s = 0;    ///< at the band's fast edge
  double time_high_s = 0;   ///< at its slow edge
  double gpu_hours = 0;
  double energy_kwh = 0;    ///< GPUs x TDP x power share x PUE x time
};

/// One catalog price applied to the run.
struct TrainCost {
  Price price;
  InstanceRental rental;               ///< the instances paid for (whole instances where the price gives their size)
  double usd_per_hour = 0;             ///< the whole job
  double usd_per_million_tokens = 0;   ///< training tokens
  double usd = 0;                      ///< the run (0 without tokens)
  double usd_low = 0;
  double usd_high = 0;
};

/// One GPU count of the scaling table: the request's TP, CP, PP and EP, DP filling the rest.
struct TrainScaleRow {
  std::uint64_t gpus = 0;
  TrainLayout layout;
  std::string invalid;       ///< why this size cannot run the request (empty: it can)
  bool fits = false;
  double memory_bytes = 0;   ///< per GPU
  double tokens_per_s = 0;
  double mfu = 0;
  double efficiency = 0;     ///< tokens/s per GPU against the first valid row's
  double bubble_share = 0;
  double exposed_comm_share = 0;
  double time_s = 0;         ///< to train the tokens (0 without)
  std::optional<double> usd;
};

struct TrainPlan {
  std::string model_id;
  std::string gpu_id;
  TrainPlanRequest request;
  TrainMemory memory;
  TrainLimits limits;
  TrainFlops flops;
  TrainStep step;
  /// LoRA on a quantized checkpoint: its linear layers' format as shipped ("int4-g128-zp-a16"),
  /// the frozen base's; empty otherwise.
  std::string frozen_base_format;
  /// measured / estimate - 1 the band allows: the dense band, or the wider MoE one.
  double band_low = 0;
  double band_high = 0;
  bool moe_band = false;
  double tokens_per_s_low = 0;
  double tokens_per_s_high = 0;
  std::optional<TrainRun> run;
  std::vector<TrainCost> costs;          ///< cheapest region per provider and mode, cheapest first
  std::vector<TrainScaleRow> scale;
  std::optional<Price> scale_price;      ///< the price the scaling table's cost column uses
  std::vector<std::string> notes;
};

/// Plans the run. Throws InputError (fields `train.*`, `layout.*`, `train_plan.*`) for bad
/// requests, an unknown provider or a mode it does not price; "does not fit" is a result.
TrainPlan train_plan(const Catalog& catalog, const ModelSpec& model, const GpuSpec& gpu, const TrainPlanRequest& request);

}  // namespace gpuplan
