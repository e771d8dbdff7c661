#include <gpuplan/catalog.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <cstddef>
#include <iterator>
#include <map>
#include <filesystem>
#include <optional>
#include <type_traits>
#include <utility>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/checkpoint_name.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/name_fold.hpp>

#include "detail/ascii.hpp"
#include "detail/hf_quantization.hpp"
#include "detail/catalog_json.hpp"
#include "detail/embedded_entries.hpp"
#include "detail/json_reader.hpp"
#include "detail/entry_ids.hpp"

namespace gpuplan {
namespace detail {
extern const std::string_view kEmbeddedGpus;
extern const std::string_view kEmbeddedModels;
extern const std::string_view kEmbeddedPrices;
extern const std::string_view kEmbeddedBenchmarks;

using limits::read_text_file;

}  // namespace detail

namespace {

using detail::Json;
using detail::read_text_file;
using detail::JsonPointer;

using detail::lower;
using detail::tokens;


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

// A byte of a code point fold_name() left as it was ("\u00bd", "\ufb01", an emoji): part of the word
// it is in, like a letter, never a separator. As a separator it vanished: "\ufb01t" abbreviated t4
// and "llama-3.1-8\u00bdb" ran as llama-3.1-8b (helper s55 bad-input F1, F6).
bool other_script(char c) { return static_cast<unsigned char>(c) >= 0x80; }

// Words of a name: runs of letters and runs of digits ("llama-3.1-70b" -> llama 3 1 70 b).
std::vector<std::string> words(std::string_view name) {
  std::vector<std::string> out;
  for (char raw : name) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(raw)));
    const bool alpha = std::isalpha(static_cast<unsigned char>(c)) != 0 || other_script(c);
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!alpha && !digit) {
      out.emplace_back();
      continue;
    }
    if (out.empty() || out.back().empty() ||
        (std::isdigit(static_cast<unsigned char>(out.back().back())) != 0) != digit) {
      out.emplace_back();
    }
    out.back() += c;
  }
  std::erase_if(out, [](const std::string& w) { return w.empty(); });
  return out;
}

// "141gb", "80GiB": a memory size; its number of GB, else 0.
double size_gb(std::string_view t) {
  const std::size_t digits = t.find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string_view::npos || digits > 6 ||
      (t.substr(digits) != "gb" && t.substr(digits) != "gib")) {
    return 0;
  }
  return std::strtod(std::string(t.substr(0, digits)).c_str(), nullptr);
}

// A results table's memory words ("H200 141GB HBM3", "A100-SXM4-80GB"): the memory type goes, the
// SXM generations NVIDIA names (SXM4 on A100, SXM5 on H100/H200) read as sxm, and the stated size
// is kept apart too, so that a name left without it can be checked against the part's memory.
// HBM2/HBM2e stay: they tell an H100 PCIe from the SXM part the alias names, so such a name is no
// match rather than the wrong part.
struct GpuWords {
  std::vector<std::string> tokens;  // with the size ("a100 sxm 80gb")
  std::vector<std::string> part;    // without it ("h200")
  std::optional<double> stated_gb;
  std::string stated_token;  // as written ("480gb")
};
// A memory size stated in a GPU's name must be the part's: "H100 94GB" is not the 80 GB H100 SXM.
// Within 10 %, as vendors round or count differently (B200: 192 GB on the package, 180 GB per GPU
// in HGX/DGX B200 systems, the catalog's figure).
// A size the catalog names the part by counts too ("GH200 480GB", the superchip's CPU memory).
bool stated_size_fits(const GpuWords& named, const GpuSpec& gpu) {
  if (!named.stated_gb || std::abs(gpu.memory_bytes / 1e9 - *named.stated_gb) <= 0.10 * *named.stated_gb) {
    return true;
  }
  return std::any_of(gpu.aliases.begin(), gpu.aliases.end(), [&named](const std::string& alias) {
    const auto words = tokens(alias);
    return std::find(words.begin(), words.end(), named.stated_token) != words.end();
  });
}

// Tokens of a GPU's name: as detail::tokens(), with other_script() bytes inside a token.
std::vector<std::string> gpu_tokens(std::string_view name) {
  std::vector<std::string> out(1);
  for (const char raw : name) {
    if (std::isalnum(static_cast<unsigned char>(raw)) == 0 && !other_script(raw)) {
      out.emplace_back();
      continue;
    }
    out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(raw)));
  }
  std::erase_if(out, [](const std::string& t) { return t.empty(); });
  return out;
}

// The words a vendor's or a results table's spelling puts around a GPU's id tokens: vendor, line,
// architecture, form factor and memory words ("NVIDIA H100 SXM5 80GB HBM3", "Tesla T4", "AMD
// Instinct MI300X", "RTX 6000 Ada Generation", "RTX PRO 6000 Blackwell Server Edition", "NVIDIA
// H100 Tensor Core GPU"). Only these may be left over when a name is matched by its tokens: any
// other word, and always a number, is part of the name ("a10 0" is no A10, "h20 0" no H20,
// "l4 0s" no L4: helper s55 bad-input F1). A stated memory size is checked apart
// (stated_size_fits), and memory types are dropped before (gpu_words).
bool vendor_word(std::string_view t) {
  static constexpr std::string_view kWords[] = {
      "nvidia",   "amd",     "intel",       "tesla",      "instinct", "geforce", "quadro",  "radeon",
      "rtx",      "pro",     "server",      "workstation", "edition", "blackwell", "hopper", "grace",
      "ampere",   "ada",     "lovelace",    "generation", "volta",    "turing",  "ultra",   "datacenter",
      "tensor",   "core",    "gpu",         "per",        "sxm",      "sxm2",    "pcie",    "nvl",
      "oam",      "hgx",     "dgx",         "hbm",        "hbm2",     "hbm2e",   "unified", "superchip",
      // A release status, and the Grace Hopper module (NVIDIA's and vLLM's tables: "B300* (beta)",
      // "GH200 96GB HBM3 CG1").
      "beta",     "cg1",
      // What drivers and product pages add: a virtual function in a VM ("AMD Instinct MI300X VF", as
      // rocm-smi and torch name Azure's), "AC" (nvidia-smi's "NVIDIA B300 SXM6 AC"), product nouns
      // ("AMD Instinct MI300X Accelerator", "... Platform").
      "vf",       "virtual", "ac",          "accelerator", "accelerators", "platform", "module"};
  // A rack's NVLink domain ("GB200 NVL72", "GB300 NVL72"): the system, not another GPU.
  const bool nvlink_domain = t.size() > 3 && t.starts_with("nvl") &&
                             t.find_first_not_of("0123456789", 3) == std::string_view::npos;
  return std::find(std::begin(kWords), std::end(kWords), t) != std::end(kWords) || size_gb(t) > 0 || nvlink_domain;
}

GpuWords gpu_words(std::string_view name) {
  GpuWords out;
  // A size written apart from its unit ("NVIDIA H100 SXM 80 GB") is one size token, as "80GB".
  std::vector<std::string> raw = gpu_tokens(name);
  for (std::size_t i = 0; i + 1 < raw.size(); ++i) {
    if (!raw[i].empty() && raw[i].find_first_not_of("0123456789") == std::string::npos &&
        (raw[i + 1] == "gb" || raw[i + 1] == "gib")) {
      raw[i] += raw[i + 1];
      raw.erase(raw.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    }
  }
  for (std::string& t : raw) {
    if (t.starts_with("hbm3") || t.starts_with("gddr") || t.starts_with("lpddr")) {
      continue;
    }
    if (t == "sxm4" || t == "sxm5") {
      t = "sxm";
    }
    if (const double gb = size_gb(t); gb > 0) {
      out.stated_gb = gb;
      out.stated_token = t;
    } else {
      out.part.push_back(t);
    }
    out.tokens.push_back(std::move(t));
  }
  return out;
}

// "8x-h100", "8-x-h200", "dgx-h100", "hgx-b200" (hyphenated): the GPU's part.
std::string without_node(std::string key) {
  const std::size_t count_end = key.find_first_not_of("0123456789");
  if (count_end > 0 && count_end != std::string::npos) {
    std::size_t x = count_end;
    while (x < key.size() && key[x] == '-') {
      ++x;
    }
    if (x + 1 < key.size() && key[x] == 'x') {
      key.erase(0, key.find_first_not_of('-', x + 1));
    }
  }
  for (std::string_view node : {"dgx-", "hgx-"}) {
    if (key.size() > node.size() && key.starts_with(node)) {
      key.erase(0, node.size());
    }
  }
  return key;
}

// A model named with its version as a word of its own ("LLaMA v3.1 8B", "LLaMA v4 Maverick"): the
// "v" before the version that follows the family's name goes. Later versions stay
// ("Mistral-7B-Instruct-v0.3").
std::string without_version_v(std::string key) {
  const std::size_t gap = key.find_first_of(" -_");
  if (gap == std::string::npos || gap + 2 >= key.size() || key[gap + 1] != 'v' ||
      std::isdigit(static_cast<unsigned char>(key[gap + 2])) == 0) {
    return key;
  }
  key.erase(gap + 1, 1);
  return key;
}

// For each of words(name): whether it is a version's later part, a number after a dot after a
// digit ("3.2": the 2).
std::vector<bool> after_dot(std::string_view name) {
  std::vector<bool> out;
  bool in_word = false;
  bool digits = false;
  for (std::size_t k = 0; k < name.size(); ++k) {
    const auto c = static_cast<unsigned char>(name[k]);
    const bool alpha = std::isalpha(c) != 0 || other_script(name[k]);
    const bool digit = std::isdigit(c) != 0;
    if (!alpha && !digit) {
      in_word = false;
      continue;
    }
    if (!in_word || digits != digit) {
      out.push_back(digit && k >= 2 && name[k - 1] == '.' && std::isdigit(static_cast<unsigned char>(name[k - 2])) != 0);
    }
    in_word = true;
    digits = digit;
  }
  return out;
}

// A dot with no digit on one side ("llama-.3-70b", "llama-3.-8b"): a version with a part left
// out, which no abbreviation may guess (helper s57 badinput F2).
bool broken_version(std::string_view name) {
  for (std::size_t k = 0; k < name.size(); ++k) {
    const auto digit_at = [&name](std::size_t at) {
      return at < name.size() && std::isdigit(static_cast<unsigned char>(name[at])) != 0;
    };
    if (name[k] == '.' && (k == 0 || !digit_at(k - 1) || !digit_at(k + 1))) {
      return true;
    }
  }
  return false;
}

// An abbreviation: its words, in order, each the start of a word of the id (numbers whole), the
// first word starting the id ("llama3-70b" abbreviates llama-3.1-70b and llama-3.3-70b). A number
// may leave out a version's later parts but not its first: a version's later part ("3.2": the 2)
// is matched only by the query's later part of the same version, so "llama-2-3b" is not
// llama-3.2-3b nor "llama-3-2b" anything of Llama 3.2 (helper s57 badinput F2).
bool abbreviates(const std::vector<std::string>& query, const std::vector<bool>& query_after_dot,
                 const std::vector<std::string>& id, const std::vector<bool>& id_after_dot) {
  std::size_t j = 0;
  std::size_t previous = 0;  // the id word the query's previous word matched
  for (std::size_t i = 0; i < query.size(); ++i, ++j) {
    const std::string& q = query[i];
    const bool number = std::isdigit(static_cast<unsigned char>(q.front())) != 0;
    const auto fits = [&](std::size_t at) {
      if (!number) {
        return id[at].starts_with(q);
      }
      const bool later_part = id_after_dot[at];
      return id[at] == q && later_part == query_after_dot[i] && (!later_part || (i > 0 && previous + 1 == at));
    };
    if (i == 0) {
      if (id.empty() || !fits(0)) {
        return false;
      }
      continue;
    }
    while (j < id.size() && !fits(j)) {
      ++j;
    }
    if (j == id.size()) {
      return false;
    }
    previous = j;
  }
  return !query.empty();
}

std::string resolved_note(std::string_view what, std::string_view name, std::string_view id, std::string_view how) {
  return fmt::format("{} '{}' read as '{}' ({})", what, limits::escaped(name), id, how);
}

// A name resolved after fold_name() changed it: one note, quoting the name as typed and saying
// what was folded (a pasted en dash is no "abbreviation", and an exact id after folding still
// gets a note, as the name typed is not the id).
template <typename T, typename Resolve>
const T* with_fold(std::string_view typed, const FoldedName& folded, std::string_view what,
                   std::vector<std::string>& notes, Resolve resolve_folded) {
  const std::size_t before = notes.size();
  const T* found = resolve_folded();
  if (found == nullptr) {
    return nullptr;
  }
  std::string how;
  if (notes.size() > before) {
    const std::string& note = notes.back();
    const std::string marker = fmt::format("' read as '{}' (", found->id);
    if (const std::size_t at = note.rfind(marker); at != std::string::npos && note.ends_with(")")) {
      how = note.substr(at + marker.size(), note.size() - at - marker.size() - 1) + "; ";
    }
    notes.resize(before);
  }
  notes.push_back(resolved_note(what, typed, found->id, how + folded.changes));
  return found;
}

// A Hugging Face name without its owner, format and release suffixes ("meta-llama/Llama-3.1-8B-Instruct"
// -> "llama-3.1-8b", "nvidia/Llama-3.3-70B-Instruct-FP8" -> "llama-3.3-70b", "DeepSeek-R1-0528" ->
// "deepseek-r1", "Qwen3-30B-A3B-Instruct-2507" -> "qwen3-30b-a3b", "Mixtral-8x7B-Instruct-v0.1" ->
// "mixtral-8x7b-v0.1", "Llama-2-70b-chat-hf" -> "llama-2-70b", "Meta-Llama-3.1-8B" ->
// "llama-3.1-8b"): quantized, dated, instruct, chat and base releases of one architecture size the
// same. Versions stay ("Mistral-7B-Instruct-v0.3" is not v0.1).
std::string release_base(const std::string& key) {
  std::string base = read_checkpoint_name(key).model;
  const auto dated = [&base] {
    const std::size_t dash = base.rfind('-');
    return dash != std::string::npos && base.size() - dash == 5 && dash > 0 &&
           std::all_of(base.begin() + static_cast<std::ptrdiff_t>(dash) + 1, base.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  };
  if (dated()) {
    base.resize(base.rfind('-'));
  }
  // "-instruct" and "-chat" before a version ("mixtral-8x7b-instruct-v0.1").
  for (std::string_view word : {"-instruct-", "-chat-"}) {
    if (const std::size_t at = base.find(word); at != std::string::npos && at > 0) {
      base.erase(at, word.size() - 1);
    }
  }
  for (bool cut = true; cut;) {
    cut = false;
    for (std::string_view suffix : {"-instruct", "-chat", "-base", "-hf", "-it"}) {
      if (base.size() > suffix.size() && base.ends_with(suffix)) {
        base.resize(base.size() - suffix.size());
        cut = true;
      }
    }
  }
  if (base.starts_with("meta-llama-")) {
    base.erase(0, 5);  // Meta's first Llama 3 repositories: "Meta-Llama-3.1-8B-Instruct"
  }
  return base;
}

template <typename T>
std::vector<std::string> aliases_of(const T& /*item*/) {
  return {};
}
template <>
std::vector<std::string> aliases_of<GpuSpec>(const GpuSpec& g) {
  return g.aliases;
}
// A model is also named by its Hugging Face repository, as people paste it from a serving command:
// owner/name or the name alone.
// Its aliases (other repositories of the same architecture) name it as its own repository does.
// The names first, then the releases' bases: exact_names() of them are exact.
template <>
std::vector<std::string> aliases_of<ModelSpec>(const ModelSpec& m) {
  std::vector<std::string> repos;
  if (!m.hf_repo.empty()) {
    repos.push_back(lower(m.hf_repo));
  }
  for (const ModelAlias& a : m.aliases) {
    repos.push_back(lower(a.hf_repo));
  }
  std::vector<std::string> names;
  std::vector<std::string> bases;
  for (const std::string& repo : repos) {
    const std::string name = repo.substr(repo.find('/') + 1);
    names.push_back(repo);
    names.push_back(name);
    bases.push_back(release_base(name));
  }
  names.insert(names.end(), bases.begin(), bases.end());
  return names;
}

// How many of aliases_of(item) name it exactly (a repository or its name), not as a release's base.
template <typename T>
std::ptrdiff_t exact_names(const T& item, const std::vector<std::string>& aliases) {
  if constexpr (std::is_same_v<T, ModelSpec>) {
    return std::ssize(aliases) - std::ssize(aliases) / 3;
  } else {
    (void)item;
    return std::min<std::ptrdiff_t>(2, std::ssize(aliases));
  }
}

// The alias of a catalog model `names` names (its repository, its name or its release's base), if any.
const ModelAlias* alias_named(const ModelSpec& m, std::initializer_list<std::string_view> names) {
  for (const ModelAlias& a : m.aliases) {
    const std::string repo = lower(a.hf_repo);
    const std::string name = repo.substr(repo.find('/') + 1);
    for (std::string_view n : names) {
      if (n == repo || n == name || n == release_base(name)) {
        return &a;
      }
    }
  }
  return nullptr;
}

// Id, alias, then abbreviation; a note says what a non-exact name resolved to.
template <typename T>
const T* resolve(const std::vector<T>& items, std::string_view name, std::string_view what,
                 std::vector<std::string>& notes) {
  // Spaces around a name are a copy-paste's, not the name's ("H100 ").
  const std::size_t first = name.find_first_not_of(" \t\r\n");
  name = first == std::string_view::npos ? std::string_view() : name.substr(first, name.find_last_not_of(" \t\r\n") - first + 1);
  if (const T* exact = find_by_id(items, name)) {
    return exact;
  }
  const std::string typed = lower(name);
  std::string key = typed;
  std::string stripped_vendor;  // a GPU name's vendor word, checked against the part found
  if constexpr (std::is_same_v<T, GpuSpec>) {
    // The vendor's name before the part's ("NVIDIA H200", "AMD Instinct MI300X", "Intel Gaudi 3"):
    // no GPU id starts with one, so it is dropped before the steps below.
    // "nvidia/h100" too, as a path or repository would write it: the only owner a GPU has.
    for (std::string_view vendor : {"nvidia", "amd", "intel", "instinct"}) {
      if (key.size() > vendor.size() + 1 && key.starts_with(vendor) &&
          (key[vendor.size()] == ' ' || key[vendor.size()] == '-' || key[vendor.size()] == '_' ||
           key[vendor.size()] == '/')) {
        key.erase(0, vendor.size() + 1);
        stripped_vendor = vendor == "instinct" ? "amd" : std::string(vendor);
      }
    }
  }
  // Aliases are hyphenated: "A100 80GB" is the alias a100-80gb.
  std::string hyphenated = key;
  std::replace_if(hyphenated.begin(), hyphenated.end(), [](char c) { return c == ' ' || c == '_'; }, '-');
  std::vector<const T*> hits;
  for (const T& item : items) {
    const auto aliases = aliases_of(item);
    // The catalog's own name counts as an alias ("NVIDIA H100 SXM5 80GB").
    if (std::find(aliases.begin(), aliases.end(), key) != aliases.end() ||
        std::find(aliases.begin(), aliases.end(), hyphenated) != aliases.end() || lower(item.name) == typed) {
      hits.push_back(&item);
    }
  }
  // Of several, those the name names exactly (id, repository or repository name) over those it
  // names as a release's base: "Qwen3 235B A22B" is qwen3-235b-a22b, not also its -2507 release.
  const auto prefer_exact = [](std::vector<const T*>& found, const std::string& k) {
    if (found.size() < 2) {
      return;
    }
    std::vector<const T*> exact;
    for (const T* item : found) {
      const auto aliases = aliases_of(*item);
      const auto named_end = aliases.begin() + exact_names(*item, aliases);
      if (item->id == k || std::find(aliases.begin(), named_end, k) != named_end) {
        exact.push_back(item);
      }
    }
    if (!exact.empty()) {
      found = exact;
    }
  };
  prefer_exact(hits, hyphenated);
  if constexpr (std::is_same_v<T, GpuSpec>) {
    // A slash is a Hugging Face owner's mark, and GPUs have none: the steps below would drop what
    // comes before it and run "h100/../h200" or "foo/h200" as an H200. The catalog's own names
    // with a slash ("NVIDIA B200 180GB (HGX/DGX B200, per GPU)") matched above.
    if (hits.empty() && key.find('/') != std::string::npos) {
      return nullptr;
    }
    // "amd/h100" or "NVIDIA MI300X" names a part of another vendor: no GPU of the catalog.
    if (!stripped_vendor.empty() && !hits.empty()) {
      std::erase_if(hits, [&](const T* g) { return lower(g->vendor) != stripped_vendor; });
      if (hits.empty()) {
        return nullptr;
      }
    }
  }
  std::string how = "alias";
  if constexpr (std::is_same_v<T, GpuSpec>) {
    // A node's name for its GPU ("8xH100", "8 x H200", "DGX H100"): the GPU, when the catalog
    // has no alias for the node itself.
    if (const std::string part = without_node(hyphenated); hits.empty() && part != hyphenated) {
      for (const T& item : items) {
        const auto aliases = aliases_of(item);
        if (item.id == part || std::find(aliases.begin(), aliases.end(), part) != aliases.end()) {
          hits.push_back(&item);
        }
      }
      how = "a node of it";
      key = part;
    }
  }
  // A release's name as tables write it, words apart ("Deepseek R1 0528", "Llama 3 8B Instruct"),
  // is its Hugging Face name.
  const std::string& release = std::is_same_v<T, ModelSpec> ? hyphenated : key;
  // The checkpoint's name without owner and format first (a dated release the catalog has:
  // "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"), then its release's base.
  const std::string checkpoint_model = read_checkpoint_name(release).model;
  const std::string base = release_base(release);
  bool by_release = false;
  // Models only: a GPU has no releases, and "h20-0000" or "a10-instruct" ran as an A10 or H20.
  for (const std::string& candidate : {checkpoint_model, base}) {
    if (!hits.empty() || candidate == release || !std::is_same_v<T, ModelSpec>) {
      continue;
    }
    for (const T& item : items) {
      const auto aliases = aliases_of(item);
      if (item.id == candidate || std::find(aliases.begin(), aliases.end(), candidate) != aliases.end()) {
        hits.push_back(&item);
      }
    }
    prefer_exact(hits, candidate);
    by_release = true;
  }
  if (by_release) {
    const CheckpointName checkpoint = read_checkpoint_name(name);
    how = checkpoint.format ? fmt::format("Hugging Face name, {} checkpoint", checkpoint.format_text)
                            : "Hugging Face name";
  }
  if (hits.empty()) {
    bool version_word = false;
    if constexpr (std::is_same_v<T, ModelSpec>) {
      const std::string unversioned = without_version_v(key);
      version_word = unversioned != key;
      key = unversioned;
    }
    const auto query = words(key);
    const auto query_after_dot = after_dot(key);
    for (const T& item : items) {
      if (broken_version(key)) {
        break;
      }
      const auto id = words(item.id);
      // A version word names the version right after the family ("LLaMA v4 Maverick" is
      // llama-4-...), not a number further on ("Kimi v2" is not kimi-k2).
      if (abbreviates(query, query_after_dot, id, after_dot(item.id)) &&
          (!version_word || (id.size() > 1 && id[1] == query[1]))) {
        hits.push_back(&item);
      }
    }
    // Of several, the one whose id is the query's words exactly: "llama3-70b" is Llama 3 70B, not
    // also Llama 3.1 and 3.3 70B, which it abbreviates.
    if (hits.size() > 1) {
      const auto exact =
          std::find_if(hits.begin(), hits.end(), [&query](const T* item) { return words(item->id) == query; });
      if (exact != hits.end()) {
        hits = {*exact};
      }
    }
    // Of a model and its later releases ("qwen3-235b": qwen3-235b-a22b and its -instruct-2507),
    // the model whose id begins every other's.
    if (hits.size() > 1) {
      const auto root = std::min_element(hits.begin(), hits.end(),
                                         [](const T* a, const T* b) { return a->id.size() < b->id.size(); });
      if (std::all_of(hits.begin(), hits.end(),
                      [&root](const T* item) { return item->id.starts_with((*root)->id + "-") || item == *root; })) {
        hits = {*root};
      }
    }
    how = "abbreviation";
  }
  if (hits.empty() && std::is_same_v<T, GpuSpec>) {
    // A GPU as vendors and benchmark tables write it ("NVIDIA H100 SXM", "RTX 6000 Pro
    // Blackwell Server Edition", "H100 SXM 80GB"): every token of the id among its tokens, in
    // any order; of several such ids the one with the most tokens. Tokens are whole ("h100-sxm6"
    // is not h100-sxm). Not for models, whose extra tokens are versions ("Mistral-7B-v0.3").
    const GpuWords named = gpu_words(key);
    const auto& query = named.tokens;
    const auto size_fits = [&named](const T& item) {
      if constexpr (std::is_same_v<T, GpuSpec>) {
        return stated_size_fits(named, item);
      } else {
        return true;
      }
    };
    std::size_t most = 0;
    // The id's tokens, or an alias's: "NVIDIA H100 Tensor Core GPU" is the h100 alias's part
    // with vendor words around it, "NVIDIA B300 SXM6 AC" the b300-sxm6 alias's.
    // An alias names the part with its form factor implied: a form-factor word left over would
    // name another part ("NVIDIA H800 PCIe" is not the h800 alias's SXM part). Of an id and an
    // alias matching as many tokens, the id ("RTX PRO 6000 Blackwell Workstation Edition" is the
    // workstation part, not the server part's rtx-pro-6000-blackwell).
    const auto form_factor = [](const std::string& w) {
      // HBM2/HBM2e tell the PCIe parts from the SXM ones an alias names (gpu_words keeps them).
      return w == "pcie" || w == "sxm" || w == "sxm2" || w.starts_with("nvl") || w == "oam" || w.starts_with("hbm2");
    };
    // A form-factor word left over beside an id without one must be the part's own: "h20-nvl" (a
    // typo of h200-nvl) is not the H20 SXM module, nor "b200-pcie" the HGX part or "l40s-sxm" the
    // PCIe card (helper s57 badinput F3). A socket part has a fabric of its own (NVLink, xGMI,
    // RoCE on OAM); a card has none or a bridge.
    const auto contradicts = [](const std::string& w, const T& item) {
      if constexpr (std::is_same_v<T, GpuSpec>) {
        const bool socket = item.scale_up && item.scale_up->kind.find("bridge") == std::string::npos;
        if (w == "sxm" || w == "sxm2" || w == "oam") {
          return !socket;
        }
        if (w == "pcie" || w == "nvl") {
          return socket;
        }
      }
      return false;
    };
    const auto matched_tokens = [&](const T& item, const std::string& spelling, bool alias) -> std::size_t {
      auto id = tokens(spelling);
      if (!named.stated_gb) {
        // A name without a size names every size of the part ("A100 SXM4": the 40 and 80 GB).
        std::erase_if(id, [](const std::string& w) { return size_gb(w) > 0; });
      }
      const bool all_named = std::all_of(id.begin(), id.end(), [&query](const std::string& w) {
        return std::find(query.begin(), query.end(), w) != query.end();
      });
      const bool rest_vendor = std::all_of(query.begin(), query.end(), [&](const std::string& w) {
        return std::find(id.begin(), id.end(), w) != id.end() ||
               (vendor_word(w) && !(alias && form_factor(w)) && !contradicts(w, item));
      });
      return all_named && rest_vendor ? 2 * id.size() + (alias ? 0 : 1) : 0;
    };
    for (const T& item : items) {
      if (!size_fits(item)) {
        continue;
      }
      std::size_t size = matched_tokens(item, item.id, false);
      for (const std::string& alias : aliases_of(item)) {
        size = std::max(size, matched_tokens(item, alias, true));
      }
      if (size == 0) {
        continue;
      }
      if (size > most) {
        hits.clear();
        most = size;
      }
      if (size == most) {
        hits.push_back(&item);
      }
    }
    // Sizes are odd for an id's tokens, even for an alias's.
    how = most % 2 == 1 ? "tokens of the name" : "an alias's tokens, the rest vendor, size or memory words";
    if constexpr (std::is_same_v<T, GpuSpec>) {
      if (hits.empty() && named.stated_gb) {
        // "H200 141GB HBM3": the rest an id or alias ("h200"), the stated size the part's memory.
        const std::string part = fmt::format("{}", fmt::join(named.part, "-"));
        for (const T& item : items) {
          const auto aliases = aliases_of(item);
          const bool named_so = item.id == part || std::find(aliases.begin(), aliases.end(), part) != aliases.end();
          if (named_so && stated_size_fits(named, item)) {
            hits.push_back(&item);
          }
        }
        how = "its memory size and type left aside";
      }
    }
  }
  if (hits.size() == 1) {
    if constexpr (std::is_same_v<T, ModelSpec>) {
      // Another release of the entry's architecture: the note says why it is the same model.
      if (const ModelAlias* alias = alias_named(*hits.front(), {key, hyphenated, checkpoint_model, base})) {
        how = fmt::format("{}: {}{}", alias->hf_repo, alias->note, by_release ? "; " + how : "");
      }
    }
    notes.push_back(resolved_note(what, name, hits.front()->id, how));
    return hits.front();
  }
  if (hits.size() > 1) {
    std::vector<std::string> ids;
    for (const T* h : hits) {
      ids.push_back(h->id);
    }
    // An entry of the same family one typo away too: a typo can abbreviate other entries than
    // the one meant ("qwen3-3b", one letter short of qwen3-32b, matches qwen3-30b-a3b; helper
    // s57 badinput F7).
    std::vector<std::string> close;
    const std::string asked = lower(std::is_same_v<T, ModelSpec> ? without_owner(name) : name);
    const auto family = [](std::string_view s) { return s.substr(0, s.find_first_of(" -_/.")); };
    for (const T& item : items) {
      std::vector<std::string> spellings = aliases_of(item);
      spellings.insert(spellings.begin(), item.id);
      const bool one_typo = std::any_of(spellings.begin(), spellings.end(), [&](const std::string& s) {
        const std::string spelled = lower(s);
        return family(spelled) == family(asked) && edit_distance(spelled, asked) <= 1;
      });
      if (one_typo && std::find(ids.begin(), ids.end(), item.id) == ids.end() &&
          std::find(close.begin(), close.end(), item.id) == close.end()) {
        close.push_back(item.id);
      }
    }
    throw InputError(fmt::format("{} '{}' is ambiguous: it matches {}{}; give the full id", what,
                                 detail::printable(name), fmt::join(ids, ", "),
                                 close.empty() ? "" : fmt::format(" (one letter from: {})", fmt::join(close, ", "))));
  }
  return nullptr;
}

template <typename T>
[[noreturn]] void unknown(std::string_view what, std::string_view id, const std::vector<T>& items,
                          std::string_view list_command) {
  // A model's Hugging Face owner ("zai-org/GLM-4.6") is in no id: the closest are the name's. A GPU
  // has no owner: the words on both sides of a slash are the name's ("h100/../h200": both parts).
  std::string named(id);
  if constexpr (std::is_same_v<T, ModelSpec>) {
    named = without_owner(id);
  } else {
    std::replace(named.begin(), named.end(), '/', ' ');
  }
  // A list given to a one-name flag ("--gpu h100,h200"): the closest of each name, and that a
  // flag takes one.
  const bool listed = named.find(',') != std::string::npos;
  std::vector<std::string> close;
  std::size_t start = 0;
  for (std::size_t comma = 0; comma != std::string::npos && close.size() < 6; start = comma + 1) {
    comma = listed ? named.find(',', start) : std::string::npos;
    for (std::string& c : detail::closest_ids(std::string_view(named).substr(start, comma - start), items,
                                              listed ? std::size_t{2} : std::size_t{3})) {  // a distilled model's: its student's
      if (std::find(close.begin(), close.end(), c) == close.end()) {
        close.push_back(std::move(c));
      }
    }
  }
  const bool distilled = lower(id).find("distill-") != std::string::npos;
  // Names that are close in spelling can be far in kind (an A6000 is no B200): say how to give
  // the real thing instead.
  const std::string_view instead = what == "GPU" ? "; one not in the catalog can be described in a file for "
                                                   "--catalog, as examples/my-gpus.json does"
                                                 : "; one not in the catalog can be read from its config.json with "
                                                   "--model-config";
  throw InputError(fmt::format("unknown {} '{}'{}{}{} (see 'gpuplan catalog {}'){}", what, detail::printable(id),
                               listed ? fmt::format("; a flag names one {} (repeat the flag for another)", what) : "",
                               distilled ? "; a distilled model has its student's architecture" : "",
                               close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")),
                               list_command, instead));
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

std::string iso_day(DayNumber day) {
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{day}}};
  return fmt::format("{:04d}-{:02d}-{:02d}", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()));
}

// A GPU or model entry whose id is already known: the earlier entry's JSON with this one's
// fields patched in (RFC 7386 merge patch: objects merge, null removes), so a user file can
// change one figure and keep the rest.
Json patched_entry(const Json& entry, const std::map<std::string, std::string>& known, std::string_view what,
                   MergeReport& report, std::vector<std::string>& changed) {
  if (!entry.is_object()) {
    return entry;
  }
  const auto id = entry.find("id");
  if (id == entry.end() || !id->is_string()) {
    return entry;
  }
  const auto it = known.find(id->get<std::string>());
  if (it == known.end()) {
    return entry;
  }
  Json merged = Json::parse(it->second);
  for (const auto& [key, value] : entry.items()) {
    if (key == "id") {
      continue;
    }
    if (value.is_null() && merged.contains(key)) {
      report.dropped.push_back(fmt::format("{} '{}' drops the built-in field '{}'", what, id->get<std::string>(), key));
    }
    changed.push_back(key);
  }
  // A figure measured on the built-in part (the CUDA-reported total) no longer describes a part
  // whose memory the user re-states: drop it rather than cross-check it against the new figure.
  if (what == "GPU" && merged.contains("cuda_memory_mib") && !entry.contains("cuda_memory_mib") &&
      (entry.contains("memory_gb") || entry.contains("usable_memory_mib"))) {
    merged.erase("cuda_memory_mib");
  }
  // Likewise a host link the user re-rates: the built-in peer rate was measured at the built-in
  // line rate and does not carry over to another.
  if (what == "GPU" && entry.contains("host_link") && entry["host_link"].is_object() &&
      entry["host_link"].contains("gb_per_s_per_direction") &&
      !entry["host_link"].contains("peer_gb_per_s_per_direction") && merged.contains("host_link") &&
      merged["host_link"].is_object()) {
    merged["host_link"].erase("peer_gb_per_s_per_direction");
  }
  merged.merge_patch(entry);
  return merged;
}

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// The built-in entry with this id (case-insensitive, as find_by_id), or kNone.
std::size_t entry_with_id(std::span<const detail::EmbeddedEntry> entries, std::string_view id) {
  const std::string key = lower(id);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (entries[k].id == key) {
      return k;
    }
  }
  return kNone;
}

// Built-in entry k parsed alone, with the file's name and JSON pointer as the whole-file merge
// gives them (the first merge into an empty catalog patches nothing), cached.
template <typename T, typename Parse>
const T& single_entry(std::map<std::size_t, T>& cache, std::size_t k, std::span<const detail::EmbeddedEntry> entries,
                      std::string_view origin, std::string_view array, Parse parse) {
  auto it = cache.find(k);
  if (it == cache.end()) {
    const detail::EmbeddedEntry& e = entries[k];
    const Json entry = detail::parse_json_text(e.json, origin);
    it = cache.emplace(k, parse(entry, std::string(origin), JsonPointer(std::string(array)) / e.index)).first;
  }
  return it->second;
}

/// Whose name a name already is: the entry's id, and whether the name is its id or an alias.
struct NameOwner {
  std::string id;
  std::string origin;
  bool alias = false;
};

std::string owner_text(std::string_view kind, const NameOwner& o) {
  return fmt::format("{} of {} '{}' ({})", o.alias ? "an alias" : "the id", kind, o.id, o.origin);
}

// An alias that is another entry's name makes that name ambiguous ("--gpu h100" matched two
// GPUs) or resolves it to the wrong kind ("catalog show llama-3.1-8b" showed a GPU aliased so),
// far from the file that did it: refused where it is written. `loaded` is what the catalog holds
// (entries `incoming` replaces by id are left out); `model_ids`, every model id there will be.
void check_gpu_names(const std::vector<GpuSpec>& loaded, const std::vector<GpuSpec>& incoming,
                     const std::set<std::string>& model_ids, const std::string& origin) {
  std::map<std::string, NameOwner> owners;
  const auto add = [&owners](const GpuSpec& g) {
    owners.emplace(g.id, NameOwner{.id = g.id, .origin = g.origin});
    for (const std::string& alias : g.aliases) {
      owners.emplace(alias, NameOwner{.id = g.id, .origin = g.origin, .alias = true});
    }
  };
  for (const GpuSpec& g : loaded) {
    if (find_by_id(incoming, g.id) == nullptr) {
      add(g);
    }
  }
  for (std::size_t i = 0; i < incoming.size(); ++i) {
    const GpuSpec& g = incoming[i];
    const JsonPointer at = JsonPointer("/gpus") / i;
    if (const auto it = owners.find(g.id); it != owners.end()) {
      throw InputError(fmt::format("{}: GPU id '{}' is already {}: a name must name one GPU",
                                   detail::where(origin, at / "id"), g.id, owner_text("GPU", it->second)));
    }
    for (std::size_t j = 0; j < g.aliases.size(); ++j) {
      const std::string& alias = g.aliases[j];
      const std::string where = detail::where(origin, at / "aliases" / j);
      if (alias == g.id) {
        throw InputError(fmt::format("{}: alias '{}' is the GPU's own id", where, alias));
      }
      if (std::find(g.aliases.begin(), g.aliases.begin() + static_cast<std::ptrdiff_t>(j), alias) !=
          g.aliases.begin() + static_cast<std::ptrdiff_t>(j)) {
        throw InputError(fmt::format("{}: alias '{}' is given twice", where, alias));
      }
      if (const auto it = owners.find(alias); it != owners.end()) {
        throw InputError(fmt::format("{}: alias '{}' is already {}: a name must name one GPU", where, alias,
                                     owner_text("GPU", it->second)));
      }
      if (model_ids.contains(alias)) {
        throw InputError(fmt::format("{}: alias '{}' is the id of model '{}': a name must name one entry", where,
                                     alias, alias));
      }
    }
    add(g);
  }
}

/// The same for models' aliases: other repositories of the architecture, each naming one model.
void check_model_aliases(const std::vector<ModelSpec>& loaded, const std::vector<ModelSpec>& incoming,
                         const std::string& origin) {
  std::map<std::string, NameOwner> owners;  // lower-case repositories
  const auto add = [&owners](const ModelSpec& m) {
    if (!m.hf_repo.empty()) {
      owners.emplace(lower(m.hf_repo), NameOwner{.id = m.id, .origin = m.origin});
    }
    for (const ModelAlias& a : m.aliases) {
      owners.emplace(lower(a.hf_repo), NameOwner{.id = m.id, .origin = m.origin, .alias = true});
    }
  };
  for (const ModelSpec& m : loaded) {
    if (find_by_id(incoming, m.id) == nullptr) {
      add(m);
    }
  }
  for (std::size_t i = 0; i < incoming.size(); ++i) {
    const ModelSpec& m = incoming[i];
    for (std::size_t j = 0; j < m.aliases.size(); ++j) {
      const std::string repo = lower(m.aliases[j].hf_repo);
      const std::string where = detail::where(origin, JsonPointer("/models") / i / "aliases" / j / "hf_repo");
      if (repo == lower(m.hf_repo)) {
        throw InputError(fmt::format("{}: '{}' is the model's own hf_repo", where, m.aliases[j].hf_repo));
      }
      for (std::size_t k = 0; k < j; ++k) {
        if (lower(m.aliases[k].hf_repo) == repo) {
          throw InputError(fmt::format("{}: '{}' is given twice", where, m.aliases[j].hf_repo));
        }
      }
      if (const auto it = owners.find(repo); it != owners.end()) {
        throw InputError(fmt::format("{}: '{}' is already the repository of model '{}' ({}{}): a repository must "
                                     "name one model",
                                     where, m.aliases[j].hf_repo, it->second.id, it->second.origin,
                                     it->second.alias ? ", as an alias" : ""));
      }
    }
    add(m);
  }
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

Catalog Catalog::embedded() {
  Catalog c;
  c.pending_ = {detail::kEmbeddedGpus, detail::kEmbeddedModels, detail::kEmbeddedPrices, detail::kEmbeddedBenchmarks};
  return c;
}

const Catalog& Catalog::builtin() {
  // Not const: parsing a pending section on first use writes to it (see load()).
  static Catalog catalog = embedded();
  return catalog;
}

void Catalog::load(Section section) const {
  if (pending_[section].empty()) {
    return;
  }
  static constexpr std::array<std::string_view, kSections> kOrigins{"gpus.json", "models.json", "prices.json",
                                                                    "benchmarks.json"};
  // Taken first so that the merge below sees the section as its own, not as pending.
  const std::string_view text = std::exchange(pending_[section], {});
  try {
    // Only a Catalog built by builtin() (a non-const object) or copied from it has pending texts.
    const_cast<Catalog*>(this)->merge_loaded(text, kOrigins[section]);
  } catch (const InputError&) {
    // A failed text merged nothing; keep it pending so a retry fails again, never silently empty.
    // (A price dated after set_today's day is the one way shipped data fails here.)
    pending_[section] = text;
    throw;
  }
}

void Catalog::load_all() const {
  for (std::size_t s = 0; s < kSections; ++s) {
    load(static_cast<Section>(s));
  }
}

const std::vector<GpuSpec>& Catalog::gpus() const {
  load(kGpus);
  return gpus_;
}

const std::vector<ModelSpec>& Catalog::models() const {
  load(kModels);
  return models_;
}

const std::vector<Price>& Catalog::prices() const {
  load(kPrices);
  return prices_;
}

const std::vector<Benchmark>& Catalog::benchmarks() const {
  load(kBenchmarks);
  return benchmarks_;
}

MergeReport Catalog::merge_text(std::string_view text, std::string_view origin) {
  // The built-in entries go in first, so this text overrides them and is checked against them.
  load_all();
  return merge_loaded(text, origin);
}

MergeReport Catalog::merge_loaded(std::string_view text, std::string_view origin_view) {
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
  MergeReport report;
  std::map<std::string, std::string> gpu_json;
  std::map<std::string, std::string> model_json;
  std::map<std::string, std::vector<std::string>> changed_fields;
  if (const Json* arr = array_field(root, "gpus", origin)) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const JsonPointer at = JsonPointer("/gpus") / i;
      std::vector<std::string> changed;
      const Json entry = patched_entry((*arr)[i], gpu_json_, "GPU", report, changed);
      gpus.push_back(detail::gpu_from_json(entry, origin, at));
      check_unique(seen, gpus.back().id, at / "id", "GPU id");
      gpu_json[gpus.back().id] = entry.dump();
      changed_fields["GPU " + gpus.back().id] = std::move(changed);
    }
  }
  seen.clear();
  if (const Json* arr = array_field(root, "models", origin)) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const JsonPointer at = JsonPointer("/models") / i;
      std::vector<std::string> changed;
      const Json entry = patched_entry((*arr)[i], model_json_, "model", report, changed);
      models.push_back(detail::model_from_json(entry, origin, at));
      check_unique(seen, models.back().id, at / "id", "model id");
      model_json[models.back().id] = entry.dump();
      changed_fields["model " + models.back().id] = std::move(changed);
    }
  }
  seen.clear();
  if (const Json* arr = array_field(root, "prices", origin)) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const JsonPointer at = JsonPointer("/prices") / i;
      prices.push_back(detail::price_from_json((*arr)[i], origin, at));
      check_unique(seen, price_key(prices.back()), at, "price (provider/gpu/mode and term/region/instance sizes)");
      if (prices.back().day > today_) {
        throw InputError(fmt::format("{}: price date {} is in the future (today is {})",
                                     detail::where(origin, at / "date"), prices.back().date, iso_day(today_)));
      }
      prices.back().age_days = today_ - prices.back().day;
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
  // Names must stay unique once this file's entries are in.
  if (!gpus.empty()) {
    std::set<std::string> model_ids;
    for (const std::vector<ModelSpec>* list : {&models_, &models}) {
      for (const ModelSpec& m : *list) {
        model_ids.insert(m.id);
      }
    }
    check_gpu_names(gpus_, gpus, model_ids, origin);
  }
  if (!models.empty()) {
    check_model_aliases(models_, models, origin);
  }
  // Benchmarks must name a model and a GPU that exist once this file's entries are in.
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const Benchmark& b = benchmarks[i];
    if (find_by_id(gpus, b.gpu) == nullptr && !has_gpu_id(b.gpu)) {
      throw InputError(fmt::format("{}: unknown GPU '{}'",
                                   detail::where(origin, JsonPointer("/benchmarks") / i / "gpu"), b.gpu));
    }
    if (find_by_id(models, b.model) == nullptr && !has_model_id(b.model)) {
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
    const bool known = find_by_id(gpus, prices[i].gpu) != nullptr || has_gpu_id(prices[i].gpu);
    if (!known) {
      std::vector<GpuSpec> all = gpus_;
      all.insert(all.end(), gpus.begin(), gpus.end());
      const auto close = detail::closest_ids(prices[i].gpu, all);
      throw InputError(fmt::format("{}: unknown GPU '{}'{}",
                                   detail::where(origin, JsonPointer("/prices") / i / "gpu"),
                                   prices[i].gpu,
                                   close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", "))));
    }
  }

  report.origin = origin;
  report.gpus = static_cast<int>(gpus.size());
  report.models = static_cast<int>(models.size());
  report.prices = static_cast<int>(prices.size());
  report.benchmarks = static_cast<int>(benchmarks.size());
  for (Benchmark& b : benchmarks) {
    upsert(benchmarks_, std::move(b), "benchmark", report);
  }
  const auto merge_note = [&changed_fields](MergeReport& r, const std::string& what, const std::string& id) {
    if (!r.overrides.empty() && r.overrides.back().starts_with(fmt::format("{} '{}'", what, id))) {
      const auto& changed = changed_fields[what + " " + id];
      r.overrides.back() += fmt::format("; fields from this file: {}; the rest kept",
                                        changed.empty() ? std::string("none") : fmt::format("{}", fmt::join(changed, ", ")));
    }
  };
  for (GpuSpec& g : gpus) {
    const std::string id = g.id;
    upsert(gpus_, std::move(g), "GPU", report);
    merge_note(report, "GPU", id);
  }
  for (ModelSpec& m : models) {
    const std::string id = m.id;
    upsert(models_, std::move(m), "model", report);
    merge_note(report, "model", id);
  }
  if (!gpu_json.empty()) {
    gpu_json.merge(gpu_json_);
    gpu_json_ = std::move(gpu_json);
  }
  if (!model_json.empty()) {
    model_json.merge(model_json_);
    model_json_ = std::move(model_json);
  }
  // A price replaces every price already in of its provider, GPU, offer and region, whatever
  // their instance sizes (an offer's sizes come as one set: a file that gives only the 8-GPU
  // rate does not leave a stale 1-GPU one beside it); the file's prices of that offer take the
  // place of the first one they replace. Keys are formatted once, not once per comparison.
  std::map<std::string, std::vector<std::size_t>> known_prices;
  for (std::size_t i = 0; i < prices_.size(); ++i) {
    known_prices[offer_region_key(prices_[i])].push_back(i);
  }
  std::map<std::string, std::vector<Price>> replacing;
  std::vector<Price> added;
  for (Price& p : prices) {
    const std::string key = offer_region_key(p);
    if (const auto it = known_prices.find(key); it != known_prices.end()) {
      std::vector<Price>& by = replacing[key];
      if (by.empty()) {
        report.overrides.push_back(fmt::format("price {} (was from {})", key, prices_[it->second.front()].origin));
      }
      by.push_back(std::move(p));
    } else {
      added.push_back(std::move(p));
    }
  }
  if (!replacing.empty()) {
    std::vector<Price> merged;
    merged.reserve(prices_.size() + prices.size());
    for (std::size_t i = 0; i < prices_.size(); ++i) {
      const std::string key = offer_region_key(prices_[i]);
      const auto it = replacing.find(key);
      if (it == replacing.end()) {
        merged.push_back(std::move(prices_[i]));
      } else if (known_prices.at(key).front() == i) {
        std::move(it->second.begin(), it->second.end(), std::back_inserter(merged));
      }
    }
    prices_ = std::move(merged);
  }
  std::move(added.begin(), added.end(), std::back_inserter(prices_));
  return report;
}

MergeReport Catalog::merge_file(const std::filesystem::path& path) {
  return merge_text(read_text_file(path, "catalog file"), path.string());
}

const GpuSpec* Catalog::find_gpu(std::string_view id) const {
  if (!pending_[kGpus].empty()) {
    const std::size_t k = entry_with_id(detail::kEmbeddedGpuEntries, id);
    return k == kNone ? nullptr : &single_entry(single_gpus_, k, detail::kEmbeddedGpuEntries, "gpus.json", "/gpus", detail::gpu_from_json);
  }
  return find_by_id(gpus_, id);
}

const ModelSpec* Catalog::find_model(std::string_view id) const {
  if (!pending_[kModels].empty()) {
    const std::size_t k = entry_with_id(detail::kEmbeddedModelEntries, id);
    return k == kNone ? nullptr
                      : &single_entry(single_models_, k, detail::kEmbeddedModelEntries, "models.json", "/models",
                                      detail::model_from_json);
  }
  return find_by_id(models_, id);
}

bool Catalog::has_gpu_id(std::string_view id) const {
  return pending_[kGpus].empty() ? find_by_id(gpus_, id) != nullptr
                                 : entry_with_id(detail::kEmbeddedGpuEntries, id) != kNone;
}

bool Catalog::has_model_id(std::string_view id) const {
  return pending_[kModels].empty() ? find_by_id(models_, id) != nullptr
                                   : entry_with_id(detail::kEmbeddedModelEntries, id) != kNone;
}

const GpuSpec* Catalog::resolve_gpu(std::string_view name) const {
  if (const FoldedName folded = fold_name(name); !folded.changes.empty()) {
    return with_fold<GpuSpec>(name, folded, "GPU", notes_, [&] { return resolve_gpu(folded.text); });
  }
  if (!pending_[kGpus].empty()) {
    // The usual cases parse one entry: an exact id, or an alias only one GPU has.
    if (const GpuSpec* exact = find_gpu(name)) {
      return exact;
    }
    const std::string key = lower(name);
    std::size_t hit = kNone;
    int hits = 0;
    for (std::size_t k = 0; k < detail::kEmbeddedGpuEntries.size(); ++k) {
      const auto& aliases = detail::kEmbeddedGpuEntries[k].aliases;
      if (std::find(aliases.begin(), aliases.end(), key) != aliases.end()) {
        hit = k;
        ++hits;
      }
    }
    if (hits == 1) {
      const GpuSpec& g =
          single_entry(single_gpus_, hit, detail::kEmbeddedGpuEntries, "gpus.json", "/gpus", detail::gpu_from_json);
      notes_.push_back(resolved_note("GPU", name, g.id, "alias"));
      return &g;
    }
  }
  return resolve(gpus(), name, "GPU", notes_);
}

const ModelSpec* Catalog::resolve_model(std::string_view name) const {
  if (const FoldedName folded = fold_name(name); !folded.changes.empty()) {
    return with_fold<ModelSpec>(name, folded, "model", notes_, [&] { return resolve_model(folded.text); });
  }
  if (!pending_[kModels].empty()) {
    if (const ModelSpec* exact = find_model(name)) {
      return exact;
    }
  }
  return resolve(models(), name, "model", notes_);
}

const GpuSpec& Catalog::gpu(std::string_view id) const {
  if (const GpuSpec* g = resolve_gpu(id)) {
    return *g;
  }
  unknown("GPU", id, gpus(), "gpus");
}

const ModelSpec& Catalog::model(std::string_view id) const {
  if (const ModelSpec* m = resolve_model(id)) {
    return *m;
  }
  unknown("model", id, models(), "models");
}

std::vector<std::string> Catalog::take_notes() const { return std::exchange(notes_, {}); }

void Catalog::set_today(DayNumber today) {
  for (Price& p : prices_) {
    if (p.day > today) {
      throw InputError(fmt::format("{}: price date {} is in the future (today is {})",
                                   detail::where(p.origin, JsonPointer(p.pointer) / "date"), p.date,
                                   iso_day(today)));
    }
    p.age_days = today - p.day;
  }
  today_ = today;
}

namespace {

/// config.json files written by Python's json.dumps carry NaN and Infinity where a value is
/// unbounded (Mamba's "time_step_limit": [0.0, Infinity]); JSON has no such tokens. Outside
/// strings each is parsed as a marker string and then made the double it stands for: a field
/// gpuplan reads refuses it by name (ObjectReader::value), one it does not read is left alone.
/// They had been read as null, which is "absent" for most fields: num_key_value_heads NaN was
/// plain multi-head attention, KV x4 (helper s49 F2).
constexpr std::string_view kPythonConstantMark = "\x01python:";

std::string python_constants_marked(std::string_view text) {
  std::string out;
  if (text.find("NaN") == std::string_view::npos && text.find("Infinity") == std::string_view::npos) {
    return out;
  }
  out.reserve(text.size() + 64);
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    in_string = c == '"';
    const std::string_view rest = text.substr(i);
    std::string_view literal;
    for (std::string_view constant : {"-Infinity", "Infinity", "NaN"}) {
      if (literal.empty() && rest.starts_with(constant)) {
        literal = constant;
      }
    }
    if (literal.empty()) {
      out += c;
    } else {
      out += fmt::format("\"\\u0001python:{}\"", literal);
      i += literal.size() - 1;
    }
  }
  return out;
}

// The marker strings back to the doubles they stand for (iteratively: the depth is capped at
// parse time, but a recursion per level is not needed).
void restore_python_constants(Json& root) {
  std::vector<Json*> todo{&root};
  while (!todo.empty()) {
    Json* v = todo.back();
    todo.pop_back();
    if (v->is_structured()) {
      for (Json& child : *v) {
        todo.push_back(&child);
      }
    } else if (v->is_string() && v->get_ref<const std::string&>().starts_with(kPythonConstantMark)) {
      const std::string literal = v->get_ref<const std::string&>().substr(kPythonConstantMark.size());
      *v = literal == "NaN" ? std::numeric_limits<double>::quiet_NaN()
           : literal == "Infinity" ? std::numeric_limits<double>::infinity()
                                   : -std::numeric_limits<double>::infinity();
    }
  }
}

Json parse_hf_config_text(std::string_view text, const std::string& origin) {
  // transformers reads config.json as utf-8 with json.loads, which raises "Unexpected UTF-8 BOM"
  // on a byte-order mark: the engine cannot load such a file (helper s51 F4).
  if (text.starts_with("\xEF\xBB\xBF")) {
    throw InputError(fmt::format("{}: starts with a UTF-8 byte-order mark, which transformers' loader refuses "
                                 "(json.loads: \"Unexpected UTF-8 BOM\"); save the file without it",
                                 origin));
  }
  const std::string marked = python_constants_marked(text);
  Json root = detail::parse_json_text(marked.empty() ? text : std::string_view(marked), origin);
  if (!marked.empty()) {
    restore_python_constants(root);
  }
  return root;
}

// "owner/name" as the Hub spells repository ids, not a filesystem path ("/workspace/...",
// "./out", "C:\\models\\x", "../merged").
bool plausible_hub_id(std::string_view name) {
  const std::size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == name.size() ||
      name.find('/', slash + 1) != std::string_view::npos) {
    return false;
  }
  const auto part_ok = [](std::string_view part) {
    return part != "." && part != ".." && !part.starts_with('.') && !part.ends_with('.') &&
           std::all_of(part.begin(), part.end(), [](unsigned char c) {
             return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.';
           });
  };
  return part_ok(name.substr(0, slash)) && part_ok(name.substr(slash + 1));
}

// A repository name that says its weights are quantized (TheBloke/zephyr-7B-alpha-AWQ,
// Qwen/Qwen3-8B-FP8, unsloth/llama-3-8b-bnb-4bit).
bool names_quantized_format(std::string_view name) {
  const std::string lowered = lower(name);
  static constexpr std::array kWords{std::string_view("awq"),   std::string_view("gptq"),  std::string_view("fp8"),
                                     std::string_view("fp4"),   std::string_view("int4"),  std::string_view("int8"),
                                     std::string_view("4bit"),  std::string_view("8bit"),  std::string_view("bnb"),
                                     std::string_view("w4a16"), std::string_view("w8a8"),  std::string_view("w4a8"),
                                     std::string_view("w8a16"), std::string_view("quant"), std::string_view("exl2"),
                                     std::string_view("hqq"),   std::string_view("marlin"), std::string_view("mlx")};
  return std::any_of(kWords.begin(), kWords.end(),
                     [&lowered](std::string_view w) { return lowered.find(w) != std::string::npos; });
}

bool states_quantization(const Json& config) {
  const auto stated = [](const Json& object, const char* key) {
    return object.is_object() && object.contains(key) && !object[key].is_null();
  };
  const auto text = config.find("text_config");
  return stated(config, "quantization_config") || stated(config, "compression_config") ||
         (text != config.end() && stated(*text, "quantization_config"));
}

constexpr std::string_view kSavedNameNote = "config.json's _name_or_path \"";

// The note model_from_hf_json leaves when it did not take _name_or_path; empty otherwise.
std::string_view saved_name_refused_note(const ModelSpec& m) {
  const std::size_t at = m.assumed_defaults.find(kSavedNameNote);
  return at == std::string::npos ? std::string_view() : std::string_view(m.assumed_defaults).substr(at);
}

ModelSpec model_from_hf_json(const Json& root, const std::string& origin, bool checkpoint_total_known = false) {
  ModelSpec m = detail::model_from_config(root, origin, JsonPointer(), false, checkpoint_total_known);
  // Classes named in auto_map come from the checkpoint's own Python files.
  const auto code = root.find("auto_map");
  m.remote_code = code != root.end() && code->is_object() && !code->empty();
  const auto it = root.find("_name_or_path");
  // The model is named and launched by the path given (a config.json's folder, a downloaded model
  // directory), never by _name_or_path: save_pretrained writes where the model was loaded from,
  // which is a training run (allenai/OLMoE-1B-7B-0125-Instruct's file says
  // "allenai/open_instruct_dev", SmolLM-1.7B's "HuggingFaceTB/cosmo2-1.7B-webinst-sc2"), a
  // quantizer's build folder (TheBloke's AWQ uploads: "/workspace/process/.../source") or the base
  // model a quantized checkpoint was made from: plan's launch command loaded nothing, another
  // model, or 14.5 GB of bf16 for 4 GB of int4 (helpers s49 F1, s51 F3).
  const std::filesystem::path path(origin);
  const std::string stem = path.stem().string();
  const std::string saved =
      it != root.end() && it->is_string() ? it->get<std::string>() : std::string();
  if (!saved.empty()) {
    const bool path_like = !plausible_hub_id(saved);
    const bool base_of_quantized = !path_like && states_quantization(root) && !names_quantized_format(saved);
    // Carried as fit's free-text model note (ModelSpec::assumed_defaults is the one fit prints
    // as is; a field of its own would touch model_spec.hpp and rebuild everything).
    const std::string note = fmt::format(
        "{}{}\" (from config) is not used as the checkpoint's name: {}; {}", kSavedNameNote,
        detail::printable(saved),
        path_like           ? "it is a local path the model was saved from, not a Hub id (owner/name)"
        : base_of_quantized ? "the config states a quantization and that id names no quantized format, so it is "
                              "likely the base model the checkpoint was quantized from"
                            : "save_pretrained writes the name the model was loaded from (a training run's, a base "
                              "model's), which need not be this checkpoint's",
        path.filename() == "config.json" ? "the path given is used instead"
                                         : "the launch line names the checkpoint's directory as a placeholder");
    m.assumed_defaults = m.assumed_defaults.empty() ? note : m.assumed_defaults + "; " + note;
  }
  m.id = stem == "config" ? path.parent_path().filename().string() : stem;
  if (m.id == "." || m.id == "..") {
    // "." or "./config.json": the directory it stands for, not ".".
    std::error_code absolute_error;
    std::filesystem::path folder = std::filesystem::absolute(path.parent_path(), absolute_error).lexically_normal();
    if (folder.filename().empty()) {
      folder = folder.parent_path();  // "/work/model/" names "model"
    }
    m.id = absolute_error ? std::string() : folder.filename().string();
  }
  if (!m.id.empty() && m.id.front() == '.') {
    m.id = "model-config";  // ".json", a hidden directory: no name to read
  }
  // What an engine loads it by (plan's launch command) is set by model_from_hf_config_file: the
  // directory given.
  if (m.id.empty()) {
    m.id = "config.json";
  }
  m.name = m.id;
  m.sources = {origin};
  return m;
}

}  // namespace

ModelSpec model_from_hf_config(std::string_view text, std::string_view origin_view) {
  const std::string origin(origin_view);
  return model_from_hf_json(parse_hf_config_text(text, origin), origin);
}

ModelSpec model_from_hf_config_file(const std::filesystem::path& given) {
  std::error_code ec;
  std::filesystem::path path = given;
  if (!given.empty() && std::filesystem::is_directory(given, ec)) {
    // A downloaded model directory: config.json inside, maybe the safetensors index beside it.
    path = given / "config.json";
    if (!std::filesystem::exists(path, ec)) {
      bool gguf = false;
      for (const auto& entry : std::filesystem::directory_iterator(given, ec)) {
        gguf = gguf || entry.path().extension() == ".gguf";
      }
      throw InputError(fmt::format("{}: the directory holds no config.json{}", given.string(),
                                   gguf ? " (GGUF files, llama.cpp's format, are not read: give the config.json of "
                                          "the checkpoint they were converted from)"
                                        : ""));
    }
  }
  // A GGUF file (several GB) is refused by its name before it is read, or by its magic.
  const bool gguf = path.extension() == ".gguf" && std::filesystem::is_regular_file(path, ec);
  const std::string text = gguf ? std::string() : read_text_file(path, "model config");
  if (gguf || text.starts_with("GGUF")) {
    throw InputError(fmt::format("{}: a GGUF file (llama.cpp's format) is not read: give the config.json of the "
                                 "checkpoint it was converted from",
                                 path.string()));
  }
  // NVIDIA ModelOpt checkpoints may keep their quantization only in hf_quant_config.json beside
  // config.json ({"quantization": {"quant_algo": "NVFP4", "exclude_modules": [...]}}): read as the
  // quantization_config it stands for, or a Llama 3.3 70B NVFP4 checkpoint is sized in bf16 (3.3x).
  const std::filesystem::path quant = path.parent_path() / "hf_quant_config.json";
  bool modelopt_file = false;
  Json config = parse_hf_config_text(text, path.string());
  if (limits::optional_file_present(quant, "ModelOpt quantization config")) {
    if (config.is_object() && !config.contains("quantization_config")) {
      const std::string origin = quant.string();
      const Json q = detail::parse_json_text(read_text_file(quant, "ModelOpt quantization config"), origin);
      detail::ObjectReader top(q, origin, JsonPointer());
      const Json* quantization = top.value("quantization");
      if (quantization == nullptr || !quantization->is_object()) {
        top.fail("quantization", "missing required object (quant_algo, exclude_modules)");
      }
      detail::ObjectReader fields(*quantization, origin, JsonPointer("/quantization"));
      const std::string algo = fields.string("quant_algo");
      if (!detail::modelopt_algorithm_known(algo)) {
        fields.fail("quant_algo", fmt::format("unknown ModelOpt algorithm \"{}\" (known: {})", detail::printable(algo),
                                              detail::kModeloptAlgorithms));
      }
      Json injected = *quantization;
      injected["quant_method"] = "modelopt";
      config["quantization_config"] = std::move(injected);
      modelopt_file = true;
    }
  }
  const std::filesystem::path index = path.parent_path() / "model.safetensors.index.json";
  const bool index_present = limits::optional_file_present(index, "safetensors index");
  ModelSpec m = model_from_hf_json(config, path.string(), index_present);
  if (path.filename() == "config.json" && !path.has_parent_path()) {
    // "config.json" or "." in the working directory: named for that directory, not the file.
    const std::string folder = std::filesystem::current_path(ec).filename().string();
    if (!ec && !folder.empty() && folder.front() != '.') {
      m.id = folder;
    }
  }
  if (modelopt_file) {
    m.shipped_source = "hf_quant_config.json beside config.json (ModelOpt)";
  }
  // AutoGPTQ's uploads (TheBloke's among them) may keep their quantization only in
  // quantize_config.json beside config.json, AutoAWQ's before transformers 4.35 in
  // quant_config.json (or quantize_config.json): read as fp16 an int4 checkpoint was 2.7-3.4x its
  // bytes (helpers s48 F3, s55 configs2 F1). config.json's own quantization_config wins, as it
  // does in transformers and the engines. vLLM reads the first of the two names it finds.
  if (!modelopt_file && path.filename() == "config.json") {
    const auto stated = [&config](const char* key) { return config.contains(key) && !config[key].is_null(); };
    for (const char* name : {"quant_config.json", "quantize_config.json"}) {
      const std::filesystem::path sidecar = path.parent_path() / name;
      if (stated("quantization_config") || stated("compression_config") ||
          !limits::optional_file_present(sidecar, "AWQ/GPTQ quantization config")) {
        continue;
      }
      const std::string origin = sidecar.string();
      detail::read_quant_sidecar(m, detail::parse_json_text(read_text_file(sidecar, "AWQ/GPTQ quantization config"), origin),
                                 origin, name);
      break;
    }
  }
  // A config.json is loaded by its folder (a downloaded model directory); another config file
  // whose saved name was not used names no checkpoint directory.
  const bool saved_name_refused = !saved_name_refused_note(m).empty();
  if (m.hf_repo.empty() && path.filename() == "config.json") {
    m.hf_repo = path.parent_path().empty() ? std::string(".") : path.parent_path().string();
  } else if (m.hf_repo.empty() && saved_name_refused) {
    // A loose config file names no checkpoint directory: the launch line says so.
    m.hf_repo = fmt::format("<checkpoint-directory-of-{}>", path.filename().string());
  }
  if (index_present) {
    const std::string origin = index.string();
    // Only the metadata is needed; the weight map (one key per tensor) is skipped while parsing.
    const Json root = detail::parse_json_text(
        read_text_file(index, "safetensors index", limits::kMaxIndexFileBytes), origin, {"weight_map"});
    detail::ObjectReader top(root, origin, JsonPointer());
    const Json* metadata = top.value("metadata");
    if (metadata == nullptr) {
      top.fail("metadata", "missing required field");
    }
    detail::ObjectReader meta(*metadata, origin, JsonPointer("/metadata"));
    constexpr double kMaxBytes = 1e16;
    // A total of 0, or none, is a writer that did not fill it (fantasylord/Qwen36's index stores
    // "total_size": 0): engines load by weight_map and never read it, so the checkpoint serves.
    // Refused, the directory had stopped while its config.json alone was read (helper s57 configs
    // F2b): the computed weights go unchecked instead, and the note says so.
    const Json* total = meta.value("total_size");
    if (total == nullptr || (total->is_number_integer() && total->get<std::int64_t>() == 0)) {
      const std::string note = fmt::format("{}: metadata.total_size is {}: the weights computed from config.json are "
                                           "not checked against the checkpoint's files",
                                           origin, total == nullptr ? std::string("missing") : total->dump());
      m.assumed_defaults = m.assumed_defaults.empty() ? note : m.assumed_defaults + "; " + note;
    } else {
      // A byte count: below one byte (1e-300) the computed-vs-checkpoint share printed "+inf %".
      m.checkpoint_bytes = meta.number_in("total_size", 1, kMaxBytes);
    }
  }
  return m;
}

}  // namespace gpuplan
