#pragma once
// Communication time (DESIGN "Communication"): ring all-reduce moves 2(n-1)/n x message bytes
// per GPU over the per-direction link bandwidth, plus a latency term per hop; all-to-all moves
// (n-1)/n of the message; point-to-point moves it once.

#include <cstdint>
#include <string>

#include <gpuplan/gpu.hpp>

namespace gpuplan {

/// A link as communication sees it: achievable bandwidth one way and a latency per hop.
struct CommLink {
  double bytes_per_s_per_direction = 0;
  double hop_latency_s = 0;
};

/// GPUs one PCIe server holds: a group of at most this many that outgrows its NVLink bridge (or
/// has no scale-up link) talks over PCIe inside the server; a larger one spans servers.
inline constexpr std::uint64_t kPcieServerGpus = 8;

/// How a group of GPUs talks: inside the scale-up domain, over PCIe inside one server, or over
/// the network between nodes.
enum class GroupPath { scale_up, pcie, network };
[[nodiscard]] GroupPath group_path(const GpuSpec& gpu, std::uint64_t group_gpus);
/// The link's name for a path: the scale-up or host link's kind, or "network".
[[nodiscard]] std::string path_name(const GpuSpec& gpu, GroupPath path);

/// Which PCIe rate a group gets: what each GPU gets while all exchange at once (estimates), or the
/// link's line rate (bounds).
enum class PcieRate { shared, line };

/// The link GPUs of one group talk over (group_path): the scale-up domain (NVLink/xGMI) when the
/// group fits in it, else PCIe inside one server, else the network between nodes.
/// `network_bytes_per_s_per_gpu` is the per-GPU share of the node's NICs (8 x 400 Gb/s = 50e9).
CommLink group_link(const GpuSpec& gpu, std::uint64_t group_gpus, double network_bytes_per_s_per_gpu,
                    double link_efficiency, double hop_latency_s, PcieRate pcie = PcieRate::shared);

/// Ring all-reduce of `message_bytes` over `gpus` GPUs; 0 for one GPU.
double allreduce_s(double message_bytes, std::uint64_t gpus, const CommLink& link);
/// All-to-all where each GPU holds `message_bytes` to scatter over `gpus` GPUs.
double alltoall_s(double message_bytes, std::uint64_t gpus, const CommLink& link);
/// One point-to-point transfer.
double p2p_s(double message_bytes, const CommLink& link);

}  // namespace gpuplan
