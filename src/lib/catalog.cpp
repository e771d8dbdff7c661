#include <gpuplan/catalog.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>

#include "detail/catalog_json.hpp"
#include "detail/json_reader.hpp"

namespace gpuplan {
namespace detail {
extern const std::string_view kEmbeddedGpus;
extern const std::string_view kEmbeddedModels;
extern const std::string_view kEmbeddedPrices;
extern const std::string_view kEmbeddedBenchmarks;
}  // namespace detail

namespace {

using detail::Json;
using detail::JsonPointer;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  if (path.empty()) {
    throw InputError(fmt::format("{}: the path is empty", what));
  }
  if (!std::filesystem::exists(path, ec)) {
    throw InputError(fmt::format("{}: {} does not exist", path.string(), what));
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: {} is a directory, not a file", path.string(), what));
  }
  // Devices and pipes (/dev/zero, a FIFO) would block or never end.
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(fmt::format("{}: {} is not a regular file", path.string(), what));
  }
  constexpr std::uintmax_t kMaxBytes = 64u << 20;
  if (std::filesystem::file_size(path, ec) > kMaxBytes) {
    throw InputError(fmt::format("{}: {} is larger than 64 MiB", path.string(), what));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(fmt::format("{}: cannot read {}", path.string(), what));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

template <typename T>
std::vector<std::string> ids_of(const std::vector<T>& items) {
  std::vector<std::string> ids;
  ids.reserve(items.size());
  for (const T& item : items) {
    ids.push_back(item.id);
  }
  return ids;
}

template <typename T>
const T* find_by_id(const std::vector<T>& items, std::string_view id) {
  const std::string key = lower(id);
  for (const T& item : items) {
    if (item.id == key) {
      return &item;
    }
  }
  return nullptr;
}

template <typename T>
[[noreturn]] void unknown(std::string_view what, std::string_view id, const std::vector<T>& items,
                          std::string_view list_command) {
  const auto close = closest_names(id, ids_of(items));
  throw InputError(fmt::format("unknown {} '{}'{} (see 'gpuplan catalog {}')", what, id,
                               close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")),
                               list_command));
}

// Replaces an entry with the same id, or appends; reports replacements.
template <typename T>
void upsert(std::vector<T>& items, T item, std::string_view what, MergeReport& report) {
  for (T& existing : items) {
    if (existing.id == item.id) {
      report.overrides.push_back(fmt::format("{} '{}' (was from {})", what, item.id, existing.origin));
      existing = std::move(item);
      return;
    }
  }
  items.push_back(std::move(item));
}

std::string price_key(const Price& p) {
  return fmt::format("{}/{}/{}/{}", p.provider, p.gpu, to_string(p.mode), p.region);
}

const Json* array_field(const Json& root, std::string_view key, std::string_view origin) {
  const auto it = root.find(key);
  if (it == root.end()) {
    return nullptr;
  }
  if (!it->is_array()) {
    throw InputError(fmt::format("{}: expected an array", detail::where(origin, JsonPointer("/" + std::string(key)))));
  }
  return &*it;
}

}  // namespace

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    Catalog c;
    try {
      c.merge_text(detail::kEmbeddedGpus, "gpus.json");
      c.merge_text(detail::kEmbeddedModels, "models.json");
      c.merge_text(detail::kEmbeddedPrices, "prices.json");
      c.merge_text(detail::kEmbeddedBenchmarks, "benchmarks.json");
    } catch (const InputError& e) {
      // The shipped data is tested; failing here is a build defect, not user input.
      throw std::logic_error(fmt::format("built-in catalog is invalid: {}", e.what()));
    }
    return c;
  }();
  return catalog;
}

MergeReport Catalog::merge_text(std::string_view text, std::string_view origin_view) {
  const std::string origin(origin_view);
  const Json root = detail::parse_json_text(text, origin);
  detail::ObjectReader top(root, origin, JsonPointer());
  static constexpr std::array kKeys{std::string_view("schema_version"), std::string_view("description"),
                                    std::string_view("gpus"), std::string_view("models"),
                                    std::string_view("prices"), std::string_view("benchmarks")};
  top.reject_unknown(kKeys);
  top.integer("schema_version", 1, 1);
  top.optional_string("description");

  // Parse everything first so a bad entry leaves the catalog untouched.
  std::vector<GpuSpec> gpus;
  std::vector<ModelSpec> models;
  std::vector<Price> prices;
  const auto check_unique = [&origin](std::set<std::string>& seen, const std::string& key,
                                      const JsonPointer& at, std::string_view what) {
    if (!seen.insert(key).second) {
      throw InputError(fmt::format("{}: duplicate {} '{}'", detail::where(origin, at), what, key));
    }
  };
  std::set<std::string> seen;
  if (const Json* arr = array_field(root, "gpus", origin)) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const JsonPointer at = JsonPointer("/gpus") / i;
      gpus.push_back(detail::gpu_from_json((*arr)[i], origin, at));
      check_unique(seen, gpus.back().id, at / "id", "GPU id");
    }
  }
  seen.clear();
  if (const Json* arr = array_field(root, "models", origin)) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const JsonPointer at = JsonPointer("/models") / i;
      models.push_back(detail::model_from_json((*arr)[i], origin, at));
      check_unique(seen, models.back().id, at / "id", "model id");
    }
  }
  seen.clear();
  if (const Json* arr = array_field(root, "prices", origin)) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const JsonPointer at = JsonPointer("/prices") / i;
      prices.push_back(detail::price_from_json((*arr)[i], origin, at));
      check_unique(seen, price_key(prices.back()), at, "price (provider/gpu/mode/region)");
    }
  }

  std::vector<Benchmark> benchmarks;
  seen.clear();
  if (const Json* arr = array_field(root, "benchmarks", origin)) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const JsonPointer at = JsonPointer("/benchmarks") / i;
      benchmarks.push_back(detail::benchmark_from_json((*arr)[i], origin, at));
      check_unique(seen, benchmarks.back().id, at / "id", "benchmark id");
    }
  }
  // Benchmarks must name a model and a GPU that exist once this file's entries are in.
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const Benchmark& b = benchmarks[i];
    if (find_by_id(gpus, b.gpu) == nullptr && find_gpu(b.gpu) == nullptr) {
      throw InputError(fmt::format("{}: unknown GPU '{}'",
                                   detail::where(origin, JsonPointer("/benchmarks") / i / "gpu"), b.gpu));
    }
    if (find_by_id(models, b.model) == nullptr && find_model(b.model) == nullptr) {
      throw InputError(fmt::format("{}: unknown model '{}'",
                                   detail::where(origin, JsonPointer("/benchmarks") / i / "model"), b.model));
    }
    // A measurement in a format the GPU cannot multiply natively is a mislabelled row (weight-only
    // formats such as INT4 or MXFP4 dequantize and may run anywhere).
    const GpuSpec* g = find_by_id(gpus, b.gpu);
    g = g != nullptr ? g : find_gpu(b.gpu);
    const char* native = b.weights_dtype == DType::fp8 ? "fp8"
                         : b.weights_dtype == DType::fp4 ? "fp4"
                         : b.weights_dtype == DType::int8 ? "int8"
                                                            : nullptr;
    if (native != nullptr && !g->dense_flop_per_s.contains(native)) {
      throw InputError(fmt::format("{}: {} has no {} tensor cores; the measurement cannot be in {}",
                                   detail::where(origin, JsonPointer("/benchmarks") / i / "weights_dtype"), g->id,
                                   native, to_string(b.weights_dtype)));
    }
  }

  // Prices must name a GPU that exists once this file's GPUs are in.
  for (std::size_t i = 0; i < prices.size(); ++i) {
    const bool known = find_by_id(gpus, prices[i].gpu) != nullptr || find_gpu(prices[i].gpu) != nullptr;
    if (!known) {
      std::vector<std::string> all = ids_of(gpus_);
      for (const GpuSpec& g : gpus) {
        all.push_back(g.id);
      }
      const auto close = closest_names(prices[i].gpu, all);
      throw InputError(fmt::format("{}: unknown GPU '{}'{}",
                                   detail::where(origin, JsonPointer("/prices") / i / "gpu"),
                                   prices[i].gpu,
                                   close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", "))));
    }
  }

  MergeReport report;
  report.origin = origin;
  report.gpus = static_cast<int>(gpus.size());
  report.models = static_cast<int>(models.size());
  report.prices = static_cast<int>(prices.size());
  report.benchmarks = static_cast<int>(benchmarks.size());
  for (Benchmark& b : benchmarks) {
    upsert(benchmarks_, std::move(b), "benchmark", report);
  }
  for (GpuSpec& g : gpus) {
    upsert(gpus_, std::move(g), "GPU", report);
  }
  for (ModelSpec& m : models) {
    upsert(models_, std::move(m), "model", report);
  }
  for (Price& p : prices) {
    const std::string key = price_key(p);
    const auto it = std::find_if(prices_.begin(), prices_.end(),
                                 [&key](const Price& q) { return price_key(q) == key; });
    if (it != prices_.end()) {
      report.overrides.push_back(fmt::format("price {} (was from {})", key, it->origin));
      *it = std::move(p);
    } else {
      prices_.push_back(std::move(p));
    }
  }
  return report;
}

MergeReport Catalog::merge_file(const std::filesystem::path& path) {
  return merge_text(read_text_file(path, "catalog file"), path.string());
}

const GpuSpec* Catalog::find_gpu(std::string_view id) const { return find_by_id(gpus_, id); }
const ModelSpec* Catalog::find_model(std::string_view id) const { return find_by_id(models_, id); }

const GpuSpec& Catalog::gpu(std::string_view id) const {
  if (const GpuSpec* g = find_gpu(id)) {
    return *g;
  }
  unknown("GPU", id, gpus_, "gpus");
}

const ModelSpec& Catalog::model(std::string_view id) const {
  if (const ModelSpec* m = find_model(id)) {
    return *m;
  }
  unknown("model", id, models_, "models");
}

ModelSpec model_from_hf_config(std::string_view text, std::string_view origin_view) {
  const std::string origin(origin_view);
  const Json root = detail::parse_json_text(text, origin);
  ModelSpec m = detail::model_from_config(root, origin, JsonPointer(), false);
  const auto it = root.find("_name_or_path");
  // The model's own name when the config carries it; else the file name, or for a file called
  // config.json its folder (a downloaded model directory).
  const std::filesystem::path path(origin);
  const std::string stem = path.stem().string();
  m.id = it != root.end() && it->is_string() && !it->get_ref<const std::string&>().empty()
             ? it->get<std::string>()
             : (stem == "config" ? path.parent_path().filename().string() : stem);
  if (m.id.empty()) {
    m.id = "config.json";
  }
  m.name = m.id;
  m.sources = {origin};
  return m;
}

ModelSpec model_from_hf_config_file(const std::filesystem::path& path) {
  return model_from_hf_config(read_text_file(path, "model config"), path.string());
}

}  // namespace gpuplan
