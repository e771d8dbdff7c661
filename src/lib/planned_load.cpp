#include <gpuplan/planned_load.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>

#include "detail/document.hpp"

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

std::string count_text(std::uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", detail::group_digits(n), n == 1 ? one : many);
}

void check_load_target(double target) {
  if (!(target > 0) || !std::isfinite(target)) {
    throw InputError(fmt::format("perf.target_output_tokens_per_s: expected a positive number, got {}", target));
  }
}

}  // namespace

PlannedLoad planned_load_for_target(const PerfModel& model, double target) {
  check_load_target(target);
  PlannedLoad load;
  load.target_output_tokens_per_s = target;
  load.replicas_for_target = replicas_for_target(model, target);
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

PlannedLoad planned_load(const PerfModel& model, std::optional<std::uint64_t> concurrency,
                         std::optional<double> target) {
  return target ? planned_load_for_target(model, *target) : planned_load(model, concurrency);
}

std::uint64_t replicas_for_target(const PerfModel& model, double target) {
  check_load_target(target);
  const double replicas = static_cast<double>(std::max<std::uint64_t>(1, model.request().fit.layout.dp));
  const double per_replica = model.full_load_tokens_per_s(model.request().efficiency) / replicas;
  if (!(per_replica > 0)) {
    return 0;
  }
  const double needed = std::ceil(target / per_replica * (1.0 - 1e-12));
  // The true count, even past any deployment (2^16 GPUs): the notes say how many a target takes
  // and sizing refuses what no deployment holds. 2^40 only keeps replicas x GPUs in 64 bits.
  return static_cast<std::uint64_t>(std::clamp(needed, 1.0, 0x1p40));
}

std::uint64_t size_replicas_for_target(const ModelSpec& model, const GpuSpec& gpu, PerfRequest& request,
                                       double target) {
  check_load_target(target);
  Layout& l = request.fit.layout;
  // Expert parallelism spans TP x DP GPUs: replicas come in whole EP groups.
  const std::uint64_t step = l.ep > 1 ? l.ep / std::gcd(l.ep, l.tp) : 1;
  l.dp = step;
  if (!fit(model, gpu, request.fit).fits) {
    return 0;  // not even one replica runs: the fit says why
  }
  // The largest deployment the layout search allows.
  constexpr std::uint64_t kMaxDeploymentGpus = std::uint64_t{1} << 16;
  const std::uint64_t needed = replicas_for_target(PerfModel(model, gpu, request), target);
  const std::uint64_t replicas = (needed + step - 1) / step * step;
  // Capping the count would price and time a deployment that serves a fraction of the target
  // as if it served it all.
  if (replicas * l.tp * l.pp > kMaxDeploymentGpus) {
    throw TargetBeyondDeployment(fmt::format("perf.target_output_tokens_per_s: {} output tok/s need {} of TP {} PP {} of {} "
                                 "({}) at full load, more than the 65,536 GPUs a deployment may have; lower the "
                                 "target, or give a GPU count to see what that many serve",
                                 tokens_per_s_text(target), count_text(replicas, "replica", "replicas"), l.tp, l.pp,
                                 gpu.id, count_text(replicas * l.tp * l.pp, "GPU", "GPUs")));
  }
  l.dp = replicas;
  return l.dp;
}

std::string tokens_per_s_text(double tokens_per_s) {
  return detail::group_digits(static_cast<std::uint64_t>(std::ceil(tokens_per_s)));
}

std::string target_load_note(const PlannedLoad& load, const Layout& layout) {
  if (!load.target_output_tokens_per_s) {
    return {};
  }
  const std::string target = tokens_per_s_text(*load.target_output_tokens_per_s);
  const std::uint64_t replica_gpus = layout.tp * layout.pp;
  // Under expert parallelism over DP ranks the ranks come in whole EP groups.
  const std::uint64_t step = layout.ep > 1 ? layout.ep / std::gcd(layout.ep, layout.tp) : 1;
  const std::uint64_t replicas = (load.replicas_for_target + step - 1) / step * step;
  const std::uint64_t ranks_per_group = layout.ranks_per_expert_group();
  // Attention-DP ranks are no replicas: one rank (TP 1 for DeepSeek) cannot hold the experts,
  // its EP group of ranks is the deployment unit and the batch is each rank's.
  const auto units = [&](std::uint64_t ranks) {
    if (ranks_per_group == 0) {
      return fmt::format("{} of TP {} PP {} ({})", count_text(ranks, "replica", "replicas"), layout.tp, layout.pp,
                         count_text(ranks * replica_gpus, "GPU", "GPUs"));
    }
    return fmt::format("{} of EP {} with attention DP {} ({})",
                       count_text(ranks / ranks_per_group, "replica", "replicas"), layout.ep, ranks_per_group,
                       count_text(ranks * replica_gpus, "GPU", "GPUs"));
  };
  const std::string per = ranks_per_group == 0 ? "per replica" : "per attention rank";
  const std::string needed = units(replicas);
  if (load.capped) {
    return fmt::format("{} output tok/s need more than full load (batch {} {}): {} would serve it", target,
                       load.batch, per, needed);
  }
  if (load.sized_replicas > 0) {
    return fmt::format("sized for {} output tok/s: {}, batch {} {}; --gpus fixes the count", target,
                       units(layout.dp), load.batch, per);
  }
  return fmt::format("{} output tok/s: batch {} {} over {}; {} would serve it at full load", target,
                     load.batch, per,
                     ranks_per_group == 0 ? count_text(layout.dp, "replica", "replicas")
                                          : count_text(layout.dp, "attention rank", "attention ranks"),
                     needed);
}

}  // namespace gpuplan
