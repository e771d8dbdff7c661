#include <gpuplan/weight_choice.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>

#include "detail/weight_summary.hpp"

namespace gpuplan {
namespace {

WeightFormat high_precision(const WeightFormat& f) {
  return f.quantized() ? WeightFormat{} : WeightFormat{.element = f.element};
}

double params_of(const ParamCount& p, WeightPart part) {
  switch (part) {
    case WeightPart::embedding: return p.embedding;
    case WeightPart::lm_head: return p.lm_head;
    case WeightPart::attention: return p.attention;
    case WeightPart::dense_mlp: return p.dense_mlp;
    case WeightPart::routed_experts: return p.routed_experts;
    case WeightPart::shared_experts: return p.shared_experts;
    case WeightPart::router: return p.router;
    case WeightPart::norms: return p.norms;
    case WeightPart::vision: return p.vision;
  }
  return 0.0;
}

bool present(const ParamCount& p, WeightPart part) {
  switch (part) {
    case WeightPart::embedding: return p.embedding > 0;
    case WeightPart::lm_head: return p.lm_head > 0;
    case WeightPart::attention: return p.attention > 0;
    case WeightPart::dense_mlp: return p.dense_mlp > 0;
    case WeightPart::routed_experts: return p.routed_experts > 0;
    case WeightPart::shared_experts: return p.shared_experts > 0;
    case WeightPart::router: return p.router > 0;
    case WeightPart::norms: return false;  // always 16-bit vectors: not worth a mention
    case WeightPart::vision: return p.vision > 0;
  }
  return false;
}

std::string_view label(WeightPart part) {
  switch (part) {
    case WeightPart::embedding: return "embedding";
    case WeightPart::lm_head: return "LM head";
    case WeightPart::attention: return "attention";
    case WeightPart::dense_mlp: return "dense MLP";
    case WeightPart::routed_experts: return "experts";
    case WeightPart::shared_experts: return "shared experts";
    case WeightPart::router: return "router";
    case WeightPart::norms: return "norms";
    case WeightPart::vision: return "vision";
  }
  return "?";
}

}  // namespace

WeightChoice named_release_choice(const ModelSpec& model, const CheckpointName& named, std::string* note) {
  WeightChoice c;
  c.all = named.format;
  if (!named.format || named.owner != "meta-llama" || named.format->element != DType::fp8 ||
      !model.has_architecture()) {
    return c;
  }
  if (model.is_moe()) {
    c.experts = named.format;
    c.all = default_format(DType::bf16);
    if (note != nullptr) {
      *note = "Meta's FP8 release quantizes the experts; attention and the dense layers stay bf16 "
              "(--weights-dtype fp8 overrides)";
    }
  } else {
    c.attention = default_format(DType::bf16);
    if (note != nullptr) {
      *note = "Meta's FP8 release keeps self-attention in bf16 (Llama 3 paper, section 6.2; --attention-dtype fp8 "
              "overrides); its first and last layers' FFN, also bf16 there, are counted as fp8";
    }
  }
  return c;
}

WeightFormats choose_weight_formats(const ModelSpec& m, const WeightChoice& c) {
  WeightFormats f = m.shipped_formats.value_or(WeightFormats{});
  if (c.all) {
    const WeightFormat vision = f[WeightPart::vision];
    for (WeightFormat& part : f.parts) {
      part = *c.all;
    }
    // Quantized checkpoints keep the embedding table, LM head and router in 16 bits.
    f[WeightPart::embedding] = f[WeightPart::lm_head] = f[WeightPart::router] = high_precision(*c.all);
    f[WeightPart::vision] = c.all->quantized() ? vision : *c.all;
    if (!c.all->quantized()) {
      f.vectors = c.all->element;  // served in this format; quantized weights keep the model's own
    }
  }
  if (c.experts) {
    if (!m.has_architecture() || !m.moe) {
      throw InputError(fmt::format("weights.experts: '{}' has no experts (a dense model); use "
                                   "--weights-dtype", m.id));
    }
    f[WeightPart::routed_experts] = f[WeightPart::shared_experts] = *c.experts;
  }
  if (c.attention) {
    if (!m.has_architecture()) {
      throw InputError(fmt::format("weights.attention: '{}' has no architecture to split into "
                                   "attention and the rest; use --weights-dtype", m.id));
    }
    f[WeightPart::attention] = *c.attention;
  }
  if (c.embeddings) {
    f[WeightPart::embedding] = f[WeightPart::lm_head] = *c.embeddings;
  }
  return f;
}

std::string describe_formats(const ModelSpec& m, const WeightFormats& f) {
  return detail::describe_formats(m, f, m.has_architecture() ? count_params(m) : ParamCount{});
}

std::string detail::describe_formats(const ModelSpec& m, const WeightFormats& f, const ParamCount& p) {
  if (!m.has_architecture()) {
    return to_string(f[WeightPart::dense_mlp]);
  }
  // One format for every part the model has (the usual case): its name, without grouping.
  const WeightFormat* only = nullptr;
  bool uniform = true;
  for (std::size_t i = 0; i < kWeightParts && uniform; ++i) {
    const auto part = static_cast<WeightPart>(i);
    if (present(p, part)) {
      uniform = only == nullptr || f[part] == *only;  // else grouped by name below
      only = only == nullptr ? &f[part] : only;
    }
  }
  if (uniform) {
    return to_string(only == nullptr ? f[WeightPart::attention] : *only);
  }
  std::map<std::string, std::vector<WeightPart>> by_format;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const auto part = static_cast<WeightPart>(i);
    if (!present(p, part)) {
      continue;
    }
    const std::string name = to_string(f[part]);
    if (!by_format.contains(name)) {
      order.push_back(name);
    }
    by_format[name].push_back(part);
  }
  if (by_format.size() <= 1) {
    return order.empty() ? to_string(f[WeightPart::attention]) : order.front();
  }
  // "rest" is the format most parts share; ties go to the one holding more parameters.
  const auto params_in = [&p, &by_format](const std::string& name) {
    double n = 0;
    for (WeightPart part : by_format[name]) {
      n += params_of(p, part);
    }
    return n;
  };
  std::string rest = order.front();
  for (const std::string& name : order) {
    const std::size_t a = by_format[name].size();
    const std::size_t b = by_format[rest].size();
    if (a > b || (a == b && params_in(name) > params_in(rest))) {
      rest = name;
    }
  }
  std::vector<std::string> items;
  for (const std::string& name : order) {
    if (name == rest) {
      continue;
    }
    std::vector<std::string_view> parts;
    for (WeightPart part : by_format[name]) {
      parts.push_back(label(part));
    }
    items.push_back(fmt::format("{} {}", fmt::join(parts, ", "), name));
  }
  items.push_back(fmt::format("rest {}", rest));
  return fmt::format("{}", fmt::join(items, ", "));
}

namespace {

/// The one element type of every part that multiplies (all but the embedding table and the
/// norms), if they share one: then it dominates whatever the bytes, which need not be counted
/// (a walk over the model's tensors, for every request of a batch).
std::optional<DType> only_matmul_dtype(const WeightFormats& f) {
  std::optional<DType> only;
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const auto part = static_cast<WeightPart>(i);
    if (part == WeightPart::embedding || part == WeightPart::norms) {
      continue;
    }
    if (only && *only != f[part].element) {
      return std::nullopt;
    }
    only = f[part].element;
  }
  return only;
}

}  // namespace

DType dominant_dtype(const ModelSpec& m, const WeightFormats& f) {
  if (m.has_architecture()) {
    if (const auto only = only_matmul_dtype(f)) {
      return *only;
    }
  }
  return detail::dominant_dtype(m, f, m.has_architecture() ? weight_bytes_by_part(m, f) : std::array<double, kWeightParts>{});
}

DType detail::dominant_dtype(const ModelSpec& m, const WeightFormats& f, const std::array<double, kWeightParts>& bytes) {
  if (!m.has_architecture()) {
    return f[WeightPart::dense_mlp].element;
  }
  if (const auto only = only_matmul_dtype(f)) {
    return *only;
  }
  std::map<DType, double> by_dtype;
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const auto part = static_cast<WeightPart>(i);
    if (part != WeightPart::embedding && part != WeightPart::norms) {  // a gather, not a matmul
      by_dtype[f[part].element] += bytes[i];
    }
  }
  const auto best = std::max_element(by_dtype.begin(), by_dtype.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  return best == by_dtype.end() ? DType::bf16 : best->first;
}

}  // namespace gpuplan
