#include "detail/plan_json.hpp"

#include <algorithm>

#include <gpuplan/error.hpp>
#include <gpuplan/perf_curve.hpp>
#include <gpuplan/units.hpp>

#include "detail/document.hpp"
#include "detail/load_json.hpp"

namespace gpuplan::detail {
namespace {

// What was expected and what the deployment got: a check ("pass" first) or a reason ("code" first).
OrderedJson check_json(const ExpectationResult& r, bool as_reason) {
  OrderedJson j;
  if (as_reason) {
    j["code"] = r.reason;
  }
  j["expectation"] = r.name;
  if (r.implied) {
    j["implied"] = true;  // not in the file
  }
  if (!as_reason) {
    j["pass"] = r.pass;
  }
  if (r.name == "fits") {
    j["expected"] = r.expected > 0.5;
    j["got"] = r.got > 0.5;
  } else {
    j["expected"] = checked(r.expected, r.name);
    j["got"] = r.evaluated ? OrderedJson(checked(r.got, r.name)) : OrderedJson(nullptr);
  }
  j["unit"] = r.unit;
  j["pricing"] = r.context.empty() ? OrderedJson(nullptr) : OrderedJson(r.context);
  if (!r.pass && !as_reason) {
    j["reason"] = r.reason;
  }
  return j;
}

OrderedJson memory_json(const FitResult& f) {
  const PerGpuMemory& m = f.per_gpu;
  return {{"context_tokens", f.request.context_tokens},
          {"concurrency", f.request.concurrency},
          {"fits", f.fits},
          {"weights_fit", f.weights_fit},
          {"max_concurrent_sequences",
           f.max_concurrent_sequences ? OrderedJson(*f.max_concurrent_sequences) : OrderedJson(nullptr)},
          {"per_gpu",
           {{"capacity_bytes", m.capacity_bytes},
            {"engine_cap_bytes", m.engine_cap_bytes},
            {"weights_bytes", m.weights_bytes},
            {"activation_bytes", m.activation_bytes},
            {"reserve_bytes", m.reserve_bytes},
            {"kv_budget_bytes", m.kv_budget_bytes},
            {"kv_cache_bytes", m.kv_cache_bytes},
            {"free_bytes", m.free_bytes},
            {"shortfall_bytes", m.shortfall_bytes}}}};
}

OrderedJson performance_json(const DeploymentResult& d) {
  if (!d.perf || d.perf->rows.empty()) {
    return nullptr;
  }
  const PerfPoint& p = d.perf->rows.front();
  const BandedValue tps = banded_output_tokens_per_s(*d.perf).front();
  const BandedValue itl = banded_itl_s(*d.perf).front();
  return {{"batch_per_replica", p.batch},
          {"output_tokens_per_s", checked(tps.estimate, "tok/s")},
          {"output_tokens_per_s_low", checked(tps.low, "tok/s")},
          {"output_tokens_per_s_high", checked(tps.high, "tok/s")},
          {"roofline_output_tokens_per_s", checked(tps.bound, "tok/s")},
          {"itl_ms", checked(itl.estimate * 1e3, "itl")},
          {"ttft_ms", checked(p.ttft_s * 1e3, "ttft")},
          {"ttft_alone_ms", checked(p.ttft_alone_s * 1e3, "ttft")},
          {"roofline_itl_ms", checked(itl.bound * 1e3, "itl")},
          {"tokens_per_s_per_user", checked(p.tokens_per_s_per_user, "tok/s/user")},
          {"bound", to_string(p.decode.bound())},
          {"bound_share", checked(p.decode.bound_share(), "bound share")},
          {"band_case", to_string(d.perf->band_case)},
          {"engine_calibrated", d.perf->engine_calibrated},
          {"band_low", d.perf->band_low},
          {"band_high", d.perf->band_high}};
}

OrderedJson costs_json(const DeploymentResult& d) {
  OrderedJson list = OrderedJson::array();
  for (const PricedCost& pc : d.costs) {
    list.push_back({{"provider", pc.price.provider},
                    {"mode", to_string(pc.price.mode)},
                    {"term", pc.price.term.empty() ? OrderedJson(nullptr) : OrderedJson(pc.price.term)},
                    {"region", region_json(pc.price)},
                    {"date", pc.price.date},
                    {"price_age_days", price_age_days_json(pc.price)},
                    {"stale", pc.price.stale()},
                    {"usd_per_gpu_hour", pc.price.usd_per_gpu_hour},
                    {"gpus_per_instance", gpus_per_instance_json(pc.price)},
                    {"rental", rental_json(pc.cost.rental)},
                    {"usd_per_hour", checked(pc.cost.usd_per_hour(), "usd/h")},
                    {"usd_per_month", checked(pc.cost.usd_per_hour() * kHoursPerMonth, "usd/month")},
                    {"usd_per_million_tokens", checked(pc.cost.usd_per_million_tokens, "usd/mtok")},
                    {"tokens_per_usd", checked(pc.cost.tokens_per_usd, "tokens/usd")}});
  }
  return list;
}

}  // namespace

OrderedJson plan_json(const CheckResult& c, std::string_view command) {
  OrderedJson j = envelope(command);
  j["plan"] = {{"file", c.plan_origin}, {"hash", c.plan_hash}, {"description", c.description}};
  j["pass"] = c.pass();
  j["expectations"] = c.expectations();
  j["failed"] = c.failed();
  OrderedJson results = OrderedJson::array();
  for (const DeploymentResult& d : c.deployments) {
    OrderedJson r;
    r["deployment"] = d.name;
    r["pass"] = d.pass();
    r["model"] = d.model_id;
    r["gpu"] = d.gpu_id;
    OrderedJson inputs = OrderedJson::object();
    for (const auto& [field, value] : d.inputs) {
      inputs[field] = value;
    }
    r["inputs"] = inputs;
    const Layout& l = d.fit.request.layout;
    r["layout"] = {{"gpus", l.gpus()}, {"tp", l.tp}, {"pp", l.pp}, {"ep", l.ep}, {"dp", l.dp}};
    r["load"] = load_json(d.load, d.runs);
    OrderedJson checks = OrderedJson::array();
    OrderedJson reasons = OrderedJson::array();
    for (const ExpectationResult& e : d.checks) {
      checks.push_back(check_json(e, false));
      if (!e.pass) {
        reasons.push_back(check_json(e, true));
      }
    }
    r["checks"] = checks;
    r["reasons"] = reasons;
    r["memory"] = memory_json(d.fit);
    r["performance"] = performance_json(d);
    r["costs"] = costs_json(d);
    r["notes"] = d.notes;
    results.push_back(r);
  }
  j["results"] = results;
  return j;
}

}  // namespace gpuplan::detail
