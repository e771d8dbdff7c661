#pragma once
// What a GPU offers, as the catalog describes it (data/gpus.json). SI units in the struct; the
// JSON keeps datasheet units (GB, TB/s, TFLOP/s) and the loader converts once.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/layout.hpp>

namespace gpuplan {

/// A link between GPUs (scale-up: NVLink, xGMI) or to the host (PCIe).
struct Link {
  std::string kind;                        ///< "nvlink4", "pcie5-x16", ...
  double bytes_per_s_per_direction = 0;    ///< one direction: NVLink 4 is 450e9, not the 900e9 total
  int domain_gpus = 1;                     ///< GPUs reachable over this link (scale-up domain)
  /// PCIe only: what one GPU gets, one way, when every GPU of a server exchanges at once (a ring
  /// all-reduce) and the traffic shares switch uplinks and the CPU's root complex; absent: the
  /// line rate. Estimates use it; the roofline keeps the line rate.
  std::optional<double> peer_bytes_per_s_per_direction;
  /// PCIe only: whether GPUs reach each other's memory directly (CUDA peer-to-peer). GeForce cards
  /// since the RTX 40 series do not: engines then skip their custom all-reduce buffers.
  bool peer_to_peer = true;
  /// Scale-up only: the GPUs are joined point to point, each to every other of the domain (AMD
  /// Infinity Fabric, Gaudi's RoCE ports), not through a switch (NVLink): a GPU's bandwidth is
  /// split over its domain_gpus - 1 direct links, and a group of k GPUs uses k - 1 of them.
  bool mesh = false;
  [[nodiscard]] double peer_rate() const { return peer_bytes_per_s_per_direction.value_or(bytes_per_s_per_direction); }
  /// What one GPU of a group of `group_gpus` (within the domain) sends to the others at once.
  [[nodiscard]] double group_rate(std::uint64_t group_gpus) const {
    if (!mesh || domain_gpus <= 1) {
      return bytes_per_s_per_direction;
    }
    const double peers = static_cast<double>(std::min<std::uint64_t>(std::max<std::uint64_t>(group_gpus, 2),
                                                                      static_cast<std::uint64_t>(domain_gpus)) - 1);
    return bytes_per_s_per_direction * peers / static_cast<double>(domain_gpus - 1);
  }
};

/// One MIG profile of a GPU (NVIDIA MIG user guide; nvidia-smi mig -lgip).
struct MigProfile {
  std::string name;                          ///< "1g.18gb"
  std::optional<double> memory_bytes;        ///< measured profile memory, when known
  int memory_eighths = 0;                    ///< memory share in eighths of the GPU
  int compute_slices = 0;                    ///< N of "Ng": N/7 of the SMs
  std::optional<int> sm_count;               ///< SMs of the profile, when known
  int max_instances = 0;                     ///< instances of this profile one GPU can hold
};

/// A figure other sources give differently from the stored one (B200 bandwidth 8.0 vs 7.7 TB/s).
struct AlternativeFigure {
  std::string field;   ///< catalog JSON field, e.g. "memory_bandwidth_tb_per_s", "dense_tflop_per_s.fp4"
  double value = 0;    ///< in the field's JSON unit
  std::string source;
};

/// One GPU model.
struct GpuSpec {
  std::string id;                            ///< catalog key, e.g. "h100-sxm"
  std::string name;                          ///< display name
  std::string vendor;                        ///< "nvidia", "amd", "intel"
  double memory_bytes = 0;                   ///< datasheet capacity (decimal GB in the JSON)
  std::optional<double> usable_memory_bytes; ///< total the driver reports (nvidia-smi), when known
  /// Total CUDA reports (cudaMemGetInfo, torch's "total capacity"), when known: what serving
  /// engines multiply by their memory share. A little below the driver's figure.
  std::optional<double> cuda_memory_bytes;
  /// Unified memory shared with the host (GB10): the most CUDA reports free when nothing runs,
  /// the OS holding the rest. What any workload can have; vLLM refuses to start when its share
  /// of the total is more.
  std::optional<double> free_at_start_bytes;
  double memory_bandwidth_bytes_per_s = 0;
  std::map<std::string, double> dense_flop_per_s;   ///< by compute type; never 2:4-sparse figures
  std::map<std::string, double> sparse_flop_per_s;  ///< 2:4-sparse vendor figures, labelled as such
  /// Best bf16 GEMM throughput measured on the GPU over its dense bf16 peak (mamf-finder), when
  /// known: how much of its peak any matmul reaches, whatever the engine.
  std::optional<double> achievable_matmul_share;
  double tdp_w = 0;
  std::optional<int> sm_count;
  /// GPUs in every system that ships it, where that is one count (GB10: one per DGX Spark): the
  /// default node size, so several of them talk over the network. Absent: the 8-GPU server.
  std::optional<std::uint64_t> gpus_per_system;
  std::optional<Link> scale_up;              ///< NVLink/xGMI domain; absent: GPUs talk over PCIe
  /// An NVLink bridge the card takes as an option (A100 PCIe, H100 PCIe): not assumed, since
  /// servers and clouds often go without; a catalog override that gives `scale_up` fits it.
  std::optional<Link> optional_scale_up;
  Link host_link;
  /// Scale-out NIC bandwidth per GPU, bytes/s, where every system that ships the GPU has the same
  /// NICs (GB300 NVL72: one ConnectX-8 per GPU): the default network between nodes. Absent: the
  /// 8 x 400 Gb/s (ConnectX-7) server's 400 Gb/s per GPU.
  std::optional<double> scale_out_bytes_per_s;
  std::vector<MigProfile> mig_profiles;
  std::vector<std::string> sources;          ///< URLs or documents the figures come from
  std::vector<AlternativeFigure> alternatives;  ///< disputed figures: what other sources say
  std::vector<std::string> aliases;          ///< other names people type ("h100"), lower case
  std::string notes;
  std::string origin;                        ///< catalog file the entry came from

  /// GPUs per node when none is given: the system's count, else kDefaultGpusPerNode (8).
  [[nodiscard]] std::uint64_t default_gpus_per_node() const { return gpus_per_system.value_or(kDefaultGpusPerNode); }
  /// Capacity that fit decisions use: the usable figure if known, else the datasheet figure.
  [[nodiscard]] double fit_memory_bytes() const {
    return free_at_start_bytes ? std::min(driver_memory_bytes(), *free_at_start_bytes) : driver_memory_bytes();
  }
  /// Memory shared with the host (GB10): the catalog states what is free at boot only for these.
  [[nodiscard]] bool unified_memory() const { return free_at_start_bytes.has_value(); }
  /// Total the driver reports (nvidia-smi) if known, else the datasheet figure.
  [[nodiscard]] double driver_memory_bytes() const { return usable_memory_bytes.value_or(memory_bytes); }
  /// Total a serving engine sees: CUDA's figure if known, else the usable figure.
  [[nodiscard]] double engine_memory_bytes() const {
    return cuda_memory_bytes.value_or(driver_memory_bytes());
  }
  /// The 16-bit type its tensor cores multiply: bf16, or fp16 on parts without it (Volta,
  /// Turing), where engines serve bf16 checkpoints cast to fp16.
  [[nodiscard]] const char* sixteen_bit_type() const { return dense_flop_per_s.contains("bf16") ? "bf16" : "fp16"; }
  /// The profile called `name`, or nullptr.
  [[nodiscard]] const MigProfile* find_mig_profile(std::string_view profile_name) const;
};

/// NVIDIA GPU generations as engines tell them apart (they test the compute capability; the
/// catalog has none, so nvidia_arch() infers the class from the tensor formats).
enum class NvidiaArch {
  unknown,             ///< not NVIDIA, or not known
  pre_hopper,          ///< Volta to Ada (SM 7.x, 8.x)
  hopper,              ///< SM 9.0
  blackwell_datacenter,///< SM 10.x (B200, GB200, B300)
  blackwell_other,     ///< SM 12.x (RTX 50xx, RTX PRO 6000, GB10)
};

/// The GPU's generation from its tensor formats and memory (see gpu.cpp).
[[nodiscard]] NvidiaArch nvidia_arch(const GpuSpec& gpu);

/// Memory a MIG profile gives: the measured figure when known, otherwise its share in eighths
/// of the GPU's usable memory (an estimate; `estimated` says which).
struct MigMemory {
  double bytes = 0;
  bool estimated = false;
};
MigMemory mig_memory(const GpuSpec& gpu, const MigProfile& profile);

/// A GPU's best measured bf16 matmul share (achievable_matmul_share) over `reference`, the lowest
/// share among the GPUs a fit was calibrated on, at most 1 (unmeasured: 1). perf and train scale
/// their GEMMs by it, each against its own calibration GPUs.
[[nodiscard]] double matmul_factor(const GpuSpec& gpu, double reference);
/// The note perf and train print when that factor is below 1; `reference_gpu` names whose share
/// `reference` is ("calibrated GPU (B200)").
[[nodiscard]] std::string matmul_factor_note(std::string_view gpu_id, double factor, double reference,
                                             std::string_view reference_gpu);

}  // namespace gpuplan
