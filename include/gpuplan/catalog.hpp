#pragma once
// The catalog: GPUs, models and prices. The shipped data/*.json is embedded in the library at
// build time; user files (same format) add entries or override them by id. Every entry is
// validated once, here, so later code takes typed, valid values.

#include <array>
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/benchmark.hpp>
#include <gpuplan/gpu.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/price.hpp>

namespace gpuplan {

/// What loading a file did: entries added, and ids that replaced existing ones.
struct MergeReport {
  std::string origin;
  int gpus = 0;
  int models = 0;
  int prices = 0;
  int benchmarks = 0;
  std::vector<std::string> overrides;  ///< one line per replaced entry, e.g. "GPU 'h100-sxm'"
  /// Built-in fields an override removed (set to null), one line each: worth a warning.
  std::vector<std::string> dropped;
};

class Catalog {
 public:
  /// An empty catalog (tests build their own); `builtin()` is the shipped one.
  Catalog() = default;
  /// The embedded data/gpus.json, models.json, prices.json and benchmarks.json.
  static const Catalog& builtin();
  /// A fresh copy of the built-in catalog with nothing parsed yet (each copy parses what it is
  /// asked for; see gpus()).
  static Catalog embedded();

  /// The day price ages are counted to (default: the system clock's today). Setting it
  /// recomputes every price's age; a price dated after it throws InputError naming the file
  /// and JSON pointer. Tests and golden outputs set a fixed day.
  void set_today(DayNumber today);
  [[nodiscard]] DayNumber today() const { return today_; }

  /// Merges catalog text (`{"schema_version": 1, "gpus": [...], "models": [...], "prices": [...],
  /// "benchmarks": [...]}`, each array optional). A GPU or model whose id exists is merged field
  /// by field into it (JSON merge patch: a file may change only the bandwidth; null removes a
  /// field, reported in `dropped`); other entries with an existing key replace it. A
  /// duplicate id inside one text, an unknown key or a bad value throws InputError naming
  /// `origin` and the JSON pointer. Prices must name a GPU known after the merge.
  MergeReport merge_text(std::string_view text, std::string_view origin);
  /// Reads and merges a file; a missing or unreadable file throws InputError naming the path.
  MergeReport merge_file(const std::filesystem::path& path);

  /// The built-in data is parsed when first needed (start-to-exit time: `fit` needs one GPU and
  /// one model, parsed alone): each list on first use, a GPU or model looked up by id or alias
  /// alone. A merge parses everything first, so a user file is validated against the whole
  /// catalog as before; the shipped data is checked whole by the tests. Not safe to call
  /// concurrently on one catalog (a lookup may parse).
  [[nodiscard]] const std::vector<GpuSpec>& gpus() const;
  [[nodiscard]] const std::vector<ModelSpec>& models() const;
  [[nodiscard]] const std::vector<Price>& prices() const;
  [[nodiscard]] const std::vector<Benchmark>& benchmarks() const;

  /// Looks up by id as people type it: case-insensitive id, then a GPU alias ("h100"), then an
  /// unambiguous abbreviation ("llama3.1-70b", "mixtral-8x7"): the words of the name, in order,
  /// each a prefix of a word of the id. A resolved abbreviation or alias leaves a note in
  /// take_notes(). Several matches throw InputError listing them; none, the closest ids.
  [[nodiscard]] const GpuSpec& gpu(std::string_view id) const;
  [[nodiscard]] const ModelSpec& model(std::string_view id) const;
  /// Like gpu()/model(), but nullptr when nothing matches (several matches still throw).
  [[nodiscard]] const GpuSpec* resolve_gpu(std::string_view name) const;
  [[nodiscard]] const ModelSpec* resolve_model(std::string_view name) const;
  /// Notes from name resolution since the last call ("'h100' is h100-sxm"), for stderr.
  std::vector<std::string> take_notes() const;
  [[nodiscard]] const GpuSpec* find_gpu(std::string_view id) const;
  [[nodiscard]] const ModelSpec* find_model(std::string_view id) const;

 private:
  enum Section : std::size_t { kGpus, kModels, kPrices, kBenchmarks, kSections };
  /// Merges a built-in section not merged yet. Logically const: the catalog's content does not
  /// change, only how much of it is parsed (the built-in object itself is not const).
  void load(Section section) const;
  void load_all() const;
  MergeReport merge_loaded(std::string_view text, std::string_view origin);
  /// Whether an id is known, without parsing a pending built-in entry.
  [[nodiscard]] bool has_gpu_id(std::string_view id) const;
  [[nodiscard]] bool has_model_id(std::string_view id) const;

  /// Built-in texts (embedded, static) not merged yet, by section; empty once merged.
  mutable std::array<std::string_view, kSections> pending_{};
  /// Built-in GPUs and models parsed alone while their list is pending, by entry index (a map:
  /// addresses stay stable).
  mutable std::map<std::size_t, GpuSpec> single_gpus_;
  mutable std::map<std::size_t, ModelSpec> single_models_;
  std::vector<GpuSpec> gpus_;
  std::vector<ModelSpec> models_;
  mutable std::vector<Price> prices_;
  mutable std::vector<Benchmark> benchmarks_;
  std::map<std::string, std::string> gpu_json_;    ///< id -> merged entry JSON, for later merges
  std::map<std::string, std::string> model_json_;
  DayNumber today_ = system_today();
  mutable std::vector<std::string> notes_;
};

/// A model from a Hugging Face config.json text (dense, MoE, MLA, sliding window, explicit
/// head_dim; a multimodal config's text_config is used). Keys gpuplan does not need are ignored;
/// the ones it needs are checked. Errors name `origin` and the JSON pointer.
ModelSpec model_from_hf_config(std::string_view text, std::string_view origin);
/// Same, from a file.
ModelSpec model_from_hf_config_file(const std::filesystem::path& path);

/// Up to `limit` known names closest to `name` (edit distance and substring), best first.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& known,
                                       std::size_t limit = 3);
/// Levenshtein distance between two names (insertions, deletions, substitutions).
std::size_t edit_distance(std::string_view a, std::string_view b);
/// A model's Hugging Face name without its owner ("zai-org/GLM-4.6" -> "GLM-4.6"): what
/// closest_names() is given for a model. GPUs have no owner.
std::string_view without_owner(std::string_view name);

}  // namespace gpuplan
