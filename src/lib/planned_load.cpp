#include <gpuplan/planned_load.hpp>

#include <algorithm>
#include <cmath>

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

namespace {

void check_target(double target) {
  if (!(target > 0) || !std::isfinite(target)) {
    throw InputError(fmt::format("perf.target_output_tokens_per_s: expected a positive number, got {}", target));
  }
}

}  // namespace

PlannedLoad planned_load_for_target(const PerfModel& model, double target) {
  check_target(target);
  PlannedLoad load;
  load.target_output_tokens_per_s = target;
  const Efficiency& e = model.request().efficiency;
  const std::uint64_t full = std::max<std::uint64_t>(1, model.full_load_batch());
  if (model.evaluate(full, e).output_tokens_per_s < target) {
    load.batch = full;
    load.capped = true;
    return load;
  }
  // Bisection for the smallest batch that serves the target: [lo, hi] always holds it.
  std::uint64_t lo = 1;
  std::uint64_t hi = full;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (model.evaluate(mid, e).output_tokens_per_s >= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  load.batch = lo;
  return load;
}

std::uint64_t replicas_for_target(const PerfModel& model, double target) {
  check_target(target);
  const double replicas = static_cast<double>(std::max<std::uint64_t>(1, model.request().fit.layout.dp));
  const double per_replica = model.full_load_tokens_per_s(model.request().efficiency) / replicas;
  if (!(per_replica > 0)) {
    return 0;
  }
  const double needed = std::ceil(target / per_replica * (1.0 - 1e-12));
  // A target beyond any deployment (past 2^16 GPUs, as the layouts allow) is capped there.
  return static_cast<std::uint64_t>(std::clamp(needed, 1.0, 65536.0));
}

}  // namespace gpuplan
