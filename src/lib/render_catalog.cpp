// Catalog listings and single-entry views, in every format.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <gpuplan/render.hpp>

#include "detail/document.hpp"
#include "detail/json_output.hpp"

namespace gpuplan {
namespace {

// The most instances one GPU holds of any profile: the smallest slice's count (7 on A100/H100).
int most_mig_slices(const GpuSpec& g) {
  int most = 0;
  for (const MigProfile& p : g.mig_profiles) {
    most = std::max(most, p.max_instances);
  }
  return most;
}

using detail::bytes_value;
using detail::group_digits;
using detail::OrderedJson;
using detail::envelope;

std::string tflop(const std::map<std::string, double>& table, const std::string& type) {
  const auto it = table.find(type);
  return it == table.end() ? "-" : fmt::format("{:g}", it->second / units::kTera);
}

OrderedJson alternatives_json(const GpuSpec& g) {
  OrderedJson out = OrderedJson::array();
  for (const AlternativeFigure& a : g.alternatives) {
    out.push_back({{"field", a.field}, {"value", a.value}, {"source", a.source}});
  }
  return out;
}

OrderedJson gpu_json(const GpuSpec& g) {
  OrderedJson dense = OrderedJson::object();
  for (const auto& [k, v] : g.dense_flop_per_s) {
    dense[k] = v;
  }
  OrderedJson sparse = OrderedJson::object();
  for (const auto& [k, v] : g.sparse_flop_per_s) {
    sparse[k] = v;
  }
  OrderedJson mig = OrderedJson::array();
  for (const MigProfile& p : g.mig_profiles) {
    const MigMemory mm = mig_memory(g, p);
    mig.push_back({{"name", p.name},
                   {"memory_bytes", mm.bytes},
                   {"memory_estimated", mm.estimated},
                   {"memory_eighths", p.memory_eighths},
                   {"compute_slices", p.compute_slices},
                   {"sm_count", p.sm_count ? OrderedJson(*p.sm_count) : OrderedJson(nullptr)},
                   {"max_instances", p.max_instances}});
  }
  const auto link = [](const Link& l) {
    OrderedJson j{{"kind", l.kind},
                  {"bytes_per_s_per_direction", l.bytes_per_s_per_direction},
                  {"domain_gpus", l.domain_gpus}};
    if (l.peer_bytes_per_s_per_direction) {
      j["peer_bytes_per_s_per_direction"] = *l.peer_bytes_per_s_per_direction;
    }
    if (!l.peer_to_peer) {
      j["peer_to_peer"] = false;
    }
    return j;
  };
  return {{"id", g.id},
          {"name", g.name},
          {"vendor", g.vendor},
          {"memory_bytes", g.memory_bytes},
          {"usable_memory_bytes", g.usable_memory_bytes ? OrderedJson(*g.usable_memory_bytes) : OrderedJson(nullptr)},
          {"cuda_memory_bytes", g.cuda_memory_bytes ? OrderedJson(*g.cuda_memory_bytes) : OrderedJson(nullptr)},
          {"free_at_start_bytes", g.free_at_start_bytes ? OrderedJson(*g.free_at_start_bytes) : OrderedJson(nullptr)},
          {"memory_bandwidth_bytes_per_s", g.memory_bandwidth_bytes_per_s},
          {"dense_flop_per_s", dense},
          {"achievable_matmul_share",
           g.achievable_matmul_share ? OrderedJson(*g.achievable_matmul_share) : OrderedJson(nullptr)},
          {"sparse_flop_per_s", sparse},
          {"tdp_w", g.tdp_w},
          {"sm_count", g.sm_count ? OrderedJson(*g.sm_count) : OrderedJson(nullptr)},
          {"gpus_per_system", g.gpus_per_system ? OrderedJson(*g.gpus_per_system) : OrderedJson(nullptr)},
          {"scale_up", g.scale_up ? link(*g.scale_up) : OrderedJson(nullptr)},
          {"optional_scale_up", g.optional_scale_up ? link(*g.optional_scale_up) : OrderedJson(nullptr)},
          {"host_link", link(g.host_link)},
          {"scale_out_bytes_per_s",
           g.scale_out_bytes_per_s ? OrderedJson(*g.scale_out_bytes_per_s) : OrderedJson(nullptr)},
          {"mig_profiles", mig},
          {"aliases", g.aliases},
          {"alternatives", alternatives_json(g)},
          {"sources", g.sources},
          {"notes", g.notes},
          {"origin", g.origin}};
}

OrderedJson model_json(const ModelSpec& m) {
  const ParamCount p = count_params(m);
  return {{"id", m.id},
          {"name", m.name},
          {"hf_repo", m.hf_repo},
          {"model_type", m.model_type},
          {"params_total", p.total()},
          {"params_active", p.active()},
          {"params_active_without_embedding", p.active_without_embedding()},
          {"params_active_without_embedding_and_head", p.active_without_embedding_and_head()},
          {"hidden_size", m.hidden_size},
          {"num_hidden_layers", m.num_hidden_layers},
          {"num_attention_heads", m.num_attention_heads},
          {"num_key_value_heads", m.num_key_value_heads},
          {"head_dim", m.head_dim},
          {"mla", m.mla.has_value()},
          {"moe", m.moe ? OrderedJson{{"routed_experts", m.moe->routed_experts},
                               {"experts_per_token", m.moe->experts_per_token},
                               {"shared_experts", m.moe->shared_experts},
                               {"expert_intermediate", m.moe->expert_intermediate},
                               {"first_dense_layers", m.moe->first_dense_layers}}
                        : OrderedJson(nullptr)},
          {"vocab_size", m.vocab_size},
          {"max_position_embeddings", m.max_position_embeddings},
          {"tie_word_embeddings", m.tie_word_embeddings},
          {"kv_bytes_per_token_bf16", kv_bytes_per_token(m, DType::bf16)},
          {"sources", m.sources},
          {"notes", m.notes},
          {"origin", m.origin}};
}

OrderedJson price_entry_json(const Price& p) {
  return {{"provider", p.provider}, {"gpu", p.gpu},       {"mode", to_string(p.mode)},
          {"term", p.term.empty() ? OrderedJson(nullptr) : OrderedJson(p.term)},
          {"usd_per_gpu_hour", p.usd_per_gpu_hour},       {"date", p.date},
          {"price_age_days", p.age_days}, {"stale", p.stale()},
          {"region", detail::region_json(p)}, {"instance", p.instance},
          {"gpus_per_instance", detail::gpus_per_instance_json(p)}, {"sources", p.sources},
          {"notes", p.notes},       {"origin", p.origin}};
}

std::string render(const detail::Document& doc, const OrderedJson& json, const RenderOptions& o) {
  return o.format == Format::json ? detail::dump_json(json) : detail::render_document(doc, o.format);
}

void add_sources(detail::Document& doc, const std::vector<std::string>& sources,
                 const std::string& notes, const std::string& origin) {
  for (const auto& s : sources) {
    doc.footer.push_back("source: " + s);
  }
  if (!notes.empty()) {
    doc.footer.push_back("notes: " + notes);
  }
  doc.footer.push_back("defined in: " + origin);
}

}  // namespace

std::string render_gpu_list(const Catalog& catalog, const RenderOptions& o) {
  const std::string unit(detail::unit_name(o.units));
  detail::Document doc;
  detail::Table t{.title = "",
                  .header = {"id", "name", fmt::format("memory {}", unit),
                             fmt::format("usable {}", unit), "bandwidth TB/s", "dense bf16 TFLOP/s",
                             "dense fp8 TFLOP/s", "TDP W", "scale-up", "MIG slices"},
                  .rows = {}};
  OrderedJson list = OrderedJson::array();
  for (const GpuSpec& g : catalog.gpus()) {
    t.rows.push_back({g.id, g.name, bytes_value(g.memory_bytes, o.units),
                      g.usable_memory_bytes ? bytes_value(*g.usable_memory_bytes, o.units) : "-",
                      fmt::format("{:g}", g.memory_bandwidth_bytes_per_s / units::kTB),
                      g.dense_flop_per_s.contains("bf16") ? tflop(g.dense_flop_per_s, "bf16")
                                                          : tflop(g.dense_flop_per_s, "fp16") + " (fp16)",
                      tflop(g.dense_flop_per_s, "fp8"),
                      fmt::format("{:g}", g.tdp_w),
                      g.scale_up            ? fmt::format("{} x{}", g.scale_up->kind, g.scale_up->domain_gpus)
                      : g.optional_scale_up ? fmt::format("- ({} x{} optional)", g.optional_scale_up->kind,
                                                          g.optional_scale_up->domain_gpus)
                                            : "-",
                      g.mig_profiles.empty() ? "-" : std::to_string(most_mig_slices(g))});
    list.push_back(gpu_json(g));
  }
  doc.tables.push_back(std::move(t));
  doc.footer.push_back(
      "TFLOP/s are dense (no 2:4 sparsity); memory in " + unit +
      "; usable = what the driver reports; details and sources: gpuplan catalog show ID");
  OrderedJson j = envelope("catalog gpus");
  j["gpus"] = list;
  return render(doc, j, o);
}

std::string render_model_list(const Catalog& catalog, const RenderOptions& o) {
  detail::Document doc;
  detail::Table t{.title = "",
                  .header = {"id", "params B", "active B", "w/o emb. B", "w/o emb.+head B", "layers", "heads", "kv heads",
                             "KV bytes/token bf16", "max context", "kind"},
                  .rows = {}};
  OrderedJson list = OrderedJson::array();
  for (const ModelSpec& m : catalog.models()) {
    const ParamCount p = count_params(m);
    std::string kind = m.mla ? "MLA" : (m.num_key_value_heads < m.num_attention_heads ? "GQA" : "MHA");
    if (m.moe) {
      kind += fmt::format(", MoE {}x{}", m.moe->routed_experts, m.moe->experts_per_token);
    }
    if (!m.layer_window_tokens.empty()) {
      kind += ", sliding";
    }
    if (m.linear_attention) {
      // hybrid: most layers keep a fixed state, not a KV cache
      using Kind = LinearAttentionSpec::Kind;
      const Kind state = m.linear_attention->kind;
      kind += state == Kind::mamba2       ? ", Mamba2"
              : state == Kind::mamba1     ? ", Mamba"
              : state == Kind::short_conv ? ", short conv"
              : state == Kind::lightning  ? ", lightning attention"
                                          : ", linear attention";
    }
    t.rows.push_back({m.id, fmt::format("{:.2f}", p.total() / units::kGiga),
                      fmt::format("{:.2f}", p.active() / units::kGiga),
                      fmt::format("{:.2f}", p.active_without_embedding() / units::kGiga),
                      fmt::format("{:.2f}", p.active_without_embedding_and_head() / units::kGiga),
                      std::to_string(m.num_hidden_layers), std::to_string(m.num_attention_heads),
                      m.mla ? "-" : std::to_string(m.num_key_value_heads),
                      group_digits(static_cast<std::uint64_t>(kv_bytes_per_token(m, DType::bf16))),
                      group_digits(m.max_position_embeddings), kind});
    list.push_back(model_json(m));
  }
  doc.tables.push_back(std::move(t));
  doc.footer.push_back(
      "parameter counts are computed from the architecture; B = 1e9; active = per token, including the embedding and LM "
      "head (as Qwen3-30B-A3B's 3.3 B and Mixtral's 12.9 B are quoted); w/o emb. = active without the input embedding "
      "table (a lookup, not a matmul), as OpenAI, DeepSeek and GLM quote it (gpt-oss-20b: 3.6 B); w/o emb.+head = "
      "without the LM head too (Qwen3-Next-80B-A3B: 3 B); a tied LM head is the embedding matrix, subtracted once");
  OrderedJson j = envelope("catalog models");
  j["models"] = list;
  return render(doc, j, o);
}

std::string render_price_list(const Catalog& catalog, const RenderOptions& o) {
  return render_price_list(catalog, PriceFilter{}, o);
}

std::string render_price_list(const Catalog& catalog, const PriceFilter& filter, const RenderOptions& o) {
  const std::vector<const Price*> prices = filter_prices(catalog.prices(), filter);
  const std::string filters = filter.flags_text();
  detail::Document doc;
  detail::Table t{.title = "",
                  .header = {"provider", "gpu", "mode", "term", "USD/GPU-hour", "GPUs per instance", "date", "price age",
                             "region"},
                  .rows = {}};
  OrderedJson list = OrderedJson::array();
  int stale = 0;
  for (const Price* price : prices) {
    const Price& p = *price;
    t.rows.push_back({p.provider, p.gpu, std::string(to_string(p.mode)), p.term.empty() ? "-" : p.term,
                      fmt::format("{:.3f}", p.usd_per_gpu_hour),
                      p.gpus_per_instance.empty() ? "any" : fmt::format("{}", fmt::join(p.gpus_per_instance, ",")), p.date,
                      price_age_label(p),
                      p.region.empty() ? "-" : p.region});
    list.push_back(price_entry_json(p));
    stale += p.stale() ? 1 : 0;
  }
  doc.tables.push_back(std::move(t));
  if (!filters.empty()) {
    doc.footer.push_back(fmt::format("{} of the catalog's {} prices match {}{}", prices.size(), catalog.prices().size(),
                                     filters,
                                     filter.mode == PricingMode::spot ? " (spot takes the interruptible and preemptible offers)"
                                                                      : ""));
  }
  if (!filter.region.empty()) {
    // Offers that state no region, or one the filter cannot place, may yet be there: say so, as
    // plan and compare do, rather than drop a cheaper one silently.
    PriceFilter anywhere = filter;
    anywhere.region.clear();
    std::string left = region_left_out_note(region_left_out(filter_prices(catalog.prices(), anywhere), filter.region),
                                            filter.region);
    constexpr std::string_view kPriced = "without --region they are priced";
    if (const auto at = left.rfind(kPriced); at != std::string::npos) {
      left.replace(at, kPriced.size(), "without --region they are listed");
    }
    if (!left.empty()) {
      doc.footer.push_back(left);
    }
  }
  doc.footer.push_back(fmt::format("price age = days (d) since the price's date; {} of {} prices are older than {} days (stale)",
                                   stale, prices.size(), kStalePriceDays));
  doc.footer.push_back("GPUs per instance: the instance sizes a price rents, paid whole (any: the source states none)");
  doc.footer.push_back("sources: gpuplan catalog prices --format json");
  OrderedJson j = envelope("catalog prices");
  if (!filters.empty()) {  // only when given, as before
    j["filter"] = {{"gpus", filter.gpus},
                   {"provider", filter.provider.empty() ? OrderedJson(nullptr) : OrderedJson(filter.provider)},
                   {"mode", filter.mode ? OrderedJson(std::string(to_string(*filter.mode))) : OrderedJson(nullptr)},
                   {"region", filter.region.empty() ? OrderedJson(nullptr) : OrderedJson(filter.region)},
                   {"term", filter.term.empty() ? OrderedJson(nullptr) : OrderedJson(filter.term)},
                   {"catalog_prices", catalog.prices().size()}};
  }
  j["prices"] = list;
  return render(doc, j, o);
}

std::string render_gpu(const GpuSpec& g, const RenderOptions& o) {
  const std::string unit(detail::unit_name(o.units));
  detail::Document doc;
  doc.heading.push_back(fmt::format("{}: {}", g.id, g.name));
  detail::Table t{.title = "", .header = {"field", "value"}, .rows = {}};
  t.rows.push_back({fmt::format("memory (datasheet, {})", unit), bytes_value(g.memory_bytes, o.units)});
  t.rows.push_back({fmt::format("memory (driver-reported, {})", unit),
                    g.usable_memory_bytes ? bytes_value(*g.usable_memory_bytes, o.units) : "unknown"});
  if (g.free_at_start_bytes) {  // unified memory: what CUDA reports free at boot, fit's capacity
    t.rows.push_back({fmt::format("memory free to CUDA at boot ({})", unit), bytes_value(*g.free_at_start_bytes, o.units)});
  }
  t.rows.push_back({"memory bandwidth (TB/s)", fmt::format("{:g}", g.memory_bandwidth_bytes_per_s / units::kTB)});
  for (const auto& [type, v] : g.dense_flop_per_s) {
    t.rows.push_back({fmt::format("dense {} (TFLOP/s)", type), fmt::format("{:g}", v / units::kTera)});
  }
  for (const auto& [type, v] : g.sparse_flop_per_s) {
    t.rows.push_back({fmt::format("sparse 2:4 {} (TFLOP/s)", type), fmt::format("{:g}", v / units::kTera)});
  }
  if (g.achievable_matmul_share) {
    t.rows.push_back({"best measured bf16 matmul (share of dense peak)", fmt::format("{:.3f}", *g.achievable_matmul_share)});
  }
  t.rows.push_back({"TDP (W)", fmt::format("{:g}", g.tdp_w)});
  if (g.scale_up) {
    t.rows.push_back({"scale-up link", fmt::format("{}, {:g} GB/s per direction, {} GPUs", g.scale_up->kind,
                                                   g.scale_up->bytes_per_s_per_direction / units::kGB,
                                                   g.scale_up->domain_gpus)});
  }
  if (g.optional_scale_up && !g.scale_up) {
    t.rows.push_back({"scale-up link (optional, not assumed)",
                      fmt::format("{}, {:g} GB/s per direction, {} GPUs; a catalog override giving scale_up fits it",
                                  g.optional_scale_up->kind,
                                  g.optional_scale_up->bytes_per_s_per_direction / units::kGB,
                                  g.optional_scale_up->domain_gpus)});
  }
  std::string host = fmt::format("{}, {:g} GB/s per direction", g.host_link.kind,
                                 g.host_link.bytes_per_s_per_direction / units::kGB);
  if (g.host_link.peer_bytes_per_s_per_direction) {
    host += fmt::format(" ({:g} GB/s to peers while all exchange)",
                        *g.host_link.peer_bytes_per_s_per_direction / units::kGB);
  }
  if (!g.host_link.peer_to_peer) {
    host += "; no peer-to-peer access between GPUs";
  }
  t.rows.push_back({"host link", host});
  if (g.scale_out_bytes_per_s) {
    t.rows.push_back({"scale-out network", fmt::format("{:g} Gb/s per GPU (every system's NICs)",
                                                       *g.scale_out_bytes_per_s * 8 / 1e9)});
  }
  if (!g.aliases.empty()) {
    t.rows.push_back({"aliases", fmt::format("{}", fmt::join(g.aliases, ", "))});
  }
  doc.tables.push_back(std::move(t));
  if (!g.alternatives.empty()) {
    detail::Table alt{.title = "Figures other sources give (the table above keeps the catalog's choice)",
                      .header = {"field", "value", "source"},
                      .rows = {}};
    for (const AlternativeFigure& a : g.alternatives) {
      alt.rows.push_back({a.field, fmt::format("{:g}", a.value), a.source});
    }
    doc.tables.push_back(std::move(alt));
  }
  if (!g.mig_profiles.empty()) {
    detail::Table mig{.title = "MIG profiles",
                      .header = {"profile", fmt::format("memory {}", unit), "compute slices", "SMs", "max instances"},
                      .rows = {}};
    for (const MigProfile& p : g.mig_profiles) {
      const MigMemory mm = mig_memory(g, p);
      mig.rows.push_back({p.name, bytes_value(mm.bytes, o.units) + (mm.estimated ? " (est.)" : ""),
                          fmt::format("{}/7", p.compute_slices),
                          p.sm_count ? std::to_string(*p.sm_count) : "-", std::to_string(p.max_instances)});
    }
    doc.tables.push_back(std::move(mig));
  }
  add_sources(doc, g.sources, g.notes, g.origin);
  OrderedJson j = envelope("catalog show");
  j["gpu"] = gpu_json(g);
  return render(doc, j, o);
}

std::string render_model(const ModelSpec& m, const RenderOptions& o) {
  const ParamCount p = count_params(m);
  detail::Document doc;
  doc.heading.push_back(fmt::format("{}: {}{}", m.id, m.name, m.hf_repo.empty() ? "" : " (" + m.hf_repo + ")"));
  detail::Table arch{.title = "", .header = {"field", "value"}, .rows = {}};
  const auto add = [&arch](std::string k, std::uint64_t v) { arch.rows.push_back({std::move(k), group_digits(v)}); };
  arch.rows.push_back({"model_type", m.model_type.empty() ? "-" : m.model_type});
  add("hidden_size", m.hidden_size);
  add("num_hidden_layers", m.num_hidden_layers);
  add("num_attention_heads", m.num_attention_heads);
  if (m.mla) {
    add("kv_lora_rank", m.mla->kv_lora_rank);
    add("qk_rope_head_dim", m.mla->qk_rope_head_dim);
  } else {
    add("num_key_value_heads", m.num_key_value_heads);
    add("head_dim", m.head_dim);
  }
  add("intermediate_size", m.intermediate_size);
  if (m.moe) {
    add("routed experts", m.moe->routed_experts);
    add("experts per token", m.moe->experts_per_token);
    add("shared experts", m.moe->shared_experts);
    add("expert intermediate size", m.moe->expert_intermediate);
  }
  add("vocab_size", m.vocab_size);
  add("max_position_embeddings", m.max_position_embeddings);
  arch.rows.push_back({"tie_word_embeddings", m.tie_word_embeddings ? "true" : "false"});
  add("KV bytes per token (bf16)", static_cast<std::uint64_t>(kv_bytes_per_token(m, DType::bf16)));
  doc.tables.push_back(std::move(arch));
  detail::Table params{.title = "Parameters (computed)", .header = {"part", "B"}, .rows = {}};
  const auto prow = [&params](std::string k, double v) {
    params.rows.push_back({std::move(k), fmt::format("{:.3f}", v / units::kGiga)});
  };
  prow("embedding", p.embedding);
  prow("LM head", p.lm_head);
  prow("attention", p.attention);
  prow("dense MLP", p.dense_mlp);
  if (m.moe) {
    prow("routed experts", p.routed_experts);
    prow("shared experts", p.shared_experts);
    prow("router", p.router);
  }
  prow("norms", p.norms);
  prow("total", p.total());
  prow("active per token", p.active());
  prow("active without embedding", p.active_without_embedding());
  prow("active without embedding and LM head", p.active_without_embedding_and_head());
  doc.tables.push_back(std::move(params));
  add_sources(doc, m.sources, m.notes, m.origin);
  OrderedJson j = envelope("catalog show");
  j["model"] = model_json(m);
  return render(doc, j, o);
}

std::string render_merge_report(const MergeReport& r, const RenderOptions& o) {
  detail::Document doc;
  doc.heading.push_back(fmt::format("{}: valid ({} GPUs, {} models, {} prices, {} benchmarks)", r.origin,
                                    r.gpus, r.models, r.prices, r.benchmarks));
  detail::Table counts{.title = "", .header = {"file", "gpus", "models", "prices", "benchmarks", "overrides"}, .rows = {}};
  counts.rows.push_back({r.origin, std::to_string(r.gpus), std::to_string(r.models), std::to_string(r.prices),
                         std::to_string(r.benchmarks), std::to_string(r.overrides.size())});
  doc.tables.push_back(std::move(counts));
  for (const auto& line : r.overrides) {
    doc.footer.push_back("overrides " + line);
  }
  OrderedJson j = envelope("catalog validate");
  j["file"] = r.origin;
  j["valid"] = true;
  j["gpus"] = r.gpus;
  j["models"] = r.models;
  j["prices"] = r.prices;
  j["benchmarks"] = r.benchmarks;
  j["overrides"] = r.overrides;
  return render(doc, j, o);
}

}  // namespace gpuplan
