#include <gpuplan/gpu.hpp>

namespace gpuplan {

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

}  // namespace gpuplan
