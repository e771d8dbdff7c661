#include <gpuplan/comm.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/layout.hpp>

namespace gpuplan {

namespace {

std::uint64_t domain_of(const GpuSpec& gpu) {
  return gpu.scale_up ? static_cast<std::uint64_t>(gpu.scale_up->domain_gpus) : 1;
}

}  // namespace

std::uint64_t scale_up_reach(const GpuSpec& gpu, std::uint64_t node_gpus) {
  const std::uint64_t domain = domain_of(gpu);
  // An 8-GPU NVLink board in a 4-GPU node reaches 4; a rack's domain spans its nodes.
  return domain > kServerDomainGpus ? domain : std::min(domain, node_gpus);
}

std::optional<std::uint64_t> max_gpus_per_node(const GpuSpec& gpu) {
  if (gpu.gpus_per_system) {
    return *gpu.gpus_per_system;
  }
  // A bridge joins two or four PCIe cards (H100 NVL, H200 NVL): a server takes several bridged
  // sets, 10 double-width cards in some 4U chassis, so only a board fixes the node.
  const bool board = gpu.scale_up && gpu.scale_up->kind.find("bridge") == std::string::npos;
  if (board && domain_of(gpu) <= kServerDomainGpus) {
    return std::max(domain_of(gpu), kDefaultGpusPerNode);
  }
  return std::nullopt;
}

void require_node_size(const GpuSpec& gpu, std::uint64_t node_gpus, std::string_view flag) {
  const std::optional<std::uint64_t> most = max_gpus_per_node(gpu);
  if (!most || node_gpus <= *most) {
    return;
  }
  if (gpu.gpus_per_system) {
    throw InputError(fmt::format("{}: {} comes {} per system, not {}; more of them talk over the network: "
                                 "give --gpus-per-node {} (or leave it out)",
                                 flag, gpu.id, *most, node_gpus, *most));
  }
  throw InputError(fmt::format(
      "{}: no {} server holds {} GPUs: its {} board of {} is the node, and GPUs on two boards talk over the "
      "network, not {} or PCIe; give --gpus-per-node {} or less (a larger deployment spans several nodes), "
      "or a catalog entry whose scale_up domain_gpus spans the larger node",
      flag, gpu.id, node_gpus, gpu.scale_up->kind, gpu.scale_up->domain_gpus, gpu.scale_up->kind, *most));
}

GroupPath group_path(const GpuSpec& gpu, std::uint64_t group_gpus, std::uint64_t node_gpus) {
  const std::uint64_t reach = scale_up_reach(gpu, node_gpus);
  if (gpu.scale_up && group_gpus <= reach) {
    return GroupPath::scale_up;
  }
  // PCIe cards (none, or NVLink bridges between two or four) share a node's PCIe; an 8-GPU
  // NVLink board's larger groups, and a host link that is not PCIe (Grace's C2C), use the network.
  if (domain_of(gpu) < kServerDomainGpus && reach < node_gpus && group_gpus <= node_gpus &&
      gpu.host_link.kind.starts_with("pcie")) {
    return GroupPath::pcie;
  }
  return GroupPath::network;
}

std::string path_name(const GpuSpec& gpu, GroupPath path) {
  switch (path) {
    case GroupPath::scale_up: return gpu.scale_up ? gpu.scale_up->kind : gpu.host_link.kind;
    case GroupPath::pcie: return gpu.host_link.kind;
    case GroupPath::network: return "network";
  }
  return "network";
}

CommLink group_link(const GpuSpec& gpu, std::uint64_t group_gpus, std::uint64_t node_gpus,
                    double network_bytes_per_s_per_gpu, double link_efficiency, double hop_latency_s,
                    PcieRate pcie, std::uint64_t stride) {
  const double host = pcie == PcieRate::line ? gpu.host_link.bytes_per_s_per_direction : gpu.host_link.peer_rate();
  // Across nodes a GPU reaches its NIC over its host link too: the slower of the two.
  double bandwidth = std::min(network_bytes_per_s_per_gpu, host);
  double ring = 0;
  bool network = false;
  bool over_pcie = false;
  switch (group_path(gpu, group_gpus, node_gpus)) {
    case GroupPath::scale_up: bandwidth = gpu.scale_up->group_rate(group_gpus); break;
    case GroupPath::pcie: bandwidth = host; over_pcie = true; break;
    case GroupPath::network: {
      // A ring over nodes crosses each node once per NIC's ring: the node's traffic shares its
      // group GPUs' NICs, and inside the node it moves over the scale-up link (or PCIe).
      const std::uint64_t local = std::max<std::uint64_t>(1, std::min(group_gpus, node_gpus) / std::max<std::uint64_t>(stride, 1));
      const double inside = gpu.scale_up && scale_up_reach(gpu, node_gpus) >= local
                                ? gpu.scale_up->group_rate(local)
                                : host;
      ring = std::min(static_cast<double>(local) * bandwidth, std::max(inside, bandwidth)) * link_efficiency;
      network = true;
      break;
    }
  }
  return {.bytes_per_s_per_direction = bandwidth * link_efficiency,
          .hop_latency_s = gpuplan::hop_latency_s(hop_latency_s, network, over_pcie),
          .allreduce_bytes_per_s_per_direction = ring,
          .crosses_nodes = network,
          .over_pcie = over_pcie};
}

double allreduce_s(double message_bytes, std::uint64_t gpus, const CommLink& link) {
  if (gpus <= 1) {
    return 0.0;
  }
  const double n = static_cast<double>(gpus);
  // Reduce-scatter then all-gather: 2(n-1) steps, each moving message/n.
  return 2.0 * (n - 1.0) / n * message_bytes / link.allreduce_rate() +
         2.0 * (n - 1.0) * link.hop_latency_s;
}

double alltoall_s(double message_bytes, std::uint64_t gpus, const CommLink& link) {
  if (gpus <= 1) {
    return 0.0;
  }
  const double n = static_cast<double>(gpus);
  return (n - 1.0) / n * message_bytes / link.bytes_per_s_per_direction + (n - 1.0) * link.hop_latency_s;
}

double p2p_s(double message_bytes, const CommLink& link) {
  return message_bytes / link.bytes_per_s_per_direction + link.hop_latency_s;
}

}  // namespace gpuplan
