#include <gpuplan/plan_check.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include <gpuplan/band.hpp>
#include <gpuplan/serving_share.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/perf_curve.hpp>

#include "detail/document.hpp"

namespace gpuplan {
namespace {

// A "max" expectation holds when got <= expected, a "min" one when got >= expected.
ExpectationResult bound_check(std::string_view name, double expected, double got, bool at_most, std::string_view unit,
                              std::string_view fail_reason) {
  ExpectationResult r{.name = std::string(name), .expected = expected, .got = got, .unit = std::string(unit)};
  r.pass = at_most ? got <= expected : got >= expected;
  if (!r.pass) {
    r.reason = std::string(fail_reason);
  }
  return r;
}

// An expectation that needs throughput or latency when not even one sequence fits.
ExpectationResult unmeasurable(std::string_view name, double expected, std::string_view unit) {
  return ExpectationResult{.name = std::string(name), .pass = false, .expected = expected, .got = 0,
                           .evaluated = false, .unit = std::string(unit), .reason = std::string(reason::does_not_fit)};
}

// A replica split across instances is not a deployment anyone can rent (cost refuses it): its
// price is only a lower bound, so a cost expectation fails on it instead of passing.
void fail_split_group(bool split, ExpectationResult& r) {
  if (split) {
    r.pass = false;
    r.reason = std::string(reason::not_rentable);
  }
}

std::string mode_label(const Price& p) { return fmt::format("{} {}", p.provider, offer_label(p.mode, p.term)); }

void add_checks(const Catalog& catalog, const DeploymentQuestion& q, DeploymentResult& d) {
  const Expectations& e = q.expect;
  if (e.fits) {
    ExpectationResult r{.name = "fits", .pass = d.fit.fits == *e.fits, .expected = *e.fits ? 1.0 : 0.0,
                        .got = d.fit.fits ? 1.0 : 0.0};
    if (!r.pass) {
      r.reason = std::string(*e.fits ? reason::does_not_fit : reason::fits_unexpectedly);
    }
    d.checks.push_back(r);
  } else if (!d.fit.fits) {
    // A deployment that cannot hold its load fails the gate unless the file says it need not fit:
    // a plan without expectations would otherwise pass one that cannot even start.
    d.checks.push_back(ExpectationResult{.name = "fits", .pass = false, .expected = 1.0, .got = 0.0,
                                         .reason = std::string(reason::does_not_fit), .implied = true});
  }
  if (e.min_concurrent_sequences) {
    d.checks.push_back(bound_check("min_concurrent_sequences", static_cast<double>(*e.min_concurrent_sequences),
                                   static_cast<double>(d.fit.max_concurrent_sequences.value_or(0)), false,
                                   "sequences", reason::below_min_sequences));
  }
  // A load memory cannot hold is timed at the capped batch: those figures are not the load's, so
  // throughput, latency and cost expectations fail with the fit instead of passing on them.
  const bool load_not_held = q.concurrency && d.load.capped && !d.fit.fits;
  const PerfPoint* row = d.perf && !d.perf->rows.empty() && !load_not_held ? &d.perf->rows.front() : nullptr;
  const auto measured = [&](std::string_view name, std::optional<double> expected, double got, bool at_most,
                            std::string_view unit, std::string_view fail_reason) {
    if (!expected) {
      return;
    }
    d.checks.push_back(row != nullptr ? bound_check(name, *expected, got, at_most, unit, fail_reason)
                                      : unmeasurable(name, *expected, unit));
  };
  // A target load is the workload, not an expectation, but a deployment that cannot carry it
  // fails the gate like one.
  measured("target_output_tokens_per_s", q.target_output_tokens_per_s, row ? row->output_tokens_per_s : 0, false,
           "tok/s", reason::below_target_load);
  measured("min_output_tokens_per_s", e.min_output_tokens_per_s, row ? row->output_tokens_per_s : 0, false, "tok/s",
           reason::below_min_throughput);
  measured("max_itl_ms", e.max_itl_ms, row ? row->itl_s * 1e3 : 0, true, "ms", reason::itl_above_target);
  measured("max_ttft_ms", e.max_ttft_ms, row ? row->ttft_s * 1e3 : 0, true, "ms", reason::ttft_above_target);
  if ((e.max_usd_per_million_tokens || e.max_monthly_usd) && q.prices.empty()) {
    throw InputError(fmt::format("{}: {}/{}: needs a price: give \"provider\" (and \"mode\") or \"usd-per-gpu-hour\"",
                                 q.origin, q.expect_pointer,
                                 e.max_usd_per_million_tokens ? "max_usd_per_million_tokens" : "max_monthly_usd"));
  }
  for (const Price& price : q.prices) {
    const auto it = std::find_if(d.costs.begin(), d.costs.end(), [&](const PricedCost& c) {
      return c.price.provider == price.provider && c.price.mode == price.mode && c.price.term == price.term;
    });
    if (e.max_usd_per_million_tokens) {
      ExpectationResult r = it != d.costs.end() && !load_not_held
                                ? bound_check("max_usd_per_million_tokens", *e.max_usd_per_million_tokens,
                                              it->cost.usd_per_million_tokens, true, "USD/Mtok output", reason::over_budget)
                                : unmeasurable("max_usd_per_million_tokens", *e.max_usd_per_million_tokens, "USD/Mtok output");
      fail_split_group(it != d.costs.end() && it->cost.rental.group_split, r);
      r.context = mode_label(price);
      d.checks.push_back(r);
    }
    if (e.max_monthly_usd) {
      // The bill does not depend on throughput: GPUs paid (whole instances) x price x hours,
      // plus extras.
      const Layout& l = d.fit.request.layout;
      const GpuNeed need{.gpus = l.gpus(), .group = instance_group(l, *q.gpu, q.perf.fit.gpus_per_node)};
      const Price& paid = instance_price(catalog, price, need);
      const InstanceRental rental = rent_instances(need.gpus, paid.gpus_per_instance, need.group);
      const double monthly = it != d.costs.end() ? it->cost.usd_per_hour() * kHoursPerMonth
                                                 : static_cast<double>(rental.rented_gpus) * paid.usd_per_gpu_hour *
                                                       kHoursPerMonth;
      ExpectationResult r = bound_check("max_monthly_usd", *e.max_monthly_usd, monthly, true, "USD/month",
                                        reason::over_monthly_budget);
      fail_split_group(rental.group_split, r);
      r.context = mode_label(price);
      d.checks.push_back(r);
    }
  }
}

// No GPU count in the plan: as many replicas as the target needs at full load.
std::uint64_t size_for_target(const DeploymentQuestion& q, const GpuSpec& gpu, PerfRequest& req, DeploymentResult& d) {
  const std::uint64_t replicas = size_replicas_for_target(q.model, gpu, req, *q.target_output_tokens_per_s);
  if (replicas > 0) {
    const Layout& l = req.fit.layout;
    d.notes.push_back(fmt::format("sized for {} output tok/s: {} replicas of TP {} PP {} ({} GPUs; set gpus to fix the "
                                  "count)",
                                  tokens_per_s_text(*q.target_output_tokens_per_s), l.dp, l.tp, l.pp, l.gpus()));
  }
  return replicas;
}

}  // namespace

bool DeploymentResult::pass() const {
  return std::all_of(checks.begin(), checks.end(), [](const ExpectationResult& r) { return r.pass; });
}

bool CheckResult::pass() const {
  return std::all_of(deployments.begin(), deployments.end(), [](const DeploymentResult& d) { return d.pass(); });
}

std::size_t CheckResult::expectations() const {
  std::size_t n = 0;
  for (const DeploymentResult& d : deployments) {
    n += d.checks.size();
  }
  return n;
}

std::size_t CheckResult::failed() const {
  std::size_t n = 0;
  for (const DeploymentResult& d : deployments) {
    n += static_cast<std::size_t>(std::count_if(d.checks.begin(), d.checks.end(),
                                                [](const ExpectationResult& r) { return !r.pass; }));
  }
  return n;
}

namespace {

// A deployment on MIG slices: perf does not time them, so it is checked on memory alone (fits,
// min_concurrent_sequences, as fit --mig answers them); an expectation or load that needs a
// timing or a price is refused by name rather than the whole deployment.
DeploymentResult evaluate_mig_deployment(const Catalog& catalog, const DeploymentQuestion& q, PerfRequest req,
                                         DeploymentResult d) {
  const Expectations& e = q.expect;
  const std::string deployment = q.expect_pointer.substr(0, q.expect_pointer.rfind('/'));
  const auto refuse = [&](std::string_view pointer) {
    throw InputError(fmt::format("{}: {}: MIG slices are not modelled by perf or cost yet; a deployment on a MIG "
                                 "slice checks fits and min_concurrent_sequences only",
                                 q.origin, pointer));
  };
  for (const auto& [set, name] : {std::pair{e.min_output_tokens_per_s.has_value(), "min_output_tokens_per_s"},
                                  std::pair{e.max_itl_ms.has_value(), "max_itl_ms"},
                                  std::pair{e.max_ttft_ms.has_value(), "max_ttft_ms"},
                                  std::pair{e.max_usd_per_million_tokens.has_value(), "max_usd_per_million_tokens"},
                                  std::pair{e.max_monthly_usd.has_value(), "max_monthly_usd"}}) {
    if (set) {
      refuse(fmt::format("{}/{}", q.expect_pointer, name));
    }
  }
  if (q.target_output_tokens_per_s) {
    refuse(deployment + "/target-output-tokens-per-s");
  }
  // One slice per replica (fit refuses TP, PP and EP across slices): the slices are the replicas.
  if (!q.layout_given) {
    req.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 1, .dp = std::max<std::uint64_t>(q.gpus, 1)};
  }
  const FitResult one = fit(q.model, *q.gpu, req.fit);
  d.runs = one.fits;
  FitRequest planned = req.fit;
  planned.concurrency = q.concurrency.value_or(1);
  d.fit = q.concurrency ? fit(q.model, *q.gpu, planned) : one;
  // The load as check prints it: the planned sequences per slice, or as many as memory holds.
  const std::uint64_t slices = req.fit.layout.dp;
  d.load.concurrency = q.concurrency;
  d.load.batch = std::max<std::uint64_t>(
      1, q.concurrency ? (*q.concurrency + slices - 1) / slices : one.max_concurrent_sequences.value_or(slices) / slices);
  d.load.capped = q.concurrency && d.runs && !d.fit.fits;
  d.notes.push_back(fmt::format("MIG {} slice{}: memory only (perf does not time MIG slices)",
                                req.fit.mig_profile, req.fit.layout.gpus() == 1 ? "" : "s"));
  add_checks(catalog, q, d);
  return d;
}

}  // namespace

DeploymentResult evaluate_deployment(const Catalog& catalog, const DeploymentQuestion& q) {
  if (q.gpu == nullptr) {
    throw std::logic_error("evaluate_deployment: no GPU");
  }
  const GpuSpec& gpu = *q.gpu;
  DeploymentResult d;
  d.name = q.name;
  d.model_id = q.model.id;
  d.gpu_id = gpu.id;
  PerfRequest req = q.perf;
  req.fit.context_tokens = req.input_tokens + req.output_tokens;
  req.fit.prompt_tokens = req.input_tokens;
  req.fit.concurrency = 1;
  // A target rate is a steady load: TTFT expectations are judged for random arrivals at that
  // rate, as plan judges its --max-ttft-ms (a concurrency stays a benchmark's burst).
  req.arrivals = q.target_output_tokens_per_s ? Arrivals::poisson : Arrivals::burst;
  if (!req.fit.mig_profile.empty()) {
    return evaluate_mig_deployment(catalog, q, req, std::move(d));
  }
  validate_perf_request(q.model, req);
  // The layout rule of perf, cost and compare: the one given, else the most throughput, among
  // replicas every offer's instances hold (the smallest largest instance).
  LayoutOffers offers = layout_offers(catalog, q.prices);
  req.largest_instance_gpus = offers.largest_instance_gpus;
  req.instance_offers = std::move(offers.instance_offers);
  req.fit.layout = serving_layout(q.model, gpu, req, q.layout_given, q.gpus).fit.request.layout;
  const char* ranked_by = req.instance_offers.empty() ? "throughput" : "output tokens per USD of the instances it rents";
  if (!q.layout_given && q.size_for_target) {
    d.notes.push_back(fmt::format("replica chosen for {} among the layouts of {} (TP {}, PP {}); set tp "
                                  "and pp to pin it",
                                  ranked_by, gpus_text(q.gpus), req.fit.layout.tp, req.fit.layout.pp));
  } else if (!q.layout_given) {
    d.notes.push_back(fmt::format("layout chosen for {} among the layouts of {} (TP {}, PP {}, DP {}); "
                                  "set tp and pp to pin it",
                                  ranked_by, gpus_text(q.gpus), req.fit.layout.tp, req.fit.layout.pp, req.fit.layout.dp));
  }
  std::uint64_t sized_replicas = 0;
  if (q.size_for_target && q.target_output_tokens_per_s) {
    sized_replicas = size_for_target(q, gpu, req, d);
  }
  const FitResult one = fit(q.model, gpu, req.fit);
  d.runs = one.fits;
  const auto fit_at = [&](std::uint64_t sequences) {
    FitRequest planned = req.fit;
    planned.concurrency = sequences;
    return fit(q.model, gpu, planned);
  };
  d.fit = q.concurrency ? fit_at(*q.concurrency) : one;
  if (d.runs) {
    const PerfModel pm(q.model, gpu, req);
    d.load = planned_load(pm, q.concurrency, q.target_output_tokens_per_s);
    d.load.sized_replicas = sized_replicas;
    if (q.target_output_tokens_per_s) {
      d.fit = fit_at(d.load.batch * req.fit.layout.dp);  // memory at the sequences the target runs
    }
    const EstimateBand band =
        for_layout(estimate_band(catalog, q.model, gpu, req.fit.weights_dtype, engine_calibrated(req.fit.engine.engine)),
                   req.fit.layout, req.fit.gpus_per_node);
    d.perf = perf(q.model, gpu, req, {d.load.batch}, band);
    d.curve = perf(q.model, gpu, req, curve_batches(pm.full_load_batch(), d.load.batch), band);
    // The shares the estimate carries, said where check and report judge it (perf's own notes).
    if (req.fit.layout.dp_attention()) {
      d.notes.emplace_back(attention_dp_note());
    }
    if (pm.vendor_serving_share() < 1.0) {
      d.notes.push_back(gpu.vendor == "intel" ? habana_serving_note() : rocm_serving_note());
    }
    if (d.load.capped && q.concurrency) {
      d.notes.push_back(fmt::format("{} sequences need {} per replica; memory and the engine allow {}: throughput "
                                    "and latency are at {}",
                                    *q.concurrency, (*q.concurrency + req.fit.layout.dp - 1) / req.fit.layout.dp,
                                    d.load.batch, d.load.batch));
    } else if (d.load.capped) {
      d.notes.push_back(target_load_note(d.load, req.fit.layout));
    }
    const PerfPoint& row = d.perf->rows.front();
    const GpuNeed need{.gpus = req.fit.layout.gpus(), .group = instance_group(req.fit.layout, gpu, req.fit.gpus_per_node)};
    for (const Price& offer : q.prices) {
      // The offer's instance size that costs least for the deployment (AWS L40S: the 4-GPU
      // g6e.12xlarge for a TP-4 replica).
      const Price& price = instance_price(catalog, offer, need);
      CostRequest c = q.cost;
      c.gpus = need.gpus;
      use_price(c, price);
      c.instance_group = need.group;
      c.gpu_power_w = gpu.tdp_w;
      c.output_tokens_per_s = row.output_tokens_per_s;
      c.input_tokens_per_s = input_tokens_per_s_for(row.output_tokens_per_s, req.input_tokens, req.output_tokens);
      d.costs.push_back(PricedCost{.price = price, .cost = cost(c)});
    }
  }
  add_checks(catalog, q, d);
  return d;
}

}  // namespace gpuplan
