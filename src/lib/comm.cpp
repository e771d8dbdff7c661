#include <gpuplan/comm.hpp>

namespace gpuplan {

CommLink group_link(const GpuSpec& gpu, std::uint64_t group_gpus, double network_bytes_per_s_per_gpu,
                    double link_efficiency, double hop_latency_s, PcieRate pcie) {
  // PCIe peer-to-peer
  double bandwidth = pcie == PcieRate::line ? gpu.host_link.bytes_per_s_per_direction : gpu.host_link.peer_rate();
  if (gpu.scale_up && group_gpus <= static_cast<std::uint64_t>(gpu.scale_up->domain_gpus)) {
    bandwidth = gpu.scale_up->bytes_per_s_per_direction;
  } else if (gpu.scale_up) {
    bandwidth = network_bytes_per_s_per_gpu;  // the group spans nodes
  }
  return {.bytes_per_s_per_direction = bandwidth * link_efficiency, .hop_latency_s = hop_latency_s};
}

double allreduce_s(double message_bytes, std::uint64_t gpus, const CommLink& link) {
  if (gpus <= 1) {
    return 0.0;
  }
  const double n = static_cast<double>(gpus);
  // Reduce-scatter then all-gather: 2(n-1) steps, each moving message/n.
  return 2.0 * (n - 1.0) / n * message_bytes / link.bytes_per_s_per_direction +
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
