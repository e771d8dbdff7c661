#include "detail/catalog_json.hpp"

#include "detail/ascii.hpp"
#include "detail/hf_quantization.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/dtype.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/units.hpp>

namespace gpuplan::detail {
namespace {

// Ceilings for "absurd" values: a few times any shipping or announced part (B300's 288 GB and
// 8 TB/s, Rubin's 50 PFLOP/s FP4, 1.4 kW; H100s rent for 2-12 USD an hour), so a slipped digit
// or an 8-GPU instance's price typed as one GPU's is refused rather than sized (80,000 GB of
// memory called 405B a fit).
constexpr double kMaxMemoryGb = 4'096;
constexpr double kMaxBandwidthTbPerS = 100;
constexpr double kMaxTflopPerS = 200'000;
constexpr double kMaxLinkGbPerS = 100'000;
constexpr double kMaxWatts = 5'000;
constexpr double kMaxUsdPerGpuHour = 200;
// Floors for the same reason, far below any real part or price: a positive but tiny figure
// (1e-300) would otherwise pass and come out as a 300-digit time or a flag blamed for it.
constexpr double kMinMemoryGb = 0.1;
constexpr double kMinBandwidthTbPerS = 0.001;
constexpr double kMinTflopPerS = 0.001;
constexpr double kMinLinkGbPerS = 0.001;
constexpr double kMinWatts = 1;
constexpr double kMinUsdPerGpuHour = 1e-4;    // cost's own floor for a price
constexpr double kMinOutputTokensPerS = 1e-3;  // cost's own floor for a rate

const std::array kComputeTypes{std::string_view("fp4"),  std::string_view("fp8"),
                               std::string_view("int8"), std::string_view("bf16"),
                               std::string_view("fp16"), std::string_view("tf32"),
                               std::string_view("fp32"), std::string_view("fp64")};

std::string id_field(ObjectReader& r, std::string_view key = "id") {
  std::string id = r.string(key);
  const bool ok = std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::islower(c) || std::isdigit(c) || c == '-' || c == '.' || c == '_';
  });
  if (!ok) {
    r.fail(key, fmt::format("expected lower-case letters, digits, '-', '.' or '_', got \"{}\"", id));
  }
  return id;
}

/// The link kinds the model knows, by vendor: comm.cpp reads "pcie*" as a node's PCIe and
/// "nvlink-c2c" as Grace's host link, so a typo ("nvlink99") or another vendor's link (an AMD
/// GPU on NVLink) would be timed on a path the GPU has not.
void check_link_kind(ObjectReader& r, const std::string& kind, std::string_view vendor) {
  static const std::vector<std::string> kNvidia{"nvlink2", "nvlink3", "nvlink4", "nvlink5", "nvlink6",
                                               "nvlink-bridge", "nvlink-c2c"};
  static const std::vector<std::string> kAmd{"xgmi", "xgmi-bridge"};
  static const std::vector<std::string> kAny{"pcie3-x16", "pcie4-x16", "pcie5-x16", "pcie6-x16",
                                            "pcie3-x8",  "pcie4-x8",  "pcie5-x8",  "pcie6-x8"};
  const auto in = [&kind](const std::vector<std::string>& kinds) {
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  };
  // Gaudi's scale-up is RoCE ports: roce-<Gb/s>g-x<ports>, e.g. roce-200g-x21.
  const auto roce = [&kind] {
    unsigned gbit = 0;
    unsigned ports = 0;
    char tail = 0;
    return kind.starts_with("roce-") &&
           std::sscanf(kind.c_str(), "roce-%ug-x%u%c", &gbit, &ports, &tail) == 2 && gbit > 0 && ports > 0;
  };
  if (in(kAny) || roce()) {
    return;
  }
  const std::string_view owner = in(kNvidia) ? "nvidia" : in(kAmd) ? "amd" : "";
  if (owner.empty()) {
    std::vector<std::string> known = kNvidia;
    known.insert(known.end(), kAmd.begin(), kAmd.end());
    known.insert(known.end(), kAny.begin(), kAny.end());
    const std::vector<std::string> close = closest_names(kind, known);
    r.fail("kind", fmt::format("unknown link kind \"{}\"{}; known: {}, roce-<N>g-x<ports>", printable(kind),
                               close.empty() ? "" : fmt::format(" (closest: {})", fmt::join(close, ", ")),
                               fmt::join(known, ", ")));
  }
  if (owner != vendor) {
    r.fail("kind", fmt::format("\"{}\" is a link of {} GPUs, and this GPU's vendor is {}", kind, owner, vendor));
  }
}

std::map<std::string, double> flop_table(ObjectReader& r, std::string_view key, bool required) {
  std::map<std::string, double> out;
  const Json* v = r.value(key);
  if (v == nullptr) {
    if (required) {
      r.fail(key, "missing required field");
    }
    return out;
  }
  ObjectReader table(*v, r.origin(), r.pointer() / std::string(key));
  table.reject_unknown(kComputeTypes);
  for (std::string_view type : kComputeTypes) {
    if (auto tflop = table.optional_number_in(type, kMinTflopPerS, kMaxTflopPerS)) {
      out[std::string(type)] = *tflop * units::kTera;
    }
  }
  // Volta and Turing multiply fp16 but not bf16.
  if (required && !out.contains("bf16") && !out.contains("fp16")) {
    table.fail("bf16", "missing required field (or fp16, on GPUs without bf16)");
  }
  // A narrower float format never multiplies slower than a wider one on the same tensor cores.
  for (const auto& [narrow, wide] : {std::pair{"fp8", "bf16"}, std::pair{"fp4", "fp8"}}) {
    if (out.contains(narrow) && out.contains(wide) && out.at(narrow) < out.at(wide)) {
      table.fail(narrow, fmt::format("{:g} TFLOP/s is below {} ({:g}): a narrower format is never slower",
                                     out.at(narrow) / units::kTera, wide, out.at(wide) / units::kTera));
    }
  }
  return out;
}

Link link_from_json(const Json& v, const std::string& origin, const JsonPointer& at, bool domain,
                    std::string_view vendor) {
  ObjectReader r(v, origin, at);
  static constexpr std::array kScaleUp{std::string_view("kind"), std::string_view("gb_per_s_per_direction"),
                                       std::string_view("domain_gpus"), std::string_view("topology")};
  static constexpr std::array kHost{std::string_view("kind"), std::string_view("gb_per_s_per_direction"),
                                    std::string_view("peer_gb_per_s_per_direction"), std::string_view("peer_to_peer")};
  r.reject_unknown(domain ? std::span<const std::string_view>(kScaleUp) : std::span<const std::string_view>(kHost));
  Link link;
  link.kind = r.string("kind");
  check_link_kind(r, link.kind, vendor);
  const double line_gb = r.number_in("gb_per_s_per_direction", kMinLinkGbPerS, kMaxLinkGbPerS);
  link.bytes_per_s_per_direction = line_gb * units::kGB;
  link.domain_gpus = domain ? static_cast<int>(r.integer("domain_gpus", 1, 1u << 16)) : 1;
  if (domain) {
    const std::string topology = r.optional_string("topology").value_or("switch");
    if (topology != "switch" && topology != "mesh") {
      r.fail("topology", fmt::format("expected \"switch\" (a GPU reaches any peer at its full rate) or \"mesh\" "
                                     "(direct links to each peer), got \"{}\"",
                                     printable(topology)));
    }
    link.mesh = topology == "mesh";
  }
  if (!domain) {
    // Sharing can only lower what a GPU gets: never above the line rate.
    if (auto peer_gb = r.optional_number_in("peer_gb_per_s_per_direction", kMinLinkGbPerS, line_gb)) {
      link.peer_bytes_per_s_per_direction = *peer_gb * units::kGB;
    }
    link.peer_to_peer = r.boolean("peer_to_peer", true);
  }
  return link;
}

MigProfile mig_from_json(const Json& v, const std::string& origin, const JsonPointer& at) {
  ObjectReader r(v, origin, at);
  static constexpr std::array kKeys{std::string_view("name"),           std::string_view("memory_gib"),
                                    std::string_view("memory_eighths"), std::string_view("compute_slices"),
                                    std::string_view("sm_count"),       std::string_view("max_instances")};
  r.reject_unknown(kKeys);
  MigProfile p;
  p.name = r.string("name");
  if (auto gib = r.optional_number_in("memory_gib", kMinMemoryGb, kMaxMemoryGb)) {
    p.memory_bytes = *gib * units::kGiB;
  }
  p.memory_eighths = static_cast<int>(r.integer("memory_eighths", 1, 8));
  p.compute_slices = static_cast<int>(r.integer("compute_slices", 1, 7));
  if (auto sms = r.optional_integer("sm_count", 1, 100'000)) {
    p.sm_count = static_cast<int>(*sms);
  }
  p.max_instances = static_cast<int>(r.integer("max_instances", 1, 7));
  return p;
}

// A disputed figure: the field must be one the entry stores as a number.
AlternativeFigure alternative_from_json(const Json& v, const std::string& origin, const JsonPointer& at) {
  ObjectReader r(v, origin, at);
  static constexpr std::array kKeys{std::string_view("field"), std::string_view("value"),
                                    std::string_view("source")};
  r.reject_unknown(kKeys);
  AlternativeFigure a;
  a.field = r.string("field");
  static constexpr std::array kScalars{std::string_view("memory_gb"), std::string_view("memory_bandwidth_tb_per_s"),
                                       std::string_view("tdp_w"), std::string_view("usable_memory_mib")};
  const auto dot = a.field.find('.');
  const std::string_view table = std::string_view(a.field).substr(0, dot);
  const bool known =
      dot == std::string::npos
          ? std::find(kScalars.begin(), kScalars.end(), a.field) != kScalars.end()
          : (table == "dense_tflop_per_s" || table == "sparse_tflop_per_s") &&
                std::find(kComputeTypes.begin(), kComputeTypes.end(), a.field.substr(dot + 1)) != kComputeTypes.end();
  if (!known) {
    r.fail("field", fmt::format("\"{}\" is not a numeric GPU field (memory_gb, memory_bandwidth_tb_per_s, tdp_w, "
                                "usable_memory_mib, dense_tflop_per_s.<type>, sparse_tflop_per_s.<type>)",
                                a.field));
  }
  a.value = r.number("value", kMaxMemoryGb * units::kGB / units::kMiB);  // the largest field: MiB
  a.source = r.string("source");
  return a;
}

// Engines, samplers and kernels are chosen by vendor (TensorRT-LLM and FlashInfer are NVIDIA's,
// bitsandbytes needs CUDA or ROCm): a vendor spelled otherwise ("NVIDIA", "nvidiaa") would
// silently be none of them. The built-in catalog's, in any case.
std::string vendor_field(ObjectReader& r) {
  static const std::vector<std::string> kVendors{"nvidia", "amd", "intel"};
  const std::string given = r.string("vendor");
  std::string vendor = lower(given);
  if (std::find(kVendors.begin(), kVendors.end(), vendor) == kVendors.end()) {
    const std::vector<std::string> close = closest_names(vendor, kVendors);
    r.fail("vendor", fmt::format("expected nvidia, amd or intel (any case), got '{}'{}", given,
                                 close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", "))));
  }
  return vendor;
}

}  // namespace

GpuSpec gpu_from_json(const Json& entry, const std::string& origin, const JsonPointer& at) {
  ObjectReader r(entry, origin, at);
  static constexpr std::array kKeys{
      std::string_view("id"),          std::string_view("name"),
      std::string_view("vendor"),      std::string_view("memory_gb"),
      std::string_view("usable_memory_mib"), std::string_view("cuda_memory_mib"),
      std::string_view("free_at_start_mib"),
      std::string_view("memory_bandwidth_tb_per_s"),
      std::string_view("dense_tflop_per_s"), std::string_view("sparse_tflop_per_s"),
      std::string_view("achievable_matmul_share"),
      std::string_view("tdp_w"),       std::string_view("sm_count"),
      std::string_view("gpus_per_system"),
      std::string_view("scale_up"),    std::string_view("optional_scale_up"),
      std::string_view("host_link"),   std::string_view("scale_out_gbit_per_s"),
      std::string_view("mig_profiles"), std::string_view("sources"),
      std::string_view("alternatives"), std::string_view("aliases"),
      std::string_view("notes")};
  r.reject_unknown(kKeys);
  GpuSpec g;
  g.origin = origin;
  g.id = id_field(r);
  g.name = r.string("name");
  g.vendor = vendor_field(r);
  g.memory_bytes = r.number_in("memory_gb", kMinMemoryGb, kMaxMemoryGb) * units::kGB;
  if (auto mib = r.optional_number("usable_memory_mib", kMaxMemoryGb * units::kGB / units::kMiB)) {
    g.usable_memory_bytes = *mib * units::kMiB;
  }
  if (auto mib = r.optional_number("cuda_memory_mib", kMaxMemoryGb * units::kGB / units::kMiB)) {
    g.cuda_memory_bytes = *mib * units::kMiB;
  }
  if (auto mib = r.optional_number("free_at_start_mib", kMaxMemoryGb * units::kGB / units::kMiB)) {
    g.free_at_start_bytes = *mib * units::kMiB;
  }

  g.memory_bandwidth_bytes_per_s = r.number_in("memory_bandwidth_tb_per_s", kMinBandwidthTbPerS, kMaxBandwidthTbPerS) * units::kTB;
  g.dense_flop_per_s = flop_table(r, "dense_tflop_per_s", true);
  g.sparse_flop_per_s = flop_table(r, "sparse_tflop_per_s", false);
  // 2:4 sparsity skips half the multiplies: its peak is the dense one or more, never less (a
  // sparse figure below it timed --sparse slower than dense).
  for (const auto& [type, sparse] : g.sparse_flop_per_s) {
    if (g.dense_flop_per_s.contains(type) && sparse < g.dense_flop_per_s.at(type)) {
      throw InputError(fmt::format("{}: {:g} TFLOP/s is below dense_tflop_per_s.{} ({:g}): 2:4 sparsity never lowers "
                                   "the peak",
                                   where(origin, at / "sparse_tflop_per_s" / type), sparse / units::kTera, type,
                                   g.dense_flop_per_s.at(type) / units::kTera));
    }
  }
  // A measured share of the vendor's peak: below 5 % or above it is a typo.
  g.achievable_matmul_share = r.optional_number_in("achievable_matmul_share", 0.05, 1.0);
  g.tdp_w = r.number_in("tdp_w", kMinWatts, kMaxWatts);
  if (auto sms = r.optional_integer("sm_count", 1, 100'000)) {
    g.sm_count = static_cast<int>(*sms);
  }
  if (auto n = r.optional_integer("gpus_per_system", 1, 72)) {
    g.gpus_per_system = *n;
  }
  if (const Json* v = r.value("scale_up")) {
    g.scale_up = link_from_json(*v, origin, at / "scale_up", true, g.vendor);
  }
  if (const Json* v = r.value("optional_scale_up")) {
    g.optional_scale_up = link_from_json(*v, origin, at / "optional_scale_up", true, g.vendor);
  }
  const Json* host = r.value("host_link");
  if (host == nullptr) {
    r.fail("host_link", "missing required field");
  }
  g.host_link = link_from_json(*host, origin, at / "host_link", false, g.vendor);
  // Per-GPU NIC line rate in Gb/s, as NICs are sold (ConnectX-7 400, ConnectX-8 800); 1 Gb/s
  // to 100 Tb/s, the range --network-gbit-per-s takes.
  if (auto gbit = r.optional_number_in("scale_out_gbit_per_s", 1.0, 100000.0)) {
    g.scale_out_bytes_per_s = units::gbit_per_s_to_bytes_per_s(*gbit);
  }
  if (const Json* v = r.value("mig_profiles")) {
    if (!v->is_array()) {
      r.fail("mig_profiles", "expected an array of MIG profiles");
    }
    for (std::size_t i = 0; i < v->size(); ++i) {
      MigProfile p = mig_from_json((*v)[i], origin, at / "mig_profiles" / i);
      if (g.find_mig_profile(p.name) != nullptr) {
        throw InputError(fmt::format("{}: duplicate MIG profile '{}'",
                                     where(origin, at / "mig_profiles" / i / "name"), p.name));
      }
      g.mig_profiles.push_back(std::move(p));
    }
  }
  // Cross-checks. The driver's figure is in MiB and the datasheet's in GB (often really GiB),
  // so they differ by a few percent either way; a factor beyond that is a typo.
  if (g.usable_memory_bytes) {
    const double ratio = *g.usable_memory_bytes / g.memory_bytes;
    if (ratio < 0.5 || ratio > 1.2) {
      r.fail("usable_memory_mib", fmt::format("{:g} MiB is not within 50-120 % of memory_gb {:g}",
                                              *g.usable_memory_bytes / units::kMiB,
                                              g.memory_bytes / units::kGB));
    }
  }
  // CUDA's total sits a little below the driver's (memory the driver keeps for itself).
  const double driver_total = g.driver_memory_bytes();
  if (g.cuda_memory_bytes && (*g.cuda_memory_bytes > driver_total || *g.cuda_memory_bytes < 0.9 * driver_total)) {
    r.fail("cuda_memory_mib", fmt::format("{:g} MiB is not within 90-100 % of the GPU's usable memory",
                                          *g.cuda_memory_bytes / units::kMiB));
  }
  if (g.free_at_start_bytes && (*g.free_at_start_bytes > g.engine_memory_bytes() ||
                                *g.free_at_start_bytes < 0.5 * g.engine_memory_bytes())) {
    r.fail("free_at_start_mib", fmt::format("{:g} MiB is not within 50-100 % of the GPU's total",
                                            *g.free_at_start_bytes / units::kMiB));
  }
  for (std::size_t i = 0; i < g.mig_profiles.size(); ++i) {
    const MigProfile& p = g.mig_profiles[i];
    if (p.memory_bytes && *p.memory_bytes > g.fit_memory_bytes()) {
      throw InputError(fmt::format("{}: {:g} GiB is more than the whole GPU",
                                   where(origin, at / "mig_profiles" / i / "memory_gib"),
                                   *p.memory_bytes / units::kGiB));
    }
  }
  g.sources = r.strings("sources");
  g.notes = r.optional_string("notes").value_or("");
  if (r.has("aliases")) {
    for (std::string& alias : r.strings("aliases")) {
      const bool ok = !alias.empty() && std::all_of(alias.begin(), alias.end(), [](unsigned char c) {
        return std::islower(c) || std::isdigit(c) || c == '-' || c == '.' || c == '_';
      });
      if (!ok) {
        r.fail("aliases", fmt::format("expected lower-case letters, digits, '-', '.' or '_', got \"{}\"", alias));
      }
      g.aliases.push_back(std::move(alias));
    }
  }
  if (const Json* v = r.value("alternatives")) {
    if (!v->is_array()) {
      r.fail("alternatives", "expected an array of {\"field\", \"value\", \"source\"} objects");
    }
    for (std::size_t i = 0; i < v->size(); ++i) {
      g.alternatives.push_back(alternative_from_json((*v)[i], origin, at / "alternatives" / i));
    }
  }
  return g;
}

ModelSpec model_from_json(const Json& entry, const std::string& origin, const JsonPointer& at) {
  ObjectReader r(entry, origin, at);
  static constexpr std::array kKeys{std::string_view("id"),      std::string_view("name"),
                                    std::string_view("hf_repo"), std::string_view("sources"),
                                    std::string_view("notes"),   std::string_view("config"),
                                    std::string_view("shipped_weights"), std::string_view("trust_remote_code"),
                                    std::string_view("aliases")};
  r.reject_unknown(kKeys);
  const std::string id = id_field(r);
  const Json* config = r.value("config");
  if (config == nullptr) {
    r.fail("config", "missing required field");
  }
  ModelSpec m = model_from_config(*config, origin, at / "config", true);
  m.id = id;
  m.name = r.string("name");
  m.hf_repo = r.optional_string("hf_repo").value_or("");
  m.sources = r.strings("sources");
  m.notes = r.optional_string("notes").value_or("");
  m.remote_code = r.boolean("trust_remote_code", m.remote_code);
  if (const Json* shipped = r.value("shipped_weights")) {
    read_catalog_formats(m, *shipped, origin, at / "shipped_weights");
  }
  // Another repository resolves to this entry only with its reason and its sources, as every
  // figure of the catalog carries them.
  if (const Json* aliases = r.value("aliases")) {
    if (!aliases->is_array()) {
      r.fail("aliases", "expected an array of {\"hf_repo\", \"note\", \"sources\"} objects");
    }
    for (std::size_t i = 0; i < aliases->size(); ++i) {
      ObjectReader a((*aliases)[i], origin, at / "aliases" / i);
      static constexpr std::array kAliasKeys{std::string_view("hf_repo"), std::string_view("note"),
                                             std::string_view("sources")};
      a.reject_unknown(kAliasKeys);
      ModelAlias alias{.hf_repo = a.string("hf_repo"), .note = a.string("note"), .sources = a.strings("sources")};
      if (alias.hf_repo.find('/') == std::string::npos) {
        a.fail("hf_repo", fmt::format("expected a Hugging Face repository (owner/name), got \"{}\"",
                                      detail::printable(alias.hf_repo)));
      }
      m.aliases.push_back(std::move(alias));
    }
  }
  return m;
}

namespace {

// A price's instance sizes: a non-empty list of whole GPU counts, smallest first, each a size
// some machine has (1 .. kMaxGpusPerInstance). Absent: any count is rented.
std::vector<std::uint64_t> instance_sizes(ObjectReader& r) {
  static constexpr std::string_view kKey = "gpus_per_instance";
  std::vector<std::uint64_t> out;
  // null is not a size: read as absent it priced the offer as any GPU count (a typo for [8]
  // would rent 1 GPU of an 8-GPU machine). Said here, before the reader's general refusal.
  if (const auto it = r.object().find(kKey); it != r.object().end() && it->is_null()) {
    r.fail(kKey, "null is not an instance size; give the sizes (like [8] or [1, 8]) or leave the field out "
                 "(any GPU count rented)");
  }
  const Json* v = r.value(kKey);
  if (v == nullptr) {
    return out;
  }
  if (!v->is_array() || v->empty()) {
    r.fail(kKey, fmt::format("expected the instance sizes this price rents, in GPUs, smallest first (like [8] or "
                             "[1, 8]), got {}",
                             v->is_array() ? "[]" : v->is_number() ? v->dump() : std::string(v->type_name())));
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    const Json& item = (*v)[i];
    const std::string at = where(r.origin(), r.pointer() / std::string(kKey) / i);
    const bool whole_float = item.is_number_float() && item.get<double>() >= 1.0 &&
                             item.get<double>() <= static_cast<double>(kMaxGpusPerInstance) &&
                             item.get<double>() - std::floor(item.get<double>()) <= 0.0;
    const bool whole = item.is_number_unsigned() || (item.is_number_integer() && item.get<std::int64_t>() >= 0);
    const std::uint64_t n = whole_float ? static_cast<std::uint64_t>(item.get<double>())
                            : whole     ? item.get<std::uint64_t>()
                                        : 0;
    if ((!whole && !whole_float) || n < 1 || n > kMaxGpusPerInstance) {
      throw InputError(fmt::format("{}: expected a whole number of GPUs per instance between 1 and {} (the largest "
                                   "NVLink domain announced), got {}",
                                   at, kMaxGpusPerInstance,
                                   item.is_number() ? item.dump() : std::string(item.type_name())));
    }
    if (!out.empty() && n <= out.back()) {
      throw InputError(fmt::format("{}: instance sizes go smallest first, each once; {} follows {}", at, n, out.back()));
    }
    out.push_back(n);
  }
  return out;
}

}  // namespace

Price price_from_json(const Json& entry, const std::string& origin, const JsonPointer& at) {
  ObjectReader r(entry, origin, at, Nulls::refused);
  static constexpr std::array kKeys{
      std::string_view("provider"), std::string_view("gpu"),    std::string_view("mode"),
      std::string_view("usd_per_gpu_hour"), std::string_view("date"), std::string_view("region"),
      std::string_view("instance"), std::string_view("gpus_per_instance"), std::string_view("sources"),
      std::string_view("notes"),    std::string_view("term")};
  r.reject_unknown(kKeys);
  Price p;
  p.origin = origin;
  p.provider = id_field(r, "provider");
  p.gpu = id_field(r, "gpu");
  const std::string mode = r.string("mode");
  p.mode = parse_pricing_mode(mode, r.where_of("mode"));
  // A reserved rate without its term cannot be compared with another (1y and 3y differ by a
  // third or more); a term on a pay-as-you-go price would be a transcription error.
  if (const auto term = r.optional_string("term")) {
    if (!mode_has_term(p.mode)) {
      r.fail("term", fmt::format("{} prices carry no commitment term; only reserved prices do", mode));
    }
    p.term = parse_term(*term, r.where_of("term"));
  } else if (mode_has_term(p.mode)) {
    r.fail("term", fmt::format("missing: a {} price needs its commitment term (\"1y\", \"3y\", \"6mo\", or "
                               "\"unstated\" when the source gives none)", mode));
  }
  p.usd_per_gpu_hour = r.number_in("usd_per_gpu_hour", kMinUsdPerGpuHour, kMaxUsdPerGpuHour);
  p.date = r.string("date");
  p.day = parse_iso_date(p.date, r.where_of("date"));
  p.pointer = at.to_string();
  p.region = r.optional_string("region").value_or("");
  p.instance = r.optional_string("instance").value_or("");
  p.gpus_per_instance = instance_sizes(r);
  p.sources = r.strings("sources");
  p.notes = r.optional_string("notes").value_or("");
  return p;
}

Benchmark benchmark_from_json(const Json& entry, const std::string& origin, const JsonPointer& at) {
  ObjectReader r(entry, origin, at, Nulls::refused);
  static constexpr std::array kKeys{
      std::string_view("id"), std::string_view("model"), std::string_view("gpu"),
      std::string_view("gpus"), std::string_view("tp"), std::string_view("pp"), std::string_view("ep"),
      std::string_view("weights_dtype"), std::string_view("kv_dtype"), std::string_view("input_tokens"),
      std::string_view("input_tokens_is_upper_bound"), std::string_view("output_tokens"),
      std::string_view("max_batch"), std::string_view("requests"), std::string_view("scenario"),
      std::string_view("output_tokens_per_s"), std::string_view("calibrate"),
      std::string_view("sources"), std::string_view("notes")};
  r.reject_unknown(kKeys);
  Benchmark b;
  b.origin = origin;
  b.id = id_field(r);
  b.model = id_field(r, "model");
  b.gpu = id_field(r, "gpu");
  const std::uint64_t gpus = r.integer("gpus", 1, limits::kMaxGpus);
  b.layout.tp = r.optional_integer("tp", 1, limits::kMaxGpus).value_or(1);
  b.layout.pp = r.optional_integer("pp", 1, limits::kMaxGpus).value_or(1);
  b.layout.ep = r.optional_integer("ep", 1, limits::kMaxGpus).value_or(1);
  if (gpus % (b.layout.tp * b.layout.pp) != 0) {
    r.fail("gpus", fmt::format("{} GPUs are not a whole number of TP {} x PP {} replicas", gpus,
                               b.layout.tp, b.layout.pp));
  }
  b.layout.dp = gpus / (b.layout.tp * b.layout.pp);
  if (gpus % b.layout.ep != 0 || (b.layout.ep > b.layout.tp && b.layout.ep % b.layout.tp != 0)) {
    r.fail("ep", fmt::format("EP {} does not divide the {} GPUs into whole expert groups of TP {}", b.layout.ep, gpus,
                             b.layout.tp));
  }
  b.weights_dtype = parse_dtype(r.string("weights_dtype"), r.where_of("weights_dtype"));
  b.kv_dtype = parse_kv_dtype(r.string("kv_dtype"), r.where_of("kv_dtype"));
  b.input_tokens = r.integer("input_tokens", 1, 1ull << 32);
  b.input_tokens_is_upper_bound = r.boolean("input_tokens_is_upper_bound", false);
  b.output_tokens = r.integer("output_tokens", 1, 1ull << 32);
  b.max_batch = r.optional_integer("max_batch", 1, 1u << 20).value_or(0);
  b.scenario = r.string("scenario");
  if (b.scenario != "offline" && b.scenario != "server" && b.scenario != "max-load") {
    r.fail("scenario", fmt::format("expected \"offline\", \"server\" or \"max-load\", got \"{}\"", b.scenario));
  }
  // The run's requests when it served a finite dataset (the shipped trtllm-bench rows state the
  // perf overview's); without them, the steady state.
  b.requests = r.optional_integer("requests", 1, Benchmark::kMaxRequests).value_or(0);
  b.output_tokens_per_s = r.number_in("output_tokens_per_s", kMinOutputTokensPerS, 1e9);
  b.calibrate = r.boolean("calibrate", false);
  b.sources = r.strings("sources");
  b.notes = r.optional_string("notes").value_or("");
  return b;
}

}  // namespace gpuplan::detail
