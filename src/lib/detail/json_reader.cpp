#include "detail/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>

namespace gpuplan::detail {
namespace {

std::string python_literal(double x) {
  return std::isnan(x) ? "NaN" : x > 0.0 ? "Infinity" : "-Infinity";
}

std::string shown(const Json& value) {
  // Structured values are named, not dumped: dump() recurses and a deeply nested file would
  // overflow the stack just to print an error.
  if (value.is_object()) {
    return "an object";
  }
  if (value.is_array()) {
    return value.empty() ? "[]" : "an array";
  }
  // nlohmann prints a NaN or infinite double as null; config.json wrote it as Python does.
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    return python_literal(value.get<double>());
  }
  constexpr std::size_t kMaxShown = 40;
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kMaxShown) {
    text = text.substr(0, kMaxShown) + "...";
  }
  return text;
}

}  // namespace

std::string where(std::string_view origin, const JsonPointer& at) {
  // A pointer into a deep hostile file could run to kilobytes; keep both ends.
  constexpr std::size_t kHead = 80;
  constexpr std::size_t kTail = 60;
  std::string pointer = at.to_string();
  if (pointer.size() > kHead + kTail + 3) {
    pointer = pointer.substr(0, kHead) + "..." + pointer.substr(pointer.size() - kTail);
  }
  return fmt::format("{}: {}", origin, pointer.empty() ? "/" : pointer);
}

Json parse_json_text(std::string_view text, std::string_view origin,
                     std::initializer_list<std::string_view> skipped_top_keys) {
  // Duplicate keys would silently keep the last value; reject them while parsing. Nesting,
  // key and string lengths and the number of values kept are capped (gpuplan/input_limits.hpp)
  // so that a hostile file fails here, fast, instead of overflowing the stack in a later
  // recursive copy or growing a tree many times the file's size.
  using limits::excerpt;
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  std::size_t values = 0;
  // A skipped key's value is discarded; nlohmann still reports the keys and container starts
  // inside a discarded container (deeper than 1) but not its end.
  enum class Skip { none, value_next, inside } skip = Skip::none;
  const auto fail = [&origin](const std::string& what) {
    throw InputError(fmt::format("{}: invalid JSON: {}", origin, what));
  };
  // nlohmann's lexer reads a NUL byte as the end of the input: what follows one was ignored.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    fail(fmt::format("a NUL byte at offset {} (JSON text has none; a padded or damaged file?)", nul));
  }
  // Where the parser is: nlohmann's number overflow (out_of_range.406) names the number but not
  // its field or line (helper s48 F5: "hidden_size": 1e400).
  struct Frame {
    bool array = false;
    std::string key;
    std::size_t index = 0;
  };
  std::vector<Frame> path;
  const auto next_element = [&path]() {
    if (!path.empty() && path.back().array) {
      ++path.back().index;
    }
  };
  const Json::parser_callback_t check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    const bool starts = event == Event::object_start || event == Event::array_start;
    if (starts && depth >= limits::kMaxJsonDepth) {
      fail(fmt::format("nested deeper than {} levels", limits::kMaxJsonDepth));
    }
    if (skip == Skip::value_next) {
      skip = starts ? Skip::inside : Skip::none;
      return false;
    }
    if (skip == Skip::inside) {
      if (depth > 1) {
        return false;
      }
      skip = Skip::none;
    }
    if (event == Event::object_start) {
      keys.emplace_back();
    } else if (event == Event::object_end && !keys.empty()) {
      keys.pop_back();
    }
    if (starts) {
      path.push_back(Frame{.array = event == Event::array_start});
    } else if (event == Event::object_end || event == Event::array_end) {
      if (!path.empty()) {
        path.pop_back();
      }
      next_element();
    } else if (event == Event::value) {
      next_element();
    }
    if (event == Event::key) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!path.empty()) {
        path.back().key = key;
      }
      if (key.size() > limits::kMaxJsonKeyBytes) {
        fail(fmt::format("a key longer than {} bytes: \"{}\"", limits::kMaxJsonKeyBytes, excerpt(key)));
      }
      if (!keys.empty() && !keys.back().insert(key).second && duplicate.empty()) {
        duplicate = key;
      }
      if (depth == 1 && std::find(skipped_top_keys.begin(), skipped_top_keys.end(), key) !=
                            skipped_top_keys.end()) {
        skip = Skip::value_next;
        return false;
      }
      return true;
    }
    if (event == Event::value && parsed.is_string() &&
        parsed.get_ref<const std::string&>().size() > limits::kMaxJsonStringBytes) {
      fail(fmt::format("a string longer than {} KiB: \"{}\"", limits::kMaxJsonStringBytes >> 10,
                       excerpt(parsed.get_ref<const std::string&>())));
    }
    if ((starts || event == Event::value) && ++values > limits::kMaxJsonValues) {
      fail(fmt::format("more than {} values", limits::kMaxJsonValues));
    }
    return true;
  };
  Json root;
  try {
    root = Json::parse(text.begin(), text.end(), check);
  } catch (const Json::parse_error& e) {
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix; keep line and column.
    std::string what = e.what();
    if (const auto pos = what.find("] "); pos != std::string::npos) {
      what = what.substr(pos + 2);
    }
    throw InputError(fmt::format("{}: invalid JSON: {}", origin, what));
  } catch (const Json::exception& e) {
    // e.g. out_of_range.406: a number too large for a double, named by the field it was for.
    std::string what = e.what();
    if (const auto pos = what.find("] "); pos != std::string::npos) {
      what = what.substr(pos + 2);
    }
    JsonPointer at;
    for (const Frame& frame : path) {
      at = frame.array ? at / frame.index : at / frame.key;
    }
    throw InputError(fmt::format("{}: invalid JSON: {}", path.empty() ? std::string(origin) : where(origin, at), what));
  }
  if (!duplicate.empty()) {
    throw InputError(fmt::format("{}: invalid JSON: duplicate key \"{}\"", origin, duplicate));
  }
  return root;
}

ObjectReader::ObjectReader(const Json& object, std::string origin, JsonPointer at, Nulls nulls)
    : object_(object), origin_(std::move(origin)), at_(std::move(at)), nulls_(nulls) {
  if (!object_.is_object()) {
    throw InputError(
        fmt::format("{}: expected an object, got {}", where(origin_, at_), shown(object_)));
  }
}

bool ObjectReader::has(std::string_view key) const {
  const auto it = object_.find(key);
  if (it != object_.end() && it->is_null() && nulls_ == Nulls::refused) {
    fail(key, "null is not a value here: give one, or leave the key out to leave an optional field unset");
  }
  return it != object_.end() && !it->is_null();
}

std::string ObjectReader::where_of(std::string_view key) const {
  const auto written = spelled_.find(key);
  return where(origin_, at_ / (written == spelled_.end() ? std::string(key) : written->second));
}

void ObjectReader::fail(std::string_view key, std::string_view message) const {
  throw InputError(fmt::format("{}: {}", where_of(key), message));
}

const Json* ObjectReader::value(std::string_view key) {
  read_.emplace(key);
  if (!has(key)) {
    return nullptr;
  }
  const auto it = object_.find(key);
  // config.json's NaN and Infinity (Python's json.dumps writes them; catalog.cpp keeps them as
  // doubles): no field gpuplan reads has such a value, and taking it as absent (null's meaning)
  // had read num_key_value_heads NaN as multi-head attention (helper s49 F2).
  if (it->is_number_float() && !std::isfinite(it->get<double>())) {
    fail(key, fmt::format("Python's {} literal is not a value gpuplan can read; write the number (or null "
                          "where the field may be left unset)",
                          python_literal(it->get<double>())));
  }
  return &*it;
}

std::optional<std::string> ObjectReader::optional_string(std::string_view key) {
  const Json* v = value(key);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_string() || v->get_ref<const std::string&>().empty()) {
    fail(key, fmt::format("expected a non-empty string, got {}", shown(*v)));
  }
  const std::string& s = v->get_ref<const std::string&>();
  if (std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    fail(key, "contains control characters");
  }
  if (s.find_first_not_of(' ') == std::string::npos) {
    fail(key, "is only spaces; expected a non-empty string");  // a name or source that prints as nothing
  }
  return s;
}

std::string ObjectReader::string(std::string_view key) {
  return required(key, optional_string(key));
}

std::optional<double> ObjectReader::optional_number(std::string_view key, double max,
                                                    bool allow_zero) {
  const Json* v = value(key);
  if (v == nullptr) {
    return std::nullopt;
  }
  const std::string_view what = allow_zero ? "a number >= 0" : "a positive number";
  if (!v->is_number()) {
    fail(key, fmt::format("expected {}, got {}", what, shown(*v)));
  }
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < 0.0 || (!allow_zero && !(x > 0.0))) {
    fail(key, fmt::format("expected {}, got {}", what, shown(*v)));
  }
  if (x > max) {
    fail(key, fmt::format("{} is implausibly large (limit {:g})", shown(*v), max));
  }
  return x;
}

double ObjectReader::number(std::string_view key, double max, bool allow_zero) {
  return required(key, optional_number(key, max, allow_zero));
}

std::optional<double> ObjectReader::optional_number_in(std::string_view key, double min, double max) {
  const auto x = optional_number(key, max);
  if (x && *x < min) {
    fail(key, fmt::format("{} is implausibly small (limit {:g})", shown(*value(key)), min));
  }
  return x;
}

double ObjectReader::number_in(std::string_view key, double min, double max) {
  return required(key, optional_number_in(key, min, max));
}

std::optional<std::uint64_t> ObjectReader::optional_integer(std::string_view key, std::uint64_t min,
                                                            std::uint64_t max) {
  const Json* v = value(key);
  if (v == nullptr) {
    return std::nullopt;
  }
  // Config writers emit integral values as floats ("8.0"); accept those, reject 8.5.
  const bool whole_float = v->is_number_float() && std::isfinite(v->get<double>()) &&
                           v->get<double>() >= 0.0 && v->get<double>() < 1.8e19 &&
                           v->get<double>() - std::floor(v->get<double>()) <= 0.0;
  const bool integral = v->is_number_unsigned() ||
                        (v->is_number_integer() && v->get<std::int64_t>() >= 0) || whole_float;
  if (!integral) {
    fail(key, fmt::format("expected an integer between {} and {}, got {}", min, max, shown(*v)));
  }
  const auto x = whole_float ? static_cast<std::uint64_t>(v->get<double>()) : v->get<std::uint64_t>();
  if (x < min || x > max) {
    fail(key, fmt::format("expected an integer between {} and {}, got {}", min, max, x));
  }
  return x;
}

std::uint64_t ObjectReader::integer(std::string_view key, std::uint64_t min, std::uint64_t max) {
  return required(key, optional_integer(key, min, max));
}

bool ObjectReader::boolean(std::string_view key, bool fallback) {
  const Json* v = value(key);
  if (v == nullptr) {
    return fallback;
  }
  if (!v->is_boolean()) {
    fail(key, fmt::format("expected true or false, got {}", shown(*v)));
  }
  return v->get<bool>();
}

std::vector<std::string> ObjectReader::strings(std::string_view key) {
  const Json* v = value(key);
  if (v == nullptr) {
    fail(key, object_.contains(key) ? "null where a value is required" : "missing required field");
  }
  if (!v->is_array() || v->empty()) {
    fail(key, fmt::format("expected a non-empty array of strings, got {}", shown(*v)));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const Json& item = (*v)[i];
    if (!item.is_string() || item.get_ref<const std::string&>().find_first_not_of(" \t") == std::string::npos) {
      throw InputError(fmt::format("{}: expected a non-empty string, got {}",
                                   where(origin_, at_ / std::string(key) / i), shown(item)));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

void ObjectReader::reject_unknown(std::span<const std::string_view> allowed) const {
  for (const auto& [key, unused] : object_.items()) {
    bool known = false;
    for (std::string_view a : allowed) {
      known = known || a == key;
    }
    if (!known) {
      const std::vector<std::string> names(allowed.begin(), allowed.end());
      const auto close = closest_names(key, names, 1);
      throw InputError(fmt::format("{}: unknown field{}", where_of(key),
                                   close.empty() ? "" : fmt::format("; did you mean '{}'?", close[0])));
    }
  }
}

}  // namespace gpuplan::detail
