// render_plan(): the cheapest configurations, the launch command, each GPU's frontier, and when
// nothing meets the targets, the target that binds.
#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <gpuplan/engine_flags.hpp>
#include <gpuplan/render.hpp>

#include "detail/document.hpp"
#include "detail/json_output.hpp"
#include "detail/price_age_cells.hpp"
#include "detail/ttft_text.hpp"

namespace gpuplan {
namespace {

using detail::checked;
using detail::group_digits;
using detail::OrderedJson;

constexpr std::size_t kFrontierRowsPerGpu = 6;  // the table thins each GPU's frontier; JSON has it all

// One decimal, or three significant digits below 0.1 ms, so a tiny limit never reads as 0.0.
std::string plan_ms(double s) {
  const double ms = checked(s, "a time") * 1e3;
  return ms > 0 && ms < 0.1 ? fmt::format("{:.3g}", ms) : fmt::format("{:.1f}", ms);
}
std::string plan_rate(double v) { return group_digits(static_cast<std::uint64_t>(checked(v, "a rate") + 0.5)); }

std::string plan_layout(const Layout& l) {
  std::string s = fmt::format("TP{}", l.tp);
  if (l.pp > 1) {
    s += fmt::format(" PP{}", l.pp);
  }
  if (l.dp > 1) {
    s += fmt::format(" DP{}", l.dp);
  }
  if (l.ep > 1) {
    s += fmt::format(" EP{}", l.ep);
  }
  return s;
}

std::string targets_text(const PlanRequest& r) {
  const PlanTargets& t = r.targets;
  std::vector<std::string> parts;
  if (t.output_tokens_per_s) {
    parts.push_back(fmt::format("{} output tok/s", plan_rate(*t.output_tokens_per_s)));
  }
  if (t.max_itl_s) {
    parts.push_back(fmt::format("ITL <= {} ms", plan_ms(*t.max_itl_s)));
  }
  if (t.max_ttft_s) {
    parts.push_back(fmt::format("TTFT <= {} ms", plan_ms(*t.max_ttft_s)));
  }
  if (t.min_tokens_per_s_per_user) {
    parts.push_back(fmt::format(">= {:.1f} tok/s per user", *t.min_tokens_per_s_per_user));
  }
  if (t.max_usd_per_million_tokens) {
    parts.push_back(fmt::format("<= ${:.4f} per million output tokens", *t.max_usd_per_million_tokens));
  }
  return parts.empty() ? "none (one replica each, or as many as fill the instances paid; ranked by USD per million tokens)"
                       : fmt::format("{}", fmt::join(parts, ", "));
}

// The memory share the command sets: SGLang's own for the layout (what the plan was sized with)
// or the --mem-fraction-static given; the plan's share for the other engines.
double launch_share(const PlanResult& p, const PlanConfig& c) {
  const bool sglang = p.request.launch_engine == Engine::sglang;
  if (sglang || p.request.launch_engine == Engine::vllm) {
    const std::optional<double>& given =
        sglang ? p.request.launch_mem_fraction_static : p.request.launch_gpu_memory_utilization;
    if (given) {
      return *given;
    }
    if (c.engine_default_share > 0) {
      return c.engine_default_share;
    }
  }
  return p.request.perf.fit.memory_utilization;
}

LaunchSettings launch_settings(const PlanResult& p, const PlanConfig& c) {
  return LaunchSettings{.model = p.hf_repo.empty() ? p.model_id : p.hf_repo,
                        .layout = c.layout,
                        .weights_dtype = c.weights_dtype,
                        .checkpoint_dtype = p.checkpoint_dtype,
                        .fp16_only = c.fp16_only,
                        .unscaled_context_tokens = p.unscaled_context_tokens,
                        .kv_dtype = c.kv_dtype,
                        .max_num_seqs = c.max_batch,
                        .max_model_len = p.request.perf.input_tokens + p.request.perf.output_tokens,
                        .memory_share = launch_share(p, c),
                        .gpus_per_node = p.request.gpus_per_node,
                        .trust_remote_code = p.remote_code,
                        .sidecar_quant_method = p.sidecar_quant_method,
                        .sixteen_bit_load_bytes = c.sixteen_bit_load_bytes,
                        .gpu_memory_bytes = c.gpu_memory_bytes,
                        .chunked_prefill = p.request.perf.fit.engine.engine == Engine::trtllm &&
                                           p.request.perf.fit.engine.trtllm_chunked_prefill.value_or(false),
                        .eager = p.request.perf.eager || p.request.perf.fit.engine.eager,
                        .gaudi = c.gaudi};
}

/// CSV gives each figure a cell of its own (a spreadsheet reads "85 (max 111)" as text): batch
/// and max batch, GPUs used and paid, capacity and its band's edges.
std::vector<std::string> config_row(std::size_t rank, const PlanConfig& c, Format format) {
  if (format == Format::csv) {
    const std::vector<std::string> age = detail::price_age_cells(c.price);
    return {std::to_string(rank),
            c.gpu,
            std::string(to_string(c.weights_dtype)),
            std::string(to_string(c.kv_dtype)),
            plan_layout(c.layout),
            std::to_string(c.batch),
            std::to_string(c.max_batch),
            std::to_string(c.replicas),
            std::to_string(c.gpus),
            std::to_string(std::max(c.cost.rental.rented_gpus, c.gpus)),
            age[0],
            age[1],
            fmt::format("{:.2f}", checked(c.usd_per_hour(), "usd/h")),
            fmt::format("{:.4f}", checked(c.cost.usd_per_million_tokens, "usd/mtok")),
            plan_rate(c.output_tokens_per_s),
            plan_rate(c.capacity_tokens_per_s),
            plan_rate(c.capacity_low),
            plan_rate(c.capacity_high),
            plan_ms(c.itl_s),
            plan_ms(c.ttft_s),
            // yes/no as compare's CSV robust column, so one spreadsheet reads both.
            c.within_band ? "no" : "yes"};
  }
  return {std::to_string(rank),
          c.gpu,
          std::string(to_string(c.weights_dtype)),
          std::string(to_string(c.kv_dtype)),
          plan_layout(c.layout),
          fmt::format("{} (max {})", c.batch, c.max_batch),
          group_digits(c.replicas),
          // GPUs paid beside those in use when the last instance is not full.
          c.cost.rental.rented_gpus > c.gpus
              ? fmt::format("{} ({} paid)", group_digits(c.gpus), group_digits(c.cost.rental.rented_gpus))
              : group_digits(c.gpus),
          price_age_label(c.price),
          fmt::format("{:.2f}", checked(c.usd_per_hour(), "usd/h")),
          fmt::format("{:.4f}", checked(c.cost.usd_per_million_tokens, "usd/mtok")),
          plan_rate(c.output_tokens_per_s),
          fmt::format("{} ({}-{})", plan_rate(c.capacity_tokens_per_s), plan_rate(c.capacity_low),
                      plan_rate(c.capacity_high)),
          plan_ms(c.itl_s),
          plan_ms(c.ttft_s),
          c.within_band ? "within band" : "yes"};
}

const std::vector<std::string> kConfigHeader{
    "#", "GPU", "weights", "KV", "layout", "batch/replica", "replicas", "GPUs", "price age", "USD/h", "USD/Mtok",
    "output tok/s", "capacity at max batch (band)", "ITL ms", "TTFT ms", "robust"};

/// With a load target the configurations are priced at it: the tokens the deployment serves,
/// not the slightly larger rate its batch could deliver (cost's figure for the same deployment).
const std::vector<std::string> kConfigCsvHeader{
    "#", "GPU", "weights", "KV", "layout", "batch/replica", "max batch/replica", "replicas", "GPUs", "GPUs paid",
    "price age days", "stale", "USD/h", "USD/Mtok", "output tok/s", "capacity at max batch", "capacity band low",
    "capacity band high", "ITL ms", "TTFT ms", "robust"};

std::vector<std::string> config_header(const PlanRequest& r, Format format) {
  std::vector<std::string> h = format == Format::csv ? kConfigCsvHeader : kConfigHeader;
  if (r.targets.output_tokens_per_s) {
    *std::find(h.begin(), h.end(), "USD/Mtok") = "USD/Mtok at target";
  }
  return h;
}

std::string usd_per_mtok_text(const PlanRequest& r) {
  if (!r.targets.output_tokens_per_s) {
    return "USD/Mtok: USD/h over the output tok/s the configuration delivers";
  }
  return fmt::format("USD/Mtok at target: USD/h over the {} output tok/s of the target, the tokens served (cost "
                     "divides by the output tok/s a batch delivers, the output tok/s column, and so gives a little less)",
                     plan_rate(*r.targets.output_tokens_per_s));
}

OrderedJson plan_price_json(const Price& p) {
  OrderedJson j = detail::price_terms_json(p);
  j["sources"] = p.sources;
  return j;
}

OrderedJson config_json(const PlanConfig& c) {
  return {{"gpu", c.gpu},
          {"weights_dtype", to_string(c.weights_dtype)},
          {"kv_dtype", to_string(c.kv_dtype)},
          {"tp", c.layout.tp},
          {"pp", c.layout.pp},
          {"ep", c.layout.ep},
          {"dp", c.layout.dp},
          {"batch_per_replica", c.batch},
          {"max_batch_per_replica", c.max_batch},
          {"max_batch_by_memory", c.max_batch_by_memory},
          {"replicas", c.replicas},
          {"gpus", c.gpus},
          {"price", plan_price_json(c.price)},
          {"rental", detail::rental_json(c.cost.rental)},
          {"usd_per_hour", checked(c.usd_per_hour(), "usd/h")},
          {"usd_per_million_tokens", checked(c.cost.usd_per_million_tokens, "usd/mtok")},
          {"output_tokens_per_s", checked(c.output_tokens_per_s, "tok/s")},
          {"capacity_tokens_per_s", checked(c.capacity_tokens_per_s, "capacity")},
          {"capacity_low_tokens_per_s", checked(c.capacity_low, "low")},
          {"capacity_high_tokens_per_s", checked(c.capacity_high, "high")},
          {"band", {{"low", c.band_low}, {"high", c.band_high}, {"from", to_string(c.band_case)},
                    {"engine_calibrated", c.engine_calibrated}}},
          {"itl_s", checked(c.itl_s, "itl")},
          {"ttft_s", checked(c.ttft_s, "ttft")},
          {"tokens_per_s_per_user", checked(c.tokens_per_s_per_user, "tok/s/user")},
          {"meets_targets", c.meets_targets},
          {"within_band", c.within_band}};
}

/// One line per price the rows in `shown` use, with the instances it rents. Each configuration
/// takes the price that costs least for its GPUs, so a GPU may show two (its rows then named).
std::vector<std::string> price_lines(const std::vector<const PlanConfig*>& shown) {
  std::vector<std::string> lines;
  std::vector<std::string> seen;
  for (const PlanConfig* c : shown) {
    const std::string key = price_key(c->price);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      continue;
    }
    seen.push_back(key);
    std::vector<std::string> rows;
    bool shared = false;  // another price of this GPU is shown too
    for (std::size_t i = 0; i < shown.size(); ++i) {
      if (shown[i]->gpu == c->gpu) {
        const bool same = price_key(shown[i]->price) == key;
        shared = shared || !same;
        if (same) {
          rows.push_back(fmt::format("#{}", i + 1));
        }
      }
    }
    lines.push_back(fmt::format(
        "Price of {}{}: {}{}", c->gpu, shared ? fmt::format(" ({})", fmt::join(rows, ", ")) : std::string(),
        price_label(c->price),
        c->price.gpus_per_instance.empty()
            ? std::string()
            : fmt::format("; rented in whole instances of {}{}", instance_sizes_text(c->price),
                          c->price.instance.empty() ? std::string() : " (" + c->price.instance + ")")));
  }
  return lines;
}

OrderedJson launch_json(const EngineLaunch& l) {
  return {{"engine", to_string(l.engine)}, {"command", l.command()}, {"argv", l.argv},
          {"config_yaml", l.config_yaml}, {"notes", l.notes}};
}

std::string missed_target_text(PlanTarget target, const PlanConfig& c, const PlanTargets& t) {
  switch (target) {
    case PlanTarget::max_itl: return fmt::format("ITL {} ms against {} ms", plan_ms(c.itl_s), plan_ms(*t.max_itl_s));
    case PlanTarget::max_ttft: return fmt::format("TTFT {} ms against {} ms", plan_ms(c.ttft_s), plan_ms(*t.max_ttft_s));
    case PlanTarget::min_tokens_per_s_per_user:
      return fmt::format("{:.1f} tok/s per user against {:.1f}", c.tokens_per_s_per_user, *t.min_tokens_per_s_per_user);
    case PlanTarget::max_usd_per_million_tokens:
      return fmt::format("${:.4f} per million output tokens against ${:.4f}", c.cost.usd_per_million_tokens,
                         *t.max_usd_per_million_tokens);
    case PlanTarget::output_tokens_per_s:
      return fmt::format("{} output tok/s against {}", plan_rate(c.output_tokens_per_s), plan_rate(*t.output_tokens_per_s));
    case PlanTarget::memory: break;
  }
  return {};
}

std::string miss_text(const PlanResult& p) {
  const PlanMiss& m = *p.miss;
  if (!m.closest) {
    // Layouts skipped for instance size were never checked against memory: memory is not the reason.
    const bool instance_bound = std::any_of(p.skipped.begin(), p.skipped.end(), [](const auto& reason) {
      return reason.first.find("in one instance") != std::string::npos;
    });
    if (instance_bound) {
      return "No configuration meets the targets: no layout is rentable: the replicas the priced instances hold do not "
             "fit in memory, and larger ones need more GPUs in one instance than the prices searched rent (see the "
             "note on layouts skipped).";
    }
    // Nothing enumerated: every GPU x weights format was refused before the search (an engine that
    // does not load the checkpoint or format there); memory was never the question.
    const bool refused = p.counts.layouts == 0 && std::any_of(p.notes.begin(), p.notes.end(), [](const std::string& n) {
      return n.find(" not searched: ") != std::string::npos;
    });
    if (refused) {
      return "No configuration meets the targets: nothing was searched: every GPU and weights format asked for is "
             "refused before memory is checked (see the notes on what was not searched).";
    }
    std::string text = fmt::format("No configuration meets the targets: nothing fits in memory (weights and one "
                                   "sequence) on the GPUs searched within the replica size (at most {} GPUs, "
                                   "--max-gpus-per-replica).",
                                   p.request.max_gpus_per_replica);
    // How many GPUs it would take (session 60 N6): the weights alone, a lower bound, fewest first.
    std::vector<PlanResult::WeightsNeed> need = p.weights_need;
    std::stable_sort(need.begin(), need.end(), [](const auto& a, const auto& b) { return a.gpus < b.gpus; });
    if (need.empty()) {
      return text;
    }
    // Each GPU is said under its own case (review s61: 7 x l4 over a 2-GPU cap was listed as
    // "the weights alone fit"): within the replica cap the KV cache is what fails, above it the weights.
    const std::uint64_t cap = p.request.max_gpus_per_replica;
    const auto list = [](const std::vector<PlanResult::WeightsNeed>& of) {
      std::vector<std::string> listed;
      for (std::size_t i = 0; i < of.size() && i < 6; ++i) {
        listed.push_back(fmt::format("{} x {} ({})", group_digits(of[i].gpus), of[i].gpu, to_string(of[i].weights)));
      }
      return fmt::format("{}{}", fmt::join(listed, ", "),
                         of.size() > 6 ? fmt::format(", and {} more GPU types", of.size() - 6) : std::string());
    };
    std::vector<PlanResult::WeightsNeed> within;
    std::vector<PlanResult::WeightsNeed> over;
    for (const auto& n : need) {
      (n.gpus > cap ? over : within).push_back(n);
    }
    if (!within.empty()) {
      text += fmt::format(" The weights alone fit {}: one {}-token sequence's KV cache beside them does not, in the "
                          "layouts the model's heads and --gpus-per-node allow.",
                          list(within), group_digits(p.request.perf.input_tokens + p.request.perf.output_tokens));
    }
    if (!over.empty()) {
      text += fmt::format(" The weights alone need at least {} per replica, in the most compact weights format "
                          "searched{}.",
                          list(over),
                          within.empty() ? "; one sequence's KV cache and the layouts the model's heads allow can need more"
                                         : "");
    }
    return text;
  }
  const PlanConfig& c = *m.closest;
  const PlanTargets& t = p.request.targets;
  // Every target the closest configuration misses: relaxing the binding one alone would not qualify it.
  std::vector<std::string> misses;
  for (const auto& [target, ratio] : m.missed) {
    misses.push_back(fmt::format("{} ({:.2f}x the limit)", missed_target_text(target, c, t), ratio));
  }
  if (misses.empty()) {  // a result built without the list: the binding target alone
    misses.push_back(fmt::format("{} ({:.2f}x the limit)", missed_target_text(m.binding, c, t), m.shortfall));
  }
  std::string reached = misses.front();
  for (std::size_t i = 1; i < misses.size(); ++i) {
    reached += (i + 1 == misses.size() ? " and " : ", ") + misses[i];
  }
  return fmt::format("No configuration meets every target. Binding: {}; the closest ({} {}/{} {}) reaches {}{}.",
                     to_string(m.binding), c.gpu, to_string(c.weights_dtype), to_string(c.kv_dtype),
                     plan_layout(c.layout), reached,
                     misses.size() > 1 ? fmt::format(": it misses {} targets", misses.size()) : "");
}

/// "misses max_ttft, max_itl": every target the closest configuration misses.
std::string missed_targets_label(const PlanMiss& m) {
  std::vector<std::string> names;
  for (const auto& [target, ratio] : m.missed) {
    names.emplace_back(to_string(target));
  }
  if (names.empty()) {
    names.emplace_back(to_string(m.binding));
  }
  return fmt::format("misses {}", fmt::join(names, ", "));
}

OrderedJson plan_json(const PlanResult& p, std::optional<Engine> emit) {
  const PlanRequest& r = p.request;
  const PlanTargets& t = r.targets;
  const auto opt = [](const std::optional<double>& v) { return v ? OrderedJson(*v) : OrderedJson(nullptr); };
  OrderedJson j;
  j["model"] = p.model_id;
  j["hf_repo"] = p.hf_repo;
  j["inputs"] = {{"input_tokens", r.perf.input_tokens},
                 {"output_tokens", r.perf.output_tokens},
                 {"gpus_per_node", r.gpus_per_node},
                 {"arrivals", to_string(r.perf.arrivals)},
                 {"targets", {{"output_tokens_per_s", opt(t.output_tokens_per_s)},
                              {"max_itl_s", opt(t.max_itl_s)},
                              {"max_ttft_s", opt(t.max_ttft_s)},
                              {"min_tokens_per_s_per_user", opt(t.min_tokens_per_s_per_user)},
                              {"max_usd_per_million_tokens", opt(t.max_usd_per_million_tokens)}}},
                 {"provider", r.provider.empty() ? OrderedJson(nullptr) : OrderedJson(r.provider)},
                 {"mode", to_string(r.mode.value_or(PricingMode::on_demand))},
                 {"region", r.region.empty() ? OrderedJson(nullptr) : OrderedJson(r.region)},
                 {"max_batch_per_replica", r.perf.max_batch},
                 {"max_gpus_per_replica", r.max_gpus_per_replica},
                 {"top", r.top}};
  if (r.perf.cached_input_tokens > 0) {  // as perf's JSON: only when given
    j["inputs"]["cached_input_tokens"] = r.perf.cached_input_tokens;
  }
  j["evaluated"] = p.counts.evaluated;
  j["counts"] = {{"layouts", p.counts.layouts}, {"skipped", p.counts.skipped}, {"pruned", p.counts.pruned}, {"timed", p.counts.timed},
                 {"evaluated", p.counts.evaluated}, {"feasible", p.counts.feasible}};
  j["configurations"] = OrderedJson::array();
  for (const PlanConfig& c : p.configurations) {
    j["configurations"].push_back(config_json(c));
  }
  j["launch"] = emit && !p.configurations.empty() ? launch_json(launch_command(*emit, launch_settings(p, p.configurations.front())))
                                                  : OrderedJson(nullptr);
  j["pareto"] = OrderedJson::array();
  for (const ParetoPoint& q : p.pareto) {
    j["pareto"].push_back({{"gpu", q.gpu}, {"weights_dtype", to_string(q.weights_dtype)}, {"kv_dtype", to_string(q.kv_dtype)},
                           {"tp", q.layout.tp}, {"pp", q.layout.pp}, {"ep", q.layout.ep}, {"dp", q.layout.dp}, {"batch", q.batch},
                           {"output_tokens_per_s_per_gpu", checked(q.tokens_per_s_per_gpu, "tok/s/gpu")},
                           {"tokens_per_s_per_user", checked(q.tokens_per_s_per_user, "tok/s/user")},
                           {"itl_s", checked(q.itl_s, "itl")}, {"ttft_s", checked(q.ttft_s, "ttft")}});
  }
  j["binding_target"] = p.miss ? OrderedJson(to_string(p.miss->binding)) : OrderedJson(nullptr);
  if (p.miss) {
    OrderedJson missing = OrderedJson::object();
    for (const auto& [target, n] : p.miss->layouts_missing) {
      missing[std::string(to_string(target))] = n;
    }
    // Every target the closest configuration misses, the binding one first.
    OrderedJson missed = OrderedJson::array();
    for (const auto& [target, ratio] : p.miss->missed) {
      missed.push_back({{"target", to_string(target)}, {"ratio", checked(ratio, "miss ratio")}});
    }
    j["miss"] = {
        {"binding", to_string(p.miss->binding)},
        {"shortfall", p.miss->closest ? OrderedJson(checked(p.miss->shortfall, "shortfall")) : OrderedJson(nullptr)},
        {"closest", p.miss->closest ? config_json(*p.miss->closest) : OrderedJson(nullptr)},
        {"missed", missed},
        {"layouts_missing", missing}};
    if (!p.miss->closest) {
      // Nothing fits in memory: how many of each GPU the weights alone need (a lower bound).
      OrderedJson need = OrderedJson::array();
      for (const PlanResult::WeightsNeed& w : p.weights_need) {
        need.push_back({{"gpu", w.gpu}, {"weights_dtype", to_string(w.weights)}, {"min_gpus_for_weights", w.gpus}});
      }
      j["miss"]["weights_need"] = need;
    }
  } else {
    j["miss"] = nullptr;
  }
  // The cheapest configuration on a stale price the ranking set aside for a current one.
  j["cheaper_stale"] = p.cheaper_stale ? config_json(*p.cheaper_stale) : OrderedJson(nullptr);
  j["unpriced_gpus"] = p.unpriced_gpus;
  j["unlaunchable_gpus"] = p.unlaunchable_gpus;
  j["notes"] = p.notes;
  return j;
}

std::string plan_text(const PlanResult& p, std::optional<Engine> emit, Format format) {
  const PlanRequest& r = p.request;
  detail::Document head;
  head.heading.push_back(fmt::format("Plan for {}: {}{} tokens in, {} out; targets: {}", p.model_id,
                                     group_digits(r.perf.input_tokens), detail::cached_input_text(r.perf.cached_input_tokens),
                                     group_digits(r.perf.output_tokens),
                                     targets_text(r)));
  head.heading.push_back(fmt::format(
      "Searched {} layouts (GPU x weights x KV x replica layout), {} dropped before timing (weights or one sequence "
      "do not fit), {} timed at {} (layout, batch) points; {} priced configurations meet every target",
      group_digits(p.counts.layouts), group_digits(p.counts.pruned), group_digits(p.counts.timed),
      group_digits(p.counts.evaluated), group_digits(p.counts.feasible)));
  if (r.launch_engine) {
    // --emit plans for the engine it launches (planner.cpp launched()): its own figures, not the
    // neutral estimate, so the batch cap the command sets is one that engine's KV cache holds.
    // SGLang picks its own mem_fraction_static by GPU and layout: the plan is sized with it, and
    // the command sets it, unless --mem-fraction-static was given.
    // vLLM's default is its release's (0.92 from 0.21), unless --gpu-memory-utilization was given.
    const double own = p.configurations.empty() ? 0.0 : p.configurations.front().engine_default_share;
    const bool sglang = *r.launch_engine == Engine::sglang;
    const std::optional<double> given = sglang ? r.launch_mem_fraction_static : r.launch_gpu_memory_utilization;
    const std::string share =
        *r.launch_engine == Engine::trtllm
            ? fmt::format("a memory share of {:.2f}", r.perf.fit.memory_utilization)
        : !sglang
            ? (given ? fmt::format("--gpu-memory-utilization {:g}{}", *given,
                                   own > 0 ? fmt::format(" (vLLM's own default is {:.2f})", own) : std::string())
                     : fmt::format("vLLM's default gpu_memory_utilization {:.2f} (set in the command; "
                                   "--gpu-memory-utilization sizes for another)",
                                   own > 0 ? own : r.perf.fit.memory_utilization))
        : given ? fmt::format("--mem-fraction-static {:g}{}", *given,
                              own > 0 ? fmt::format(" (SGLang's own default for #1 is {:.3f})", own) : std::string())
        : own > 0 ? fmt::format("SGLang's own mem_fraction_static for each layout ({:.3f} for #1, set in the command)", own)
                  : std::string("SGLang's own mem_fraction_static for each layout");
    head.heading.push_back(fmt::format(
        "Sized for {0} (--emit {0}): its KV-cache arithmetic at {1}, its batch cap and its "
        "estimate band, and only layouts and formats it launches; without --emit the search is engine-neutral",
        to_string(*r.launch_engine), share));
    if (r.perf.eager || r.perf.fit.engine.eager) {
      head.heading.push_back(fmt::format(
          "Without CUDA graphs ({}, set in the command): every step is timed at no less than the host's launch time "
          "of its kernels, so small batches and small or 4-bit models are slower than with graphs",
          *r.launch_engine == Engine::sglang ? "--disable-cuda-graph" : "--enforce-eager"));
    }
  }
  if (!p.unpriced_gpus.empty()) {
    head.heading.push_back(fmt::format("Not searched (no matching price; give --price GPU=USD): {}",
                                       fmt::join(p.unpriced_gpus, ", ")));
  }
  if (!p.unlaunchable_gpus.empty() && p.request.launch_engine) {
    head.heading.push_back(fmt::format("Not searched ({} runs on NVIDIA GPUs only{}): {}",
                                       to_string(*p.request.launch_engine),
                                       *p.request.launch_engine == Engine::trtllm ? ", Ampere and later" : "",
                                       fmt::join(p.unlaunchable_gpus, ", ")));
  }
  if (p.miss) {
    head.heading.push_back(miss_text(p));
    if (p.miss->closest) {
      detail::Table closest{.title = "Closest configuration", .header = config_header(r, format), .rows = {}};
      closest.rows.push_back(config_row(1, *p.miss->closest, format));
      closest.rows.back().back() = missed_targets_label(*p.miss);
      head.tables.push_back(std::move(closest));
      head.footer = price_lines({&*p.miss->closest});
      head.footer.push_back(usd_per_mtok_text(r));
    }
    std::vector<std::string> missing;
    for (const auto& [target, n] : p.miss->layouts_missing) {
      missing.push_back(fmt::format("{} {}", to_string(target), group_digits(n)));
    }
    if (!missing.empty()) {
      head.footer.push_back(fmt::format("Layouts missing each target at their best batch: {}", fmt::join(missing, "; ")));
    }
  } else {
    detail::Table configs{.title = "Cheapest configurations", .header = config_header(r, format), .rows = {}};
    for (std::size_t i = 0; i < p.configurations.size(); ++i) {
      configs.rows.push_back(config_row(i + 1, p.configurations[i], format));
    }
    head.tables.push_back(std::move(configs));
    std::vector<const PlanConfig*> shown;
    for (const PlanConfig& c : p.configurations) {
      shown.push_back(&c);
    }
    head.footer = price_lines(shown);
    head.footer.push_back(
        "batch/replica: sequences per replica (per rank under DP attention, DPn) at the target load (max: the largest meeting the latency targets); "
        "capacity: what the replicas serve at the max batch, with the estimate's calibration band; 'within band': a rival on another GPU is "
        "cheaper at the band's edges (its high edge against this one's low edge)");
    head.footer.emplace_back(detail::ttft_arrivals_text(r.perf.arrivals));
    head.footer.push_back(usd_per_mtok_text(r));
  }
  if (emit && !p.configurations.empty()) {
    const EngineLaunch l = launch_command(*emit, launch_settings(p, p.configurations.front()));
    head.footer.push_back(fmt::format("Launch #1 ({}, one command per replica):", to_string(l.engine)));
    head.footer.push_back("  " + l.command());
    if (!l.config_yaml.empty()) {
      head.footer.push_back("  plan.yaml:");
      for (const std::string& line : l.config_yaml) {
        head.footer.push_back("    " + line);
      }
    }
    for (const std::string& n : l.notes) {
      head.footer.push_back("  note: " + n);
    }
  }
  detail::Document tail;
  detail::Table frontier{.title = "Pareto frontier per GPU: output tok/s per GPU against tok/s per user",
                         .header = {"GPU", "weights", "KV", "layout", "batch", "tok/s per GPU", "tok/s per user",
                                    "ITL ms", "TTFT ms"},
                         .rows = {}};
  bool thinned = false;
  for (std::size_t begin = 0; begin < p.pareto.size();) {
    std::size_t end = begin;
    while (end < p.pareto.size() && p.pareto[end].gpu == p.pareto[begin].gpu) {
      ++end;
    }
    const std::size_t n = end - begin;
    const std::size_t shown = std::min(n, kFrontierRowsPerGpu);
    thinned = thinned || shown < n;
    for (std::size_t k = 0; k < shown; ++k) {
      // Evenly spread over the frontier, both ends included.
      const ParetoPoint& q = p.pareto[begin + (shown == 1 ? 0 : k * (n - 1) / (shown - 1))];
      frontier.rows.push_back({q.gpu, std::string(to_string(q.weights_dtype)), std::string(to_string(q.kv_dtype)),
                               plan_layout(q.layout), group_digits(q.batch), plan_rate(q.tokens_per_s_per_gpu),
                               fmt::format("{:.1f}", checked(q.tokens_per_s_per_user, "tok/s/user")), plan_ms(q.itl_s),
                               plan_ms(q.ttft_s)});
    }
    begin = end;
  }
  // Nothing timed (nothing fits, nothing rentable): no frontier, and no header over no rows.
  if (!frontier.rows.empty()) {
    tail.tables.push_back(std::move(frontier));
  }
  if (thinned) {
    tail.footer.push_back(fmt::format("The frontier table shows up to {} points per GPU; --format json lists all {}.",
                                      kFrontierRowsPerGpu, p.pareto.size()));
  }
  for (const std::string& n : p.notes) {
    tail.footer.push_back("note: " + n);
  }
  std::string out = detail::render_document(head, format);
  out += format == Format::csv ? "\n" : "";
  out += detail::render_document(tail, format);
  return out;
}

}  // namespace

std::string render_plan(const std::vector<PlanResult>& plans, std::optional<Engine> emit, const RenderOptions& options) {
  if (options.format == Format::json) {
    OrderedJson j = detail::envelope("plan");
    j["plans"] = OrderedJson::array();
    for (const PlanResult& p : plans) {
      j["plans"].push_back(plan_json(p, emit));
    }
    return detail::dump_json(j);
  }
  std::string out;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    out += (i > 0 ? "\n" : "") + plan_text(plans[i], emit, options.format);
  }
  return out;
}

}  // namespace gpuplan
