#include <gpuplan/gpu.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace gpuplan {

double matmul_factor(const GpuSpec& gpu, double reference) {
  return std::min(1.0, gpu.achievable_matmul_share.value_or(reference) / reference);
}

std::string matmul_factor_note(std::string_view gpu_id, double factor, double reference,
                               std::string_view reference_gpu) {
  return fmt::format("{}'s GEMMs are timed at {:.2f}x the calibrated GPUs' share of peak: its best measured bf16 "
                     "matmul reaches {:.3f} of peak, against {:.3f} on the lowest {}",
                     gpu_id, factor, factor * reference, reference, reference_gpu);
}

const MigProfile* GpuSpec::find_mig_profile(std::string_view profile_name) const {
  for (const MigProfile& p : mig_profiles) {
    if (p.name == profile_name) {
      return &p;
    }
  }
  return nullptr;
}

MigMemory mig_memory(const GpuSpec& gpu, const MigProfile& profile) {
  if (profile.memory_bytes) {
    return {.bytes = *profile.memory_bytes, .estimated = false};
  }
  // MIG hands out memory in eighths; the driver's per-slice figure is a little below the share
  // (H200 1g.18gb: 16.00 GiB measured vs 17.55 GiB as 1/8 of 143,771 MiB), so an estimate is
  // labelled as one wherever it is shown.
  constexpr double kEighths = 8.0;
  return {.bytes = gpu.fit_memory_bytes() * profile.memory_eighths / kEighths, .estimated = true};
}

// The GPU's generation as vLLM's MXFP4 backend choice and the MMA tile (perf.cpp) need it. The catalog has no compute
// capability: FP4 tensor cores mark Blackwell, with FP64 ones or HBM bandwidth (B300 and GB300
// cut FP64 tensor cores, not HBM3e's 8 TB/s) the data-center parts (SM100/103: B200, GB200, B300,
// GB300; the RTX 50xx, RTX PRO 6000 and GB10 are SM120/121, GDDR7 or LPDDR5X under 2 TB/s);
// FP8 with FP64 marks Hopper (Ada has FP8 without FP64), as engine_flags.cpp tells Hopper apart.
NvidiaArch nvidia_arch(const GpuSpec& gpu) {
  if (gpu.vendor != "nvidia") {
    return NvidiaArch::unknown;
  }
  const auto has = [&gpu](const char* t) { return gpu.dense_flop_per_s.contains(t); };
  if (has("fp4")) {
    constexpr double kHbmBytesPerS = 4e12;
    return has("fp64") || gpu.memory_bandwidth_bytes_per_s >= kHbmBytesPerS ? NvidiaArch::blackwell_datacenter
                                                                            : NvidiaArch::blackwell_other;
  }
  return has("fp8") && has("fp64") ? NvidiaArch::hopper : NvidiaArch::pre_hopper;
}

}  // namespace gpuplan
