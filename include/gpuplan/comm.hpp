#pragma once
// Communication time (DESIGN "Communication"): ring all-reduce moves 2(n-1)/n x message bytes
// per GPU over the per-direction link bandwidth, plus a latency term per hop; all-to-all moves
// (n-1)/n of the message; point-to-point moves it once.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <gpuplan/gpu.hpp>

namespace gpuplan {

/// A link as communication sees it: achievable bandwidth one way and a latency per hop.
struct CommLink {
  double bytes_per_s_per_direction = 0;
  double hop_latency_s = 0;
  /// What a ring all-reduce gets per GPU where it differs (0: bytes_per_s_per_direction): across
  /// nodes NCCL runs one ring per NIC, so a node's share of the traffic leaves over all the
  /// group's NICs in that node, not one GPU's (calibration.json: 4 x 8 B200 at 400 Gb/s per GPU
  /// measured 381.8 GB/s of bus bandwidth, 7.6x one NIC). All-to-all and point-to-point traffic
  /// leaves over each GPU's own NIC.
  double allreduce_bytes_per_s_per_direction = 0;
  bool crosses_nodes = false;  ///< over the network: each hop waits on a NIC (kNetworkHopLatencyS)
  bool over_pcie = false;      ///< inside a node over PCIe: each hop crosses the host (kPcieHopLatencyS)

  [[nodiscard]] double allreduce_rate() const {
    return allreduce_bytes_per_s_per_direction > 0 ? allreduce_bytes_per_s_per_direction : bytes_per_s_per_direction;
  }
};

/// A ring hop that crosses nodes, where any hop is charged at all (a roofline charges none): an
/// all-reduce of 1 MiB over 4 x 8 B200 on EFA took 379 us, 62 hops of 6 us (calibration.json,
/// stas00's table); SGLang at TP 16 over InfiniBand decodes DeepSeek-R1 about 14 ms per step
/// slower than one node's timing, 122 all-reduces of 30 hops, 3.8 us each
/// (tenstorrent/tt-inference-server#356). NVLink hops take about 1 us (Efficiency::hop_latency_s).
inline constexpr double kNetworkHopLatencyS = 5e-6;

/// A ring hop between GPUs of one node that talk over PCIe (no NVLink between them), where any hop
/// is charged at all: it crosses the PCIe root complex or switch, and on cards without peer access
/// (GeForce) it is staged through host memory. NCCL's 8-byte all-reduce over 8 PCIe GPUs, which is
/// all latency, took 42.14 us on RTX 4090s (NVIDIA/nccl#1530, all_reduce_perf -g 8) and
/// 54.18 us on eight RTX 3090s (NVIDIA/nccl#1439): 14 ring hops of 3.0 and 3.9 us, against ~1 us over
/// NVLink (Efficiency::hop_latency_s). The lower figure is taken. INFERRED for PCIe cards with peer
/// access (L40S, RTX PRO 6000): no public 8-byte figure for them was found; a hop still crosses the
/// root complex or a PCIe switch rather than an NVSwitch.
inline constexpr double kPcieHopLatencyS = 3e-6;

/// A hop's latency on a link that does or does not cross nodes (or stays on PCIe inside one),
/// where any is charged at all.
[[nodiscard]] inline double hop_latency_s(double base_s, bool crosses_nodes, bool over_pcie = false) {
  if (!(base_s > 0)) {
    return base_s;
  }
  const double floor_s = crosses_nodes ? kNetworkHopLatencyS : over_pcie ? kPcieHopLatencyS : 0.0;
  return base_s > floor_s ? base_s : floor_s;
}

/// A scale-up domain of at most this many GPUs lives in one server (HGX boards, NVLink bridges) and
/// ends where the node does; a larger one (NVL72, NVL36) joins the trays of a rack, each a node.
inline constexpr std::uint64_t kServerDomainGpus = 8;

/// GPUs a group reaches over the scale-up link: the domain, cut at the node unless it spans a
/// rack; 1 without a scale-up link.
[[nodiscard]] std::uint64_t scale_up_reach(const GpuSpec& gpu, std::uint64_t node_gpus);

/// The most GPUs one node of `gpu` holds where its systems fix the count: the systems' own count
/// (gpus_per_system: one GB10 per DGX Spark), or a scale-up board of at most kServerDomainGpus
/// (HGX H100/H200/B200 and OAM boards hold 8 on one NVLink/xGMI fabric, and a server takes one
/// board), so no node joins two boards by anything but its NICs. Never below the default node
/// (kDefaultGpusPerNode). nullopt where servers take any number of cards (PCIe, bridges) or the
/// domain spans a rack's nodes (NVL72).
[[nodiscard]] std::optional<std::uint64_t> max_gpus_per_node(const GpuSpec& gpu);
/// Throws InputError naming `flag` when a node of `node_gpus` is more than max_gpus_per_node(gpu):
/// a TP group over two such boards would be timed on a link no server has.
void require_node_size(const GpuSpec& gpu, std::uint64_t node_gpus, std::string_view flag);

/// How a group of GPUs talks: inside the scale-up domain, over PCIe inside one node of
/// `node_gpus` GPUs (cards without NVLink, or a group beyond its bridge), or over the network.
enum class GroupPath { scale_up, pcie, network };
[[nodiscard]] GroupPath group_path(const GpuSpec& gpu, std::uint64_t group_gpus, std::uint64_t node_gpus);
/// The link's name for a path: the scale-up or host link's kind, or "network".
[[nodiscard]] std::string path_name(const GpuSpec& gpu, GroupPath path);

/// Which PCIe rate a group gets: what each GPU gets while all exchange at once (estimates), or the
/// link's line rate (bounds).
enum class PcieRate { shared, line };

/// The link GPUs of one group talk over (group_path): the scale-up domain (NVLink/xGMI) when the
/// group fits in it, else PCIe inside one node, else the network between nodes.
/// `network_bytes_per_s_per_gpu` is the per-GPU share of the node's NICs (8 x 400 Gb/s = 50e9).
/// `stride`: the group's members are every stride-th GPU of the span `group_gpus` (a DP group
/// over TP x CP ranks: TP x CP), so a node holds span / stride of them, and a ring across nodes
/// gets that many NICs (the other groups in the node use the rest at the same time).
CommLink group_link(const GpuSpec& gpu, std::uint64_t group_gpus, std::uint64_t node_gpus,
                    double network_bytes_per_s_per_gpu, double link_efficiency, double hop_latency_s,
                    PcieRate pcie = PcieRate::shared, std::uint64_t stride = 1);

/// Ring all-reduce of `message_bytes` over `gpus` GPUs; 0 for one GPU.
double allreduce_s(double message_bytes, std::uint64_t gpus, const CommLink& link);
/// All-to-all where each GPU holds `message_bytes` to scatter over `gpus` GPUs.
double alltoall_s(double message_bytes, std::uint64_t gpus, const CommLink& link);
/// One point-to-point transfer.
double p2p_s(double message_bytes, const CommLink& link);

}  // namespace gpuplan
