#pragma once
// Modeled serving scaling (DESIGN "Scaling", modeled): the measured-scaling table built from the
// performance, communication and cost models instead of measurements, for the three ways to grow
// a deployment: scale-up (within the scale-up domain: wider TP over NVLink, or replicas),
// scale-out (across nodes: TP x PP over the network, or replicas) and serve-out (replicas for a
// target load). Speed-up and efficiency are against the smallest layout that fits.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuplan/band.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/price.hpp>

namespace gpuplan {

enum class ScaleWay { scale_up, scale_out, serve_out };
/// "scale-up", "scale-out", "serve-out".
std::string_view to_string(ScaleWay way);

struct ScaleModelRequest {
  std::vector<std::string> gpus;          ///< GPU ids, shown side by side
  PerfRequest perf;                       ///< workload, dtypes, efficiency, network; layout.ep kept
  /// Batch cap per replica, as perf's (perf.max_batch: the smaller of the two applies).
  std::uint64_t max_batch = kDefaultEngineMaxBatch;
  std::uint64_t up_to = 64;               ///< largest deployment in the scale-up and scale-out rows
  std::optional<double> target_output_tokens_per_s;  ///< serve-out rows when set
  /// Latency caps, as plan's (--max-itl-ms, --max-ttft-ms): each row runs at the largest batch
  /// within them (plan's search, latency_batch.hpp); a row over one even at batch 1 is shown at
  /// full load but is neither "most tok/s/GPU" nor "fewest GPUs for the target".
  std::optional<double> max_itl_s;
  std::optional<double> max_ttft_s;
  std::map<std::string, double> usd_per_gpu_hour;    ///< by GPU id; absent: unpriced
  std::map<std::string, Price> prices;               ///< catalog price behind a GPU's figure, if any
  /// Every instance size of each GPU's offer: a row pays the one best for it (absent: `prices`).
  std::map<std::string, std::vector<Price>> offers;
  /// Band of the estimate by GPU id (measured / estimate - 1), from estimate_band: each row widens
  /// it with for_layout() for its own layout.
  std::map<std::string, EstimateBand> band_by_gpu;
};

/// One layout of one deployment size.
struct ScaleModelRow {
  ScaleWay way = ScaleWay::scale_up;
  std::string shape;                ///< "smallest", "replicas", "wider TP", "TP x PP over network", ...
  Layout layout;
  /// Per replica: the engine cap or what the KV cache holds; under latency caps the largest
  /// batch within them.
  std::uint64_t batch = 0;
  bool batch_by_memory = false;     ///< `batch` is what the KV cache holds (not a cap)
  bool batch_by_latency = false;    ///< `batch` was lowered below full load to meet the latency caps
  std::string links;                ///< what TP and PP talk over ("TP nvlink4", "TP network, PP network")
  double output_tokens_per_s = 0;   ///< whole deployment, estimate
  double low = 0;                   ///< band, never above the roofline
  double high = 0;
  double tokens_per_s_per_gpu = 0;
  /// Against the table's baseline (the smallest layout that fits, or under latency caps that
  /// layout meets none the smallest within them); empty for a row over the caps when the
  /// baseline meets them: a layout no load can use is no step up or down from one that can.
  std::optional<double> speedup;
  std::optional<double> efficiency;  ///< speedup / (GPUs / baseline GPUs)
  double itl_s = 0;                 ///< at the row's batch
  double single_stream_itl_s = 0;   ///< at batch 1: the latency the layout can give one user
  double ttft_s = 0;
  double communication_share = 0;   ///< of one decode step's time
  bool communication_dominates = false;
  std::optional<double> usd_per_million_tokens;
  /// GPUs paid for: the layout's, rounded up to whole instances when the price rents fixed
  /// sizes (each replica in one instance, up to a node).
  std::uint64_t paid_gpus = 0;
  /// No instance size of the offer holds the row's TP x PP group: its links (NVLink inside one
  /// server) cannot span instances, so the row is not rentable there and has no USD/Mtok.
  bool not_rentable = false;
  /// ITL or TTFT above the request's caps (max_itl_s, max_ttft_s) even at batch 1.
  bool over_latency = false;
};

/// One GPU's table.
struct ScaleModelTable {
  std::string gpu;
  std::uint64_t domain_gpus = 1;        ///< GPUs per scale-up domain (a node for HGX)
  Layout smallest;                      ///< smallest layout that fits: one replica
  double smallest_tokens_per_s = 0;
  /// Under --max-itl-ms / --max-ttft-ms when `smallest` is over them at every batch: the row with
  /// the fewest GPUs (then the most tok/s) within them, what speed-up and efficiency are against
  /// (70B fp8 on H100 within 5 ms: TP 1 cannot, TP 4 can; against TP 1 every row read as a loss).
  std::optional<Layout> baseline_within_caps;
  double baseline_tokens_per_s = 0;
  /// The row speed-up is against ran a batch lowered to meet the latency caps: a wider row's
  /// larger batch within them, not memory, is what lifts it.
  bool baseline_batch_by_latency = false;
  std::optional<double> usd_per_gpu_hour;
  std::optional<Price> price;
  std::vector<ScaleModelRow> rows;      ///< scale-up, scale-out, then serve-out
  std::optional<std::size_t> serve_out_fewest;  ///< row meeting the target on the fewest GPUs
  std::vector<std::string> notes;
};

struct ScaleModelResult {
  std::string model_id;
  ScaleModelRequest request;
  std::vector<ScaleModelTable> tables;  ///< in request.gpus order
  std::vector<std::string> notes;
};

/// One GPU's table. Throws InputError when the model fits no layout of up to `up_to` GPUs.
ScaleModelTable model_scaling_table(const ModelSpec& model, const GpuSpec& gpu, const ScaleModelRequest& request);
/// Every GPU of the request (fields named `scale.*`, `perf.*`, `layout.*`).
ScaleModelResult model_scaling(const Catalog& catalog, const ModelSpec& model, const ScaleModelRequest& request);

}  // namespace gpuplan
