#pragma once
// The JSON side of every renderer: one envelope and one way to print it.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <gpuplan/price.hpp>
#include <gpuplan/provenance.hpp>
#include <gpuplan/rental.hpp>
#include <gpuplan/render.hpp>
#include <gpuplan/version.hpp>

namespace gpuplan::detail {

using OrderedJson = nlohmann::ordered_json;

/// The provenance of this run's catalog as a JSON object.
inline OrderedJson provenance_json() {
  const Provenance& p = output_provenance();
  OrderedJson j;
  j["gpuplan_version"] = p.gpuplan_version;
  j["catalog_hash"] = p.catalog_hash;
  j["newest_price_date"] = p.newest_price_date;
  if (!p.catalog_files.empty()) {
    j["catalog_files"] = p.catalog_files;
  }
  return j;
}

/// `schema_version`, `command`, `gpuplan_version` and `provenance`, first in every JSON output.
inline OrderedJson envelope(std::string_view command) {
  OrderedJson j;
  j["schema_version"] = kJsonSchemaVersion;
  j["command"] = command;
  j["gpuplan_version"] = std::string(kVersion);
  j["provenance"] = provenance_json();
  return j;
}

/// A price's `price_age_days`: null for a price typed by hand, which has no date to age.
inline OrderedJson price_age_days_json(const Price& p) { return p.given() ? OrderedJson(nullptr) : OrderedJson(p.age_days); }

/// A price's `region`: null when the price names none, as every unset value in the JSON output
/// (plan had written "" beside its inputs' null: helper s57 tasks F6).
inline OrderedJson region_json(const Price& p) { return p.region.empty() ? OrderedJson(nullptr) : OrderedJson(p.region); }

/// A price's `gpus_per_instance`: the instance sizes it rents, null when it rents any count.
inline OrderedJson gpus_per_instance_json(const Price& p) {
  return p.gpus_per_instance.empty() ? OrderedJson(nullptr) : OrderedJson(p.gpus_per_instance);
}

/// The terms of a price, in the key order plan and train print them; callers append their own fields.
inline OrderedJson price_terms_json(const Price& p) {
  return {{"provider", p.provider},
          {"mode", to_string(p.mode)},
          {"term", p.term.empty() ? OrderedJson(nullptr) : OrderedJson(p.term)},
          {"usd_per_gpu_hour", p.usd_per_gpu_hour},
          {"date", p.date},
          {"price_age_days", price_age_days_json(p)},
          {"stale", p.stale()},
          {"region", region_json(p)},
          {"gpus_per_instance", gpus_per_instance_json(p)}};
}

/// What a deployment rents: `rented_gpus` (GPUs paid for), `instances` (null when the price
/// rents any count) and `tp_group_split` (the figure is a lower bound).
inline OrderedJson rental_json(const InstanceRental& r) {
  OrderedJson instances = nullptr;
  if (r.whole_instances()) {
    instances = OrderedJson::array();
    for (const InstanceCount& i : r.instances) {
      instances.push_back({{"gpus", i.gpus}, {"count", i.count}});
    }
  }
  return {{"rented_gpus", r.rented_gpus}, {"instances", instances}, {"tp_group_split", r.group_split}};
}

/// Two-space indented text with a final newline; invalid UTF-8 (a file name, say) is replaced
/// rather than thrown on.
inline std::string dump_json(const OrderedJson& j) {
  return j.dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

}  // namespace gpuplan::detail
