// Measured scaling: speed-up, efficiency, marginal efficiency, cost per unit of work, the fitted
// laws' predictions and where adding GPUs stops paying (include/gpuplan/scaling.hpp).
#include <gpuplan/scaling.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/rental.hpp>

#include "detail/ascii.hpp"
#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

using limits::kMaxGpus;

using detail::d;

using detail::lower;

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::string percent_text(double share) { return fmt::format("{:.1f} %", share * 100.0); }

void validate(const ScalingRequest& r) {
  if (r.points.size() < 2) {
    throw InputError(fmt::format("scaling.points: give at least two measured points (GPU count = throughput), got {}",
                                 r.points.size()));
  }
  for (const ScalingPoint& p : r.points) {
    if (p.gpus < 1 || p.gpus > kMaxGpus) {
      throw InputError(fmt::format("scaling.points: GPU counts must be between 1 and {}, got {}", kMaxGpus, p.gpus));
    }
    // Below 1e-6 units/s the cost per unit runs to hundreds of digits.
    if (!std::isfinite(p.throughput) || !(p.throughput >= 1e-6) || p.throughput > 1e18) {
      throw InputError(fmt::format("scaling.points: the throughput on {} GPUs must be a positive number between 1e-6 "
                                   "and 1e18, got {}",
                                   p.gpus, p.throughput));
    }
  }
  // Runs of one workload differ per GPU by a few times at most; a factor past 1e6 is a unit slip,
  // and past 1e300 the relative errors overflow to inf.
  constexpr double kMaxSpreadPerGpu = 1e6;
  const auto per_gpu = [](const ScalingPoint& p) { return p.throughput / static_cast<double>(p.gpus); };
  const auto [lo, hi] = std::minmax_element(r.points.begin(), r.points.end(),
                                            [&](const ScalingPoint& a, const ScalingPoint& b) { return per_gpu(a) < per_gpu(b); });
  if (per_gpu(*hi) > per_gpu(*lo) * kMaxSpreadPerGpu) {
    throw InputError(fmt::format("scaling.points: the throughput per GPU differs by more than a factor of {:g} ({}={:g} "
                                 "against {}={:g}); are the units the same?",
                                 kMaxSpreadPerGpu, lo->gpus, lo->throughput, hi->gpus, hi->throughput));
  }
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    for (std::size_t j = i + 1; j < r.points.size(); ++j) {
      if (r.points[i].gpus == r.points[j].gpus) {
        throw InputError(fmt::format("scaling.points: {} GPUs is measured twice ({}={:g} and {}={:g}); give each GPU "
                                     "count once (average repeated runs first)",
                                     r.points[i].gpus, r.points[i].gpus, r.points[i].throughput, r.points[j].gpus,
                                     r.points[j].throughput));
      }
    }
  }
  // cost's range: 1e-300 USD printed costs per unit of 2.8e-300.
  if (r.usd_per_gpu_hour && !(*r.usd_per_gpu_hour >= 1e-4 && *r.usd_per_gpu_hour <= 1e4)) {
    throw InputError(fmt::format("scaling.usd_per_gpu_hour: expected a price between 0.0001 and 10000 USD, got {}",
                                 *r.usd_per_gpu_hour));
  }
  if (!(r.min_marginal_efficiency > 0) || r.min_marginal_efficiency > 1) {
    throw InputError(
        fmt::format("scaling.min_marginal_efficiency: expected a share in (0, 1], got {}", r.min_marginal_efficiency));
  }
  if (!(r.max_cost_increase > 0) || r.max_cost_increase > 100) {
    throw InputError(fmt::format("scaling.max_cost_increase: expected a share > 0 (0.2 = 20 %), got {}",
                                 r.max_cost_increase));
  }
  if (r.up_to > kMaxGpus) {
    throw InputError(fmt::format("scaling.up_to: at most {} GPUs, got {}", kMaxGpus, r.up_to));
  }
  for (std::uint64_t n : r.predict_at) {
    if (n < 1 || n > kMaxGpus) {
      throw InputError(fmt::format("scaling.predict_at: GPU counts must be between 1 and {}, got {}", kMaxGpus, n));
    }
  }
}

// Fills speed-up, efficiency, marginal efficiency and cost for rows in GPU order, against `base`
// (the smallest measured point, or for predictions the law's value there).
void derive(std::vector<ScalingRow>& rows, const ScalingPoint& base, const ScalingRequest& r) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ScalingRow& row = rows[i];
    row.speedup = row.throughput / base.throughput;
    row.efficiency = row.speedup / (d(row.gpus) / d(base.gpus));
    row.super_linear = row.efficiency > 1.0 + 1e-9;
    if (i > 0) {
      // Speed-up gained per added GPU, over the ideal 1/N0 per GPU (N0 the smallest measured).
      row.marginal_efficiency =
          (row.speedup - rows[i - 1].speedup) / ((d(row.gpus) - d(rows[i - 1].gpus)) / d(base.gpus));
    }
    row.paid_gpus = row.gpus;
    if (r.usd_per_gpu_hour) {
      // A count's GPUs run one job whose ranks talk: up to a node they share one instance
      // (rent_instances() counts a group that does not divide the GPUs as 1).
      double rate = *r.usd_per_gpu_hour;
      if (r.price) {
        const GpuNeed need{.gpus = row.gpus, .group = std::min<std::uint64_t>(row.gpus, kDefaultGpusPerNode)};
        const Price& paid = r.offer.empty() ? *r.price : best_for(r.offer, need);
        const InstanceRental rental = rent_instances(row.gpus, paid.gpus_per_instance, need.group);
        row.paid_gpus = rental.rented_gpus;
        row.paid_lower_bound = rental.group_split;
        rate = paid.usd_per_gpu_hour;
      }
      row.usd_per_gpu_hour = rate;
      const double units_per_hour = row.throughput * 3600.0 / r.unit.period_s;
      row.usd_per_unit = rate * d(row.paid_gpus) / units_per_hour;
      row.usd_per_unit_used = rate * d(row.gpus) / units_per_hour;
    }
  }
}

// Costs are quoted per million units of work (per million tokens for tokens).
std::string cost_text(double usd_per_unit, const ThroughputUnit& unit) {
  return fmt::format("USD {:.4g} per million {}", usd_per_unit * 1e6, unit.tokens ? "tokens" : unit.work);
}

std::string amount_text(double v) { return std::abs(v) >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

// Rows in the order the rules read them: every measured point, then predictions beyond the
// largest measured count.
std::vector<const ScalingRow*> sequence(const ScalingResult& res) {
  std::vector<const ScalingRow*> seq;
  for (const ScalingRow& row : res.points) {
    seq.push_back(&row);
  }
  const std::uint64_t largest = res.points.back().gpus;
  for (const ScalingRow& row : res.predictions) {
    if (row.gpus > largest) {
      seq.push_back(&row);
    }
  }
  return seq;
}

StopRule marginal_rule(const ScalingResult& res) {
  const double limit = res.request.min_marginal_efficiency;
  StopRule rule{.name = "marginal_efficiency"};
  const auto seq = sequence(res);
  for (std::size_t i = 1; i < seq.size(); ++i) {
    const ScalingRow& row = *seq[i];
    const std::optional<double> marginal = row.marginal_efficiency;  // predictions step from the law's own values
    if (marginal && *marginal < limit) {
      rule.gpus = row.gpus;
      rule.last_paying_gpus = seq[i - 1]->gpus;
      rule.predicted = !row.measured;
      rule.reason = fmt::format("the step from {} to {} GPUs has a marginal efficiency of {}{}, below the {} "
                                "threshold (--min-marginal-efficiency)",
                                seq[i - 1]->gpus, row.gpus, percent_text(*marginal),
                                row.measured ? " (measured)" : fmt::format(" (predicted, {})", res.prediction_law),
                                percent_text(limit));
      return rule;
    }
  }
  rule.reason = fmt::format("every step up to {} GPUs keeps a marginal efficiency of at least {}",
                            res.request.up_to, percent_text(limit));
  return rule;
}

// Scaling, not packing: the cost of the GPUs each count runs on. A count that pays idle GPUs of
// whole instances (2 GPUs on an 8-GPU-only offer) costs more for the rental, not because adding
// GPUs stopped paying; packing_text() says that apart.
StopRule cost_rule(const ScalingResult& res) {
  const double limit = res.request.max_cost_increase;
  StopRule rule{.name = "cost_increase"};
  const auto seq = sequence(res);
  const ScalingRow* cheapest = seq.front();
  const bool idle = std::any_of(seq.begin(), seq.end(), [](const ScalingRow* r) { return r->paid_gpus > r->gpus; });
  const std::string_view used = idle ? " over the GPUs used" : "";
  for (std::size_t i = 1; i < seq.size(); ++i) {
    const ScalingRow& row = *seq[i];
    if (*row.usd_per_unit_used > *cheapest->usd_per_unit_used * (1.0 + limit)) {
      rule.gpus = row.gpus;
      rule.last_paying_gpus = seq[i - 1]->gpus;
      rule.predicted = !row.measured;
      rule.reason = fmt::format("{}{} on {}{} is {} above the lowest, {} on {} (--max-cost-increase {})",
                                cost_text(*row.usd_per_unit_used, res.request.unit), used, gpus_text(row.gpus),
                                row.measured ? "" : fmt::format(" (predicted, {})", res.prediction_law),
                                percent_text(*row.usd_per_unit_used / *cheapest->usd_per_unit_used - 1.0),
                                cost_text(*cheapest->usd_per_unit_used, res.request.unit), gpus_text(cheapest->gpus),
                                percent_text(limit));
      return rule;
    }
    if (*row.usd_per_unit_used < *cheapest->usd_per_unit_used) {
      cheapest = &row;
    }
  }
  rule.reason = fmt::format("cost per unit{} stays within {} of the lowest up to {} GPUs", used, percent_text(limit),
                            res.request.up_to);
  return rule;
}

// Which counts pay idle GPUs of whole instances, and what the rental adds per unit over the
// cheapest count that fills its instances: the packing verdict, apart from the scaling one.
std::string packing_text(const ScalingResult& res) {
  const auto seq = sequence(res);
  std::vector<std::string> idle;
  const ScalingRow* cheapest_full = nullptr;
  for (const ScalingRow* row : seq) {
    if (row->paid_gpus > row->gpus) {
      idle.push_back(fmt::format("{} GPUs ({} paid, {})", row->gpus, row->paid_gpus,
                                 cost_text(*row->usd_per_unit, res.request.unit)));
    } else if (!cheapest_full || *row->usd_per_unit < *cheapest_full->usd_per_unit) {
      cheapest_full = row;
    }
  }
  if (idle.empty()) {
    return {};
  }
  return fmt::format(
      "instance packing, apart from scaling: {} rents whole instances, so these counts pay idle GPUs: {}{}. The stop "
      "rules read the cost of the GPUs used (scaling); the table's cost is of the GPUs paid (the rental): run counts "
      "that fill instances, or give the idle GPUs other work",
      res.request.price ? res.request.price->provider : std::string("the price"), fmt::join(idle, "; "),
      cheapest_full ? fmt::format("; the cheapest count that fills its instances is {}, {}", gpus_text(cheapest_full->gpus),
                                  cost_text(*cheapest_full->usd_per_unit, res.request.unit))
                    : std::string());
}

StopRule peak_rule(const ScalingResult& res) {
  StopRule rule{.name = "usl_peak", .predicted = true};
  if (!res.usl.fitted) {
    rule.reason = "USL not fitted: it needs at least three measured points";
    return rule;
  }
  const std::optional<double> peak = res.usl.peak_gpus();
  if (!peak) {
    rule.reason = "USL coherency kappa = 0: throughput never peaks (none within range)";
    return rule;
  }
  // The whole GPU count with the most throughput is one of the two around N*.
  const double lo = std::max(1.0, std::floor(*peak));
  const double best = res.usl.throughput(lo) >= res.usl.throughput(lo + 1.0) ? lo : lo + 1.0;
  if (best > d(res.request.up_to)) {
    rule.reason = fmt::format("USL peak N* = sqrt((1 - sigma) / kappa) = {:.1f} GPUs lies beyond --up-to {} "
                              "(none within range)",
                              *peak, res.request.up_to);
    return rule;
  }
  const auto peak_gpus = std::max(static_cast<std::uint64_t>(best), res.points.front().gpus);
  rule.gpus = peak_gpus + 1;
  rule.last_paying_gpus = peak_gpus;
  rule.reason = fmt::format("USL peak N* = sqrt((1 - sigma) / kappa) = {:.1f}: throughput tops out at {} {} on "
                            "{} GPUs and falls with every GPU added after",
                            *peak, amount_text(res.usl.throughput(best)), res.request.unit.text, peak_gpus);
  return rule;
}

}  // namespace

ThroughputUnit parse_throughput_unit(std::string_view text, std::string_view field) {
  const std::string t = trim(text);
  if (t.empty()) {
    throw InputError(fmt::format("{}: expected a unit such as tokens/s or samples/s, got an empty one", field));
  }
  ThroughputUnit u;
  // Echoed in every row and note: a control character (an ESC sequence) would drive the terminal.
  if (std::any_of(t.begin(), t.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    throw InputError(fmt::format("{}: '{}' contains a control character; expected e.g. tokens/s or samples/s", field,
                                 limits::escaped(t)));
  }
  u.text = t;
  const auto slash = t.rfind('/');
  if (slash == std::string::npos) {
    u.work = t;  // a bare noun: per second
    u.text = t + "/s";
  } else {
    u.work = trim(std::string_view(t).substr(0, slash));
    const std::string per = lower(trim(std::string_view(t).substr(slash + 1)));
    if (per == "s" || per == "sec" || per == "second") {
      u.period_s = 1;
    } else if (per == "min" || per == "minute") {
      u.period_s = 60;
    } else if (per == "h" || per == "hr" || per == "hour") {
      u.period_s = 3600;
    } else {
      throw InputError(fmt::format("{}: '{}' is not a rate: expected WORK/s, WORK/min or WORK/h (e.g. tokens/s)",
                                   field, t));
    }
    if (u.work.empty()) {
      throw InputError(fmt::format("{}: '{}' names no work: expected e.g. tokens/s or samples/s", field, t));
    }
  }
  const std::string w = lower(u.work);
  u.tokens = w.starts_with("tok");
  return u;
}

namespace {
// How many copies of the smallest measured count the largest holds (8 GPUs over 2: 4).
std::uint64_t largest_multiple(const std::vector<ScalingPoint>& sorted) {
  return std::max<std::uint64_t>(1, sorted.back().gpus / std::max<std::uint64_t>(1, sorted.front().gpus));
}
}  // namespace

ScalingResult measured_scaling(ScalingRequest request) {
  validate(request);
  ScalingResult res;
  if (!std::is_sorted(request.points.begin(), request.points.end(),
                      [](const ScalingPoint& a, const ScalingPoint& b) { return a.gpus < b.gpus; })) {
    std::sort(request.points.begin(), request.points.end(),
              [](const ScalingPoint& a, const ScalingPoint& b) { return a.gpus < b.gpus; });
    res.notes.push_back("points were given out of GPU order; sorted by GPU count");
  }
  if (request.unit.tokens) {
    // Serving is not one job: more GPUs can run more replicas of the smallest layout, whose
    // throughput adds up; Amdahl and USL fitted over larger TP layouts miss that option.
    res.notes.push_back(fmt::format(
        "tokens/s of serving: replicas of one layout scale linearly ({} x {} GPUs serve {} x the {}-GPU rate), so "
        "the stop rules below say where a larger layout stops paying, not where more GPUs do; modeled scale "
        "(--model, --gpu) sets replicas against larger layouts",
        largest_multiple(request.points), request.points.front().gpus, largest_multiple(request.points),
        request.points.front().gpus));
  }
  const ScalingPoint base = request.points.front();
  const std::uint64_t largest = request.points.back().gpus;
  if (request.up_to == 0) {
    request.up_to = std::min<std::uint64_t>(kMaxGpus, largest * 8);
  }
  if (request.up_to < largest) {
    throw InputError(fmt::format("scaling.up_to: {} is below the largest measured count, {} GPUs", request.up_to,
                                 largest));
  }
  res.request = request;

  for (const ScalingPoint& p : request.points) {
    res.points.push_back({.gpus = p.gpus, .throughput = p.throughput, .measured = true});
  }
  derive(res.points, base, request);
  for (const ScalingRow& row : res.points) {
    if (row.super_linear) {
      res.notes.push_back(fmt::format("super-linear: {} GPUs reach {} efficiency (over 100 %): caches, or a batch "
                                      "that changed with the GPU count; neither law can follow it",
                                      row.gpus, percent_text(row.efficiency)));
    }
  }

  res.amdahl = fit_amdahl(request.points);
  res.usl = fit_usl(request.points);
  if (!res.usl.fitted) {
    res.notes.push_back(fmt::format("USL has three parameters (lambda, sigma, kappa) and there are {} points: only "
                                    "Amdahl is fitted, and predictions use it",
                                    request.points.size()));
  }
  if (res.amdahl.exact) {
    res.notes.push_back("Amdahl from two points passes through both: its R2 of 1 says nothing about the fit");
  }
  if (res.usl.exact) {
    res.notes.push_back("USL from three points passes through all of them: its R2 of 1 says nothing, and its "
                        "extrapolation rests on every point being right");
  }
  const LawFit& law = res.usl.fitted ? res.usl : res.amdahl;
  res.prediction_law = res.usl.fitted ? "usl" : "amdahl";

  // Predict at the measured counts, doublings of the smallest, the asked-for counts and up_to.
  std::set<std::uint64_t> counts{request.up_to};
  for (const ScalingPoint& p : request.points) {
    counts.insert(p.gpus);
  }
  for (std::uint64_t n = base.gpus; n <= request.up_to; n *= 2) {
    counts.insert(n);
  }
  for (std::uint64_t n : request.predict_at) {
    if (n >= base.gpus && n <= request.up_to) {
      counts.insert(n);
    } else {
      res.notes.push_back(fmt::format("no prediction at {} GPUs: outside {} .. {} (the smallest measured count to "
                                      "--up-to)",
                                      n, base.gpus, request.up_to));
    }
  }
  for (std::uint64_t n : counts) {
    ScalingRow row{.gpus = n, .throughput = law.throughput(d(n))};
    for (const ScalingPoint& p : request.points) {
      if (p.gpus == n) {
        row.measured_throughput = p.throughput;
      }
    }
    res.predictions.push_back(row);
  }
  derive(res.predictions, ScalingPoint{.gpus = base.gpus, .throughput = law.throughput(d(base.gpus))}, request);
  if (request.price) {
    const Price sizes = offer_sizes(*request.price, request.offer);
    if (!sizes.gpus_per_instance.empty()) {
      res.notes.push_back(fmt::format(
          "{} rents whole instances of {}: each count pays the size that costs it least, idle GPUs included "
          "(\"4 (8 paid)\"), its GPUs up to a node ({}) in one instance as one job's ranks",
          request.price->provider, instance_sizes_text(sizes), kDefaultGpusPerNode));
    }
    const auto split = [](const ScalingRow& row) { return row.paid_lower_bound; };
    if (std::any_of(res.points.begin(), res.points.end(), split) ||
        std::any_of(res.predictions.begin(), res.predictions.end(), split)) {
      res.notes.push_back("a count whose node no instance of the offer holds is priced as if its GPUs could span "
                          "instances: a lower bound");
    }
  }

  res.rules.push_back(peak_rule(res));
  res.rules.push_back(marginal_rule(res));
  if (request.usd_per_gpu_hour) {
    res.rules.push_back(cost_rule(res));
    res.instance_packing = packing_text(res);
  }
  for (const StopRule& rule : res.rules) {
    if (rule.gpus && (res.stops_paying.name.empty() || *rule.gpus < *res.stops_paying.gpus)) {
      res.stops_paying = rule;
    }
  }
  if (res.stops_paying.name.empty()) {
    res.stops_paying.reason = fmt::format("no rule triggers up to {} GPUs (--up-to)", request.up_to);
  }
  return res;
}

}  // namespace gpuplan
