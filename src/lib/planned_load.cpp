#include <gpuplan/planned_load.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan {

PlannedLoad planned_load(const PerfModel& model, std::optional<std::uint64_t> concurrency) {
  if (concurrency && *concurrency == 0) {
    throw InputError("fit.concurrency: expected at least 1 sequence, got 0");
  }
  PlannedLoad load;
  load.concurrency = concurrency;
  const std::uint64_t full = std::max<std::uint64_t>(1, model.full_load_batch());
  if (!concurrency) {
    load.batch = full;
    return load;
  }
  const std::uint64_t replicas = std::max<std::uint64_t>(1, model.request().fit.layout.dp);
  const std::uint64_t per_replica = (*concurrency + replicas - 1) / replicas;
  load.capped = per_replica > full;
  load.batch = std::min(per_replica, full);
  return load;
}

}  // namespace gpuplan
